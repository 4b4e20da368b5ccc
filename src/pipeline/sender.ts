import type { BatchEndpointId, WisClient, WriteOutcome } from '../client/index.js';
import { describeError, isWisbridgeError } from '../errors.js';
import type { ItemOutcome, Journal, NewItem } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { InboundDocument } from '../mapping/definition-schema.js';
import type { CompletionQueue } from './completions.js';
import { recordConfirmations } from './confirmations.js';
import { resendUntouched } from './settle.js';

/**
 * One mapped document ready to go: seq = its first input line (deterministic across runs of the same file). It is
 * also the journal's NewItem of the document (the request's bodies are recorded as one JSON text).
 */
export interface OutgoingDoc {
  seq: number;
  /** What the result file shows as the document; null when nothing identifies it. */
  docKey: string | null;
  lines: number[];
  item: Record<string, unknown>;
}

export interface SenderContext {
  journal: Journal;
  client: WisClient;
  fileId: number;
  logger: Logger;
  /** Counts requests sent (for the summary and the benchmark). */
  stats: { requests: number };
}

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
export function confirm(ctx: SenderContext, endpoint: string, bodies: Record<string, unknown>[], outcomes: readonly ItemOutcome[]): void {
  if (!isAck(endpoint)) return;
  const acks = outcomes.flatMap((o, i) => {
    const id = bodies[i]?.id;
    if (o.status !== 'ok' || typeof id !== 'number') return [];
    const at = (o.result as { acknowledged_at?: unknown } | undefined)?.acknowledged_at;
    return [{ id, acknowledgedAt: typeof at === 'string' ? at : null }];
  });
  recordConfirmations(ctx.journal, endpoint.slice(0, endpoint.indexOf('.')), acks, ctx.logger);
}

/**
 * A fatal error (401, unreachable after the retries, shutdown) stopped a write. Items never sent are released
 * (sent again on the next run); when no item may have been applied partially, the settled ones are stored; a
 * request with possibly-applied items stays `sent` for the next run to settle per endpoint policy.
 */
function onFatal(ctx: SenderContext, requestId: number, docs: readonly { seq: number }[], error: unknown, endpoint: string, bodies: Record<string, unknown>[], keys: string[]): void {
  const details = isWisbridgeError(error) ? error.details ?? {} : {};
  const notSent = new Set((details.notSent as number[] | undefined) ?? []);
  const settled = (details.outcomes as WriteOutcome<Record<string, unknown>>[] | undefined) ?? [];
  if (notSent.size === docs.length && settled.length === 0) {
    ctx.journal.releaseRequest(requestId);
    return;
  }
  if (settled.some((o) => o.uncertain) || settled.length + notSent.size !== docs.length) return;
  const outcomes: ItemOutcome[] = settled.map((o) => toOutcome(docs[o.index].seq, o, endpoint, keys[o.index], bodies[o.index]));
  for (const i of notSent) outcomes.push({ seq: docs[i].seq, status: 'error', messages: [`not sent: ${describeError(error)}; retry the file`] });
  ctx.journal.completeRequest(requestId, outcomes);
}

/** Writes one batch: recorded (with the rows rejected since the last batch) and marked sent in one commit, then sent. */
export async function sendBatch(
  ctx: SenderContext, completions: CompletionQueue, endpoint: InboundDocument, docs: OutgoingDoc[], extra: NewItem[],
): Promise<ItemOutcome[]> {
  const { journal, fileId } = ctx;
  const bodies: Record<string, unknown>[] = new Array(docs.length);
  const keys: string[] = new Array(docs.length);
  for (let i = 0; i < docs.length; i++) {
    bodies[i] = docs[i].item;
    keys[i] = docs[i].docKey ?? '';
  }
  // Serialized once: the journal stores this text and the request is sent from it.
  const itemsJson = JSON.stringify(bodies);
  const record = () => {
    if (extra.length > 0) journal.addItems(fileId, extra);
    const id = journal.recordBatch(fileId, endpoint, docs, { bodies: itemsJson });
    // No await between this commit and the request leaving: a crash in between is settled like a sent request.
    journal.markSent(id);
    return id;
  };
  const requestId = completions.commitWith(record);
  extra.length = 0;
  ctx.stats.requests++;
  if (endpoint === 'inventory.counts') return sendCount(ctx, requestId, docs[0]);
  let results: WriteOutcome<Record<string, unknown>>[];
  const sentAt = new Date();
  try {
    results = (await ctx.client.write(endpoint as BatchEndpointId, bodies as never, { batchSize: bodies.length, validate: false, itemsJson })) as never;
  } catch (error) {
    onFatal(ctx, requestId, docs, error, endpoint, bodies, keys);
    throw error;
  }
  const outcomes = results.map((o, i) => toOutcome(docs[i].seq, o, endpoint, keys[i], bodies[i]));
  if (outcomes.some((o) => o.status === 'uncertain')) await resendUntouched(ctx, endpoint, outcomes, bodies, keys, sentAt);
  const store = () => {
    journal.completeRequest(requestId, outcomes);
    confirm(ctx, endpoint, bodies, outcomes);
  };
  completions.add(store);
  return outcomes;
}

async function sendCount(ctx: SenderContext, requestId: number, doc: OutgoingDoc): Promise<ItemOutcome[]> {
  let outcome: ItemOutcome;
  try {
    const count = await ctx.client.cycleCount(doc.item as never);
    outcome = { seq: doc.seq, status: 'ok', result: count };
  } catch (error) {
    if (isWisbridgeError(error, 'BAD_REQUEST') || isWisbridgeError(error, 'INVALID_REQUEST')) {
      outcome = { seq: doc.seq, status: 'error', messages: [error.message] };
    } else if (isWisbridgeError(error, 'UNCERTAIN_OUTCOME')) {
      outcome = { seq: doc.seq, status: 'uncertain', messages: [error.message], hint: uncertainHint('inventory.counts', doc.docKey ?? '', doc.item) };
    } else {
      if (isWisbridgeError(error) && error.details?.outcome === 'not-applied') ctx.journal.releaseRequest(requestId);
      throw error;
    }
  }
  ctx.journal.completeRequest(requestId, [outcome]);
  return [outcome];
}

