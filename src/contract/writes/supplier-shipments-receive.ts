import { endpoints } from '../endpoints.js';
import { idOf, idText, receivedHint } from './common.js';
import type { WriteModule } from './types.js';

/**
 * Books the receipt of a supplier shipment (per item). Read back as `done` by `updated_at_min` (the family has no
 * `ids` filter), so nothing can be shown untouched either.
 */
export const supplierShipmentsReceive: WriteModule<'supplierShipments.receive'> = {
  contract: endpoints['supplierShipments.receive'],
  section: 'Endpoints → Supplier shipments',
  policy: { retry: 'unsafe', verify: { list: 'supplierShipments.list', applied: ['done'], updatedSince: true } },
  kept: ['id'],
  outcomeKey: idOf,
  documentKey: idText,
  uncertainHint: receivedHint,
};
