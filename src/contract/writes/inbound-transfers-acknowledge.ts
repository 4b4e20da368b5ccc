import { acknowledgeModule } from './common.js';

/** inboundTransfers.acknowledge: the WMS took the record over; read back as `open`. */
export const inboundTransfersAcknowledge = acknowledgeModule('inboundTransfers.acknowledge', 'Endpoints → Inbound transfers', 'inboundTransfers.list', ['open']);
