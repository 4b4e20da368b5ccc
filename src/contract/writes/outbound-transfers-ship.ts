import { endpoints } from '../endpoints.js';
import { idOf, idText, shippedHint } from './common.js';
import type { WriteModule } from './types.js';

/** Marks an outbound transfer shipped (fail-fast); as customer shipments: read back as `done`, untouched ones sent again. */
export const outboundTransfersShip: WriteModule<'outboundTransfers.ship'> = {
  contract: endpoints['outboundTransfers.ship'],
  section: 'Endpoints → Outbound transfers',
  policy: { retry: 'unsafe', verify: { list: 'outboundTransfers.list', applied: ['done'] } },
  untouched: { list: 'outboundTransfers.list', open: ['pending', 'open'] },
  kept: ['id', 'shipped_at'],
  outcomeKey: idOf,
  documentKey: idText,
  uncertainHint: shippedHint,
};
