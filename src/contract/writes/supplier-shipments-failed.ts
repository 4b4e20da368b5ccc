import { repeatableModule } from './common.js';

/** supplierShipments.failed: the WMS could not take the shipment; marking it failed again changes nothing. */
export const supplierShipmentsFailed = repeatableModule('supplierShipments.failed', 'Endpoints → Supplier shipments');
