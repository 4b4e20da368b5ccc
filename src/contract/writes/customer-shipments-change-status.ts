import { repeatableModule } from './common.js';

/** customerShipments.changeStatus: the picking status; setting the same status again changes nothing. */
export const customerShipmentsChangeStatus = repeatableModule('customerShipments.changeStatus', 'Endpoints → Customer shipments');
