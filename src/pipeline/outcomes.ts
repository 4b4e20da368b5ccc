import type { WriteOutcome } from '../client/index.js';
import type { ItemOutcome, Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { recordConfirmations } from './confirmations.js';

/** What a person should check for an item whose outcome is unknown. */
export function uncertainHint(endpoint: string, key: string, body: Record<string, unknown> | null): string {
  const b = body ?? {};
  switch (endpoint) {
    case 'inventory.adjustments':
      return `check the stock of ${String(b.product_code ?? key)} in the service (adjustment of ${String(b.quantity ?? '?')}${b.reference ? `, reference ${String(b.reference)}` : ''}) before sending it again: it may already be booked`;
    case 'inventory.counts':
      return `check in the service whether a cycle count dated ${String(b.date ?? '?')}${b.reference ? ` with reference ${String(b.reference)}` : ''} exists before recording it again`;
    case 'customerShipments.ship':
    case 'outboundTransfers.ship':
      return `check whether ${key || `id ${String(b.id)}`} is shipped in the service (a split shipment may exist) before shipping it again`;
    default:
      return `check whether ${key || `id ${String(b.id)}`} was received in the service before receiving it again`;
  }
}

/** Result fields that name the row's document: kept even when the request already said them. */
const KEPT = new Set(['id', 'acknowledged_at', 'shipped_at', 'move_id', 'number']);

/**
 * What the service returned that the row did not already say: empty fields and echoes of the request (an
 * adjustment's product_code, reference...) are dropped, so the journal and the result file carry only news.
 */
export function newsOf(returned: Record<string, unknown>, body: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  let news: Record<string, unknown> | undefined;
  for (const k in returned) {
    const v = returned[k];
    if (!KEPT.has(k) && (v === null || v === undefined || (body !== undefined && body[k] === v))) continue;
    (news ??= {})[k] = v;
  }
  return news;
}

export function toOutcome(seq: number, o: WriteOutcome<Record<string, unknown>>, endpoint: string, key: string, body: Record<string, unknown>): ItemOutcome {
  if (o.ok) {
    const news = newsOf(o.returned, body);
    return { seq, status: 'ok', result: o.verified ? { ...news, verified: 'read back from the service' } : news };
  }
  if (o.uncertain) return { seq, status: 'uncertain', messages: o.errors, hint: uncertainHint(endpoint, key, body) };
  return { seq, status: 'error', messages: o.errors.length > 0 ? o.errors : ['refused by the service'] };
}

const isAck = (endpoint: string) => endpoint.endsWith('.acknowledge');

/** After a write of acknowledgements from a WMS file: the exporter's records waiting for that confirmation are done. */
export function confirm(ctx: { journal: Journal; logger: Logger }, endpoint: string, bodies: readonly Record<string, unknown>[], outcomes: readonly ItemOutcome[]): void {
  if (!isAck(endpoint)) return;
  const acks = outcomes.flatMap((o, i) => {
    const id = bodies[i]?.id;
    if (o.status !== 'ok' || typeof id !== 'number') return [];
    const at = (o.result as { acknowledged_at?: unknown } | undefined)?.acknowledged_at;
    return [{ id, acknowledgedAt: typeof at === 'string' ? at : null }];
  });
  recordConfirmations(ctx.journal, endpoint.slice(0, endpoint.indexOf('.')), acks, ctx.logger);
}

/** Stores a request's outcomes, and the WMS confirmations they carry; call inside a journal transaction to commit both at once. */
export function storeOutcomes(ctx: { journal: Journal; logger: Logger }, requestId: number, endpoint: string, bodies: readonly Record<string, unknown>[], outcomes: readonly ItemOutcome[]): void {
  ctx.journal.completeRequest(requestId, outcomes);
  confirm(ctx, endpoint, bodies, outcomes);
}
