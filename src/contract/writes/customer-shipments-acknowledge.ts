import { acknowledgeModule } from './common.js';

/** customerShipments.acknowledge: the WMS took the record over; read back as `open` or `done`. */
export const customerShipmentsAcknowledge = acknowledgeModule('customerShipments.acknowledge', 'Endpoints → Customer shipments', 'customerShipments.list', ['open', 'done']);
