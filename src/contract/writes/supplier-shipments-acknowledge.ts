import { acknowledgeModule } from './common.js';

/** supplierShipments.acknowledge: the WMS took the record over; read back as `open` or `done`. */
export const supplierShipmentsAcknowledge = acknowledgeModule('supplierShipments.acknowledge', 'Endpoints → Supplier shipments', 'supplierShipments.list', ['open', 'done']);
