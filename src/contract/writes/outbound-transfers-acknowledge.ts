import { acknowledgeModule } from './common.js';

/** outboundTransfers.acknowledge: the WMS took the record over; read back as `open` or `done`. */
export const outboundTransfersAcknowledge = acknowledgeModule('outboundTransfers.acknowledge', 'Endpoints → Outbound transfers', 'outboundTransfers.list', ['open', 'done']);
