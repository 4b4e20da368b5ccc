import { repeatableModule } from './common.js';

/** customerShipments.failed: the WMS could not take the shipment; marking it failed again changes nothing. */
export const customerShipmentsFailed = repeatableModule('customerShipments.failed', 'Endpoints → Customer shipments');
