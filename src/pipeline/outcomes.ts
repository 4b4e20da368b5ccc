import type { WriteOutcome } from '../client/index.js';
import { uncertainHint, writeModule, WRITES } from '../contract/index.js';
import type { ItemOutcome } from '../journal/index.js';
import { recordConfirmations } from './confirmations.js';
import type { SenderContext } from './types.js';

/** Per endpoint, the result fields that have a result-file column: kept even when the request already said them. */
const KEPT = new Map<string, ReadonlySet<string>>(Object.entries(WRITES).map(([id, m]) => [id, new Set(m.kept)]));
const NONE: ReadonlySet<string> = new Set();
export const keptOf = (endpoint: string): ReadonlySet<string> => KEPT.get(endpoint) ?? NONE;

/**
 * What the service returned that the row did not already say: empty fields and echoes of the request (an
 * adjustment's product_code, reference...) are dropped, so the journal and the result file carry only news.
 */
export function newsOf(returned: Record<string, unknown>, body: Record<string, unknown> | undefined, kept: ReadonlySet<string>): Record<string, unknown> | undefined {
  let news: Record<string, unknown> | undefined;
  for (const k in returned) {
    const v = returned[k];
    if (!kept.has(k) && (v === null || v === undefined || (body !== undefined && body[k] === v))) continue;
    (news ??= {})[k] = v;
  }
  return news;
}

export function toOutcome(seq: number, o: WriteOutcome<Record<string, unknown>>, endpoint: string, key: string, body: Record<string, unknown>): ItemOutcome {
  if (o.ok) {
    const news = newsOf(o.returned, body, keptOf(endpoint));
    return { seq, status: 'ok', result: o.verified ? { ...news, verified: 'read back from the service' } : news };
  }
  if (o.uncertain) return { seq, status: 'uncertain', messages: o.errors, hint: uncertainHint(endpoint, key, body) };
  return { seq, status: 'error', messages: o.errors.length > 0 ? o.errors : ['refused by the service'] };
}

/** After a write of acknowledgements from a WMS file: the exporter's records waiting for that confirmation are done. */
export async function confirm(ctx: Pick<SenderContext, 'journal' | 'logger'>, endpoint: string, bodies: readonly Record<string, unknown>[], outcomes: readonly ItemOutcome[]): Promise<number> {
  const workType = writeModule(endpoint)?.confirms;
  if (workType === undefined) return 0;
  const acks = outcomes.flatMap((o, i) => {
    const id = bodies[i]?.id;
    if (o.status !== 'ok' || typeof id !== 'number') return [];
    const at = (o.result as { acknowledged_at?: unknown } | undefined)?.acknowledged_at;
    return [{ id, acknowledgedAt: typeof at === 'string' ? at : null }];
  });
  return recordConfirmations(ctx.journal, workType, acks, ctx.logger);
}

/** Whether an endpoint's outcomes confirm exported records (`confirm` needs the request's bodies). */
export const confirmsRecords = (endpoint: string): boolean => writeModule(endpoint)?.confirms !== undefined;

/**
 * Stores a request's outcomes, and the WMS confirmations they carry (returns how many exported records they
 * confirmed); call inside a journal transaction, with its `tx` as the journal, to commit both at once.
 */
export async function storeOutcomes(ctx: Pick<SenderContext, 'journal' | 'logger'>, requestId: number, endpoint: string, bodies: readonly Record<string, unknown>[], outcomes: readonly ItemOutcome[]): Promise<number> {
  await ctx.journal.completeRequest(requestId, outcomes);
  return confirm(ctx, endpoint, bodies, outcomes);
}
