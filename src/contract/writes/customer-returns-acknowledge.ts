import { acknowledgeModule } from './common.js';

/** customerReturns.acknowledge: the WMS took the record over; read back as `open` or `done`. */
export const customerReturnsAcknowledge = acknowledgeModule('customerReturns.acknowledge', 'Endpoints → Customer return shipments', 'customerReturns.list', ['open', 'done']);
