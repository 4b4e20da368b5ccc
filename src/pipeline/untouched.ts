import { IDS_PER_QUERY } from '../client/index.js';
import { writeModule } from '../contract/index.js';
import type { InboundJournal, ItemOutcome } from '../journal/index.js';
import { toOutcome } from './outcomes.js';
import type { SenderContext } from './types.js';
import { writeBodies } from './write.js';

// Ship / receive writes whose outcome is unknown and that reading back did not confirm: a record still open and not
// updated since just before the write was sent was not touched by it, so sending it again cannot apply it twice.
// Which endpoints can be checked so, and how: `untouched` in their module (src/contract/writes/).

/**
 * Margin against clock skew between the journal's database and the service: a record updated this close before the
 * send counts as touched.
 */
const SKEW_MS = 120_000;

/**
 * How long ago a request whose send time the journal lacks is taken to have gone out. Earlier is the safe side: the
 * read-back looks further back, and the untouched-since check counts more records as touched, so fewer are sent again.
 */
const UNKNOWN_SEND_AGE_MS = 3_600_000;

/**
 * When the request was sent: the journal's stamp by the database's clock, taken in the commit before its bytes went
 * out. Never this process's clock, which may be off (and another instance's may have sent the request).
 */
export async function requestSentAt(journal: Pick<InboundJournal, 'getRequest'>, requestId: number): Promise<Date> {
  const at = (await journal.getRequest(requestId)).sentAt;
  return at === null ? new Date(Date.now() - UNKNOWN_SEND_AGE_MS) : new Date(at);
}

async function untouchedIds(ctx: SenderContext, endpoint: string, ids: number[], sentAt: Date): Promise<Set<number>> {
  const spec = writeModule(endpoint)?.untouched;
  if (!spec || ids.length === 0) return new Set();
  const open = new Set<number>();
  const touched = new Set<number>();
  const since = new Date(sentAt.getTime() - SKEW_MS).toISOString();
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const chunk = ids.slice(i, i + IDS_PER_QUERY);
    for (const status of spec.open) {
      // eslint-disable-next-line no-restricted-syntax -- a run-time list endpoint: its filter type is the intersection of every list's; `untouched` names only lists with `ids` and `updated_at_min`
      for await (const r of ctx.client.list(spec.list, { status, ids: chunk } as never)) open.add((r as { id: number }).id);
      // eslint-disable-next-line no-restricted-syntax -- as above
      for await (const r of ctx.client.list(spec.list, { status, ids: chunk, updated_at_min: since } as never)) touched.add((r as { id: number }).id);
    }
  }
  return new Set([...open].filter((id) => !touched.has(id)));
}

/** Replaces uncertain outcomes (in place) by the outcome of sending again the items shown untouched by the first send. */
export async function resendUntouched(ctx: SenderContext, requestId: number, endpoint: string, outcomes: ItemOutcome[], bodies: Record<string, unknown>[], keys: string[]): Promise<void> {
  if (!writeModule(endpoint)?.untouched) return;
  const ids = outcomes.flatMap((o, i) => (o.status === 'uncertain' && typeof bodies[i].id === 'number' ? [bodies[i].id as number] : []));
  if (ids.length === 0) return;
  const untouched = await untouchedIds(ctx, endpoint, ids, await requestSentAt(ctx.journal, requestId));
  const again = outcomes.flatMap((o, i) => (o.status === 'uncertain' && untouched.has(bodies[i].id as number) ? [i] : []));
  if (again.length === 0) return;
  ctx.stats.requests++;
  ctx.logger.info({ endpoint, items: again.length }, 'unconfirmed writes were not applied (records untouched since): sending them again');
  const results = await writeBodies(ctx, endpoint, again.map((i) => bodies[i]), { batchSize: again.length });
  results.forEach((o, j) => {
    const i = again[j];
    outcomes[i] = toOutcome(outcomes[i].seq, o, endpoint, keys[i], bodies[i]);
  });
}
