import { endpoints } from '../endpoints.js';
import { idOf, idText, receivedHint } from './common.js';
import type { WriteModule } from './types.js';

/** Books the receipt of a customer return (per item): read back as `done`; untouched ones are sent again. */
export const customerReturnsReceive: WriteModule<'customerReturns.receive'> = {
  contract: endpoints['customerReturns.receive'],
  section: 'Endpoints → Customer return shipments',
  policy: { retry: 'unsafe', verify: { list: 'customerReturns.list', applied: ['done'] } },
  untouched: { list: 'customerReturns.list', open: ['pending', 'open'] },
  kept: ['id'],
  outcomeKey: idOf,
  documentKey: idText,
  uncertainHint: receivedHint,
};
