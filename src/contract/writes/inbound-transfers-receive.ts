import { endpoints } from '../endpoints.js';
import { idOf, idText, receivedHint } from './common.js';
import type { WriteModule } from './types.js';

/**
 * Books the receipt of an inbound transfer (fail-fast). A second receive could book stock twice: read back (in
 * `all`, in neither `pending` nor `open`); no `updated_at` filter, so nothing can be shown untouched.
 */
export const inboundTransfersReceive: WriteModule<'inboundTransfers.receive'> = {
  contract: endpoints['inboundTransfers.receive'],
  section: 'Endpoints → Inbound transfers',
  policy: { retry: 'unsafe', verify: { list: 'inboundTransfers.list', applied: ['all'], absent: ['pending', 'open'] } },
  kept: ['id'],
  outcomeKey: idOf,
  documentKey: idText,
  uncertainHint: receivedHint,
};
