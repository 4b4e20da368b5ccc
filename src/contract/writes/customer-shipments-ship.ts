import { endpoints } from '../endpoints.js';
import { idOf, idText, shippedHint } from './common.js';
import type { WriteModule } from './types.js';

/**
 * Marks a customer shipment shipped (fail-fast). Never repeated blindly: a second ship can ship again (split
 * strategies). Read back as `done`; a record still pending/open and untouched since the send is sent again.
 */
export const customerShipmentsShip: WriteModule<'customerShipments.ship'> = {
  contract: endpoints['customerShipments.ship'],
  section: 'Endpoints → Customer shipments → Ship request',
  policy: { retry: 'unsafe', verify: { list: 'customerShipments.list', applied: ['done'] } },
  untouched: { list: 'customerShipments.list', open: ['pending', 'open'] },
  kept: ['id', 'shipped_at'],
  outcomeKey: idOf,
  documentKey: idText,
  uncertainHint: shippedHint,
};
