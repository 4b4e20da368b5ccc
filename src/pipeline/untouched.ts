import { IDS_PER_QUERY } from '../client/index.js';
import { writeModule } from '../contract/index.js';
import type { ItemOutcome } from '../journal/index.js';
import { toOutcome } from './outcomes.js';
import type { SenderContext } from './types.js';
import { writeBodies } from './write.js';

// Ship / receive writes whose outcome is unknown and that reading back did not confirm: a record still open and not
// updated since just before the write was sent was not touched by it, so sending it again cannot apply it twice.
// Which endpoints can be checked so, and how: `untouched` in their module (src/contract/writes/).

/** Margin against clock skew between the bridge and the service: a record updated this close before the send counts as touched. */
const SKEW_MS = 120_000;

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
export async function resendUntouched(ctx: SenderContext, endpoint: string, outcomes: ItemOutcome[], bodies: Record<string, unknown>[], keys: string[], sentAt: Date): Promise<void> {
  if (!writeModule(endpoint)?.untouched) return;
  const ids = outcomes.flatMap((o, i) => (o.status === 'uncertain' && typeof bodies[i].id === 'number' ? [bodies[i].id as number] : []));
  const untouched = await untouchedIds(ctx, endpoint, ids, sentAt);
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
