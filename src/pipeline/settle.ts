import { WRITE_POLICIES, type BatchEndpointId, type ListEndpointId, type WriteOutcome } from '../client/index.js';
import { WisbridgeError } from '../errors.js';
import type { ItemOutcome, Journal } from '../journal/index.js';
import { confirm, toOutcome, uncertainHint, type SenderContext } from './sender.js';

/**
 * Ship / receive writes whose outcome is unknown and that reading back did not confirm: a record still open and
 * not updated since just before the write was sent was not touched by it, so sending it again cannot apply it
 * twice. Only families with both an `ids` and an `updated_at_min` filter can be checked this way; inbound
 * transfers (no updated_at filter) and supplier shipments (no ids filter) stay uncertain.
 */
const UNTOUCHED: Partial<Record<BatchEndpointId, { list: ListEndpointId; open: readonly string[] }>> = {
  'customerShipments.ship': { list: 'customerShipments.list', open: ['pending', 'open'] },
  'outboundTransfers.ship': { list: 'outboundTransfers.list', open: ['pending', 'open'] },
  'customerReturns.receive': { list: 'customerReturns.list', open: ['pending', 'open'] },
};
/** Margin against clock skew between the bridge and the service: a record updated this close before the send counts as touched. */
const SKEW_MS = 120_000;

async function untouchedIds(ctx: SenderContext, endpoint: string, ids: number[], sentAt: Date): Promise<Set<number>> {
  const spec = UNTOUCHED[endpoint as BatchEndpointId];
  if (!spec || ids.length === 0) return new Set();
  const open = new Set<number>();
  const touched = new Set<number>();
  const since = new Date(sentAt.getTime() - SKEW_MS).toISOString();
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    for (const status of spec.open) {
      for await (const r of ctx.client.list(spec.list, { status, ids: chunk } as never)) open.add((r as { id: number }).id);
      for await (const r of ctx.client.list(spec.list, { status, ids: chunk, updated_at_min: since } as never)) touched.add((r as { id: number }).id);
    }
  }
  return new Set([...open].filter((id) => !touched.has(id)));
}

/** Replaces uncertain outcomes (in place) by the outcome of sending again the items shown untouched by the first send. */
export async function resendUntouched(ctx: SenderContext, endpoint: string, outcomes: ItemOutcome[], bodies: Record<string, unknown>[], keys: string[], sentAt: Date): Promise<void> {
  if (!UNTOUCHED[endpoint as BatchEndpointId]) return;
  const ids = outcomes.flatMap((o, i) => (o.status === 'uncertain' && typeof bodies[i].id === 'number' ? [bodies[i].id as number] : []));
  const untouched = await untouchedIds(ctx, endpoint, ids, sentAt);
  const again = outcomes.flatMap((o, i) => (o.status === 'uncertain' && untouched.has(bodies[i].id as number) ? [i] : []));
  if (again.length === 0) return;
  ctx.stats.requests++;
  ctx.logger.info({ endpoint, items: again.length }, 'unconfirmed writes were not applied (records untouched since): sending them again');
  const results = await ctx.client.write(endpoint as BatchEndpointId, again.map((i) => bodies[i]) as never, { batchSize: again.length, validate: false });
  results.forEach((o, j) => {
    const i = again[j];
    outcomes[i] = toOutcome(outcomes[i].seq, o as WriteOutcome<Record<string, unknown>>, endpoint, keys[i], bodies[i]);
  });
}

const sentAtQuery = new WeakMap<object, { get(id: number): unknown }>();
function sentAt(journal: Journal, requestId: number): Date {
  let stmt = sentAtQuery.get(journal.db);
  if (!stmt) sentAtQuery.set(journal.db, (stmt = journal.db.prepare('SELECT sent_at FROM requests WHERE id = ?').pluck()));
  const at = stmt.get(requestId);
  return typeof at === 'string' ? new Date(at) : new Date(Date.now() - 3_600_000);
}

/**
 * A request left `sent` by a crash (or a lost answer): settled per endpoint policy before the file goes on.
 * Safe to repeat (change-status, failed): sent again. Ship / receive / acknowledge: read back; confirmed items
 * are ok; unconfirmed acknowledgements are sent again (harmless), unconfirmed ship / receive stay uncertain.
 * Adjustments and cycle counts are never repeated: uncertain, with what to check.
 */
export async function settleSentRequest(ctx: SenderContext, requestId: number, endpoint: string): Promise<void> {
  const { journal } = ctx;
  const items = journal.requestItems(requestId);
  const bodies = items.map((i) => (i.body === null ? {} : (JSON.parse(i.body) as Record<string, unknown>)));
  const uncertain = (i: number, why: string): ItemOutcome => ({
    seq: items[i].seq, status: 'uncertain', messages: [why], hint: uncertainHint(endpoint, items[i].docKey ?? '', bodies[i]),
  });
  const interrupted = 'the bridge stopped while this request was in flight; its outcome is unknown';
  const policy = WRITE_POLICIES[endpoint as BatchEndpointId];
  if (!policy) {
    journal.completeRequest(requestId, items.map((_, i) => uncertain(i, interrupted)));
    return;
  }
  const outcomes = new Array<ItemOutcome | undefined>(items.length);
  let resend: number[] = [];
  if (policy.retry === 'repeatable') {
    resend = items.map((_, i) => i);
  } else if (policy.verify) {
    const ids = bodies.map((b) => b.id).filter((id): id is number => typeof id === 'number');
    const confirmed = await ctx.client.verify(endpoint as BatchEndpointId, ids, sentAt(journal, requestId));
    items.forEach((item, i) => {
      if (confirmed.has(bodies[i].id as number)) outcomes[i] = { seq: item.seq, status: 'ok', result: { id: bodies[i].id, verified: 'read back from the service' } };
      else if (policy.resendUnconfirmed) resend.push(i);
      else outcomes[i] = uncertain(i, `${interrupted}; reading the state back did not confirm it`);
    });
  } else {
    items.forEach((_, i) => (outcomes[i] = uncertain(i, `${interrupted}; ${endpoint} is never sent twice`)));
  }
  if (resend.length > 0) {
    ctx.stats.requests++;
    const results = await ctx.client.write(endpoint as BatchEndpointId, resend.map((i) => bodies[i]) as never, { batchSize: resend.length, validate: false });
    results.forEach((o, j) => {
      const i = resend[j];
      outcomes[i] = toOutcome(items[i].seq, o as WriteOutcome<Record<string, unknown>>, endpoint, items[i].docKey ?? '', bodies[i]);
    });
  }
  if (outcomes.some((o) => o === undefined)) throw new WisbridgeError('JOURNAL_STATE', `request ${requestId}: an item was left unsettled`);
  const final = outcomes as ItemOutcome[];
  if (final.some((o) => o.status === 'uncertain')) {
    await resendUntouched(ctx, endpoint, final, bodies, items.map((i) => i.docKey ?? ''), sentAt(journal, requestId));
  }
  journal.completeRequest(requestId, final);
  confirm(ctx, endpoint, bodies, final);
  ctx.logger.info({ requestId, endpoint, items: items.length, uncertain: final.filter((o) => o.status === 'uncertain').length }, 'settled a request left in flight by an earlier run');
}
