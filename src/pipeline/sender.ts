import type { WriteOutcome } from '../client/index.js';
import { isSingleObjectWrite, uncertainHint } from '../contract/index.js';
import { callOutcomeOf, describeError, isWisbridgeError, writeStopOf } from '../errors.js';
import { failpoint } from '../failpoints.js';
import { decodeLines, packOkOutcomes, type ItemOutcome, type PackedDoc } from '../journal/index.js';
import type { CompletionQueue } from './completions.js';
import type { CommittedRequest } from './file-batches.js';
import { confirmsRecords, toOutcome } from './outcomes.js';
import type { OutgoingDoc, SendDoc, SenderContext } from './types.js';
import { resendUntouched } from './untouched.js';
import { writeBodies } from './write.js';

export type { OutgoingDoc, SendDoc, SenderContext } from './types.js';

/** A request recorded in the journal and marked sent: what goes out. */
export interface SentRequest {
  requestId: number;
  endpoint: string;
  docs: readonly SendDoc[];
  bodies: Record<string, unknown>[];
  /** The bodies as the journal recorded them (sent as is when the whole batch goes in one request). */
  itemsJson?: string;
}

/**
 * A fatal error (401, unreachable after the retries, shutdown) stopped a write. Items never sent are released
 * (sent again on the next run); when no item may have been applied partially, the decided ones are stored; a
 * request with possibly-applied items stays `sent` for the next run to reconcile per endpoint policy.
 */
async function onFatal(ctx: SenderContext, request: SentRequest, keys: string[], error: unknown): Promise<void> {
  const { requestId, docs, endpoint, bodies } = request;
  const stop = writeStopOf(error);
  const notSent = new Set(stop?.notSent);
  const decided = stop?.outcomes ?? [];
  if (notSent.size === docs.length && decided.length === 0) {
    await ctx.journal.releaseRequest(requestId);
    return;
  }
  if (decided.some((o) => o.uncertain) || decided.length + notSent.size !== docs.length) return;
  const outcomes: ItemOutcome[] = decided.map((o) => toOutcome(docs[o.index].seq, o, endpoint, keys[o.index], bodies[o.index]));
  for (const i of notSent) outcomes.push({ seq: docs[i].seq, status: 'error', messages: [`not sent: ${describeError(error)}; retry the file`] });
  await ctx.journal.completeRequest(requestId, outcomes);
}

/**
 * Sends a recorded request and returns one outcome per item, to be stored with `storeOutcomes`. The one send path
 * of the first run of a file and of re-drive: uncertain ship / receive items shown untouched are sent again; on a
 * fatal error what is known is stored or released (see onFatal), then the error is thrown.
 */
export async function deliver(ctx: SenderContext, request: SentRequest): Promise<ItemOutcome[]> {
  const { endpoint, docs, bodies } = request;
  // One object a request (the cycle count): sent on its own, its failure is the item's.
  if (isSingleObjectWrite(endpoint)) return [await sendCount(ctx, request.requestId, docs[0])];
  const keys: string[] = new Array(docs.length);
  for (let i = 0; i < docs.length; i++) keys[i] = docs[i].docKey ?? '';
  let results: WriteOutcome[];
  try {
    results = await writeBodies(ctx, endpoint, bodies, { batchSize: bodies.length, itemsJson: request.itemsJson });
  } catch (error) {
    await onFatal(ctx, request, keys, error);
    throw error;
  }
  failpoint('send.after-answer');
  const outcomes = results.map((o, i) => toOutcome(docs[i].seq, o, endpoint, keys[i], bodies[i]));
  if (outcomes.some((o) => o.status === 'uncertain')) await resendUntouched(ctx, request.requestId, endpoint, outcomes, bodies, keys);
  return outcomes;
}

/**
 * Sends a request FileRequests recorded (and marked sent) and queues its outcomes for the next commit; returns the
 * documents sent and their outcomes.
 */
export async function sendCommitted(ctx: SenderContext, completions: CompletionQueue, request: CommittedRequest): Promise<{ docs: readonly OutgoingDoc[]; outcomes: ItemOutcome[] }> {
  const { requestId, endpoint, itemsJson } = request;
  const docs = request.docs ?? docsOf(request);
  const bodies: Record<string, unknown>[] = new Array(docs.length);
  for (let i = 0; i < docs.length; i++) bodies[i] = docs[i].item;
  ctx.stats.requests++;
  const outcomes = await deliver(ctx, { requestId, endpoint, docs, bodies, itemsJson });
  const confirms = confirmsRecords(endpoint);
  const packed = confirms ? undefined : packOkOutcomes(outcomes);
  completions.add(packed ? { requestId, endpoint, packed } : { requestId, endpoint, outcomes, bodies: confirms ? bodies : undefined });
  return { docs, outcomes };
}

/** The documents of a request recorded on another thread, from the texts the journal stored. */
function docsOf(request: CommittedRequest): OutgoingDoc[] {
  const bodies = JSON.parse(request.itemsJson) as Record<string, unknown>[];
  const packed = JSON.parse(request.packedDocs) as PackedDoc[];
  const docs: OutgoingDoc[] = new Array(packed.length);
  for (let i = 0; i < packed.length; i++) {
    const [seq, docKey, first, last, lines] = packed[i];
    docs[i] = { seq, docKey, lines: lines ?? (first === last ? [first] : decodeLines(first, last, null)), item: bodies[i] };
  }
  return docs;
}

async function sendCount(ctx: SenderContext, requestId: number, doc: SendDoc): Promise<ItemOutcome> {
  try {
    const { lease } = ctx;
    await lease?.ready();
    // eslint-disable-next-line no-restricted-syntax -- a mapped body of inventory.counts, typed loosely like every body here; cycleCount checks it with the contract
    const count = await ctx.client.cycleCount(doc.item as never, { signal: lease?.signal, beforeAttempt: lease && (() => lease.check()) });
    return { seq: doc.seq, status: 'ok', result: count };
  } catch (error) {
    if (isWisbridgeError(error, 'BAD_REQUEST') || isWisbridgeError(error, 'INVALID_REQUEST')) {
      return { seq: doc.seq, status: 'error', messages: [error.message] };
    }
    if (isWisbridgeError(error, 'UNCERTAIN_OUTCOME')) {
      return { seq: doc.seq, status: 'uncertain', messages: [error.message], hint: uncertainHint('inventory.counts', doc.docKey ?? '', doc.item) };
    }
    if (callOutcomeOf(error) === 'not-applied') await ctx.journal.releaseRequest(requestId);
    throw error;
  }
}
