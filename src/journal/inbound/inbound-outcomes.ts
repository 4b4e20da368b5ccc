import type { AllOkRequest, PackedOkOutcomes } from '../core/block-pack.js';
import { inRanges, messagesJson, stateError, type RequestRow } from '../core/rows.js';
import { finishOpenRequests, finishOpenRequestsParams, INBOUND_STATEMENTS as q } from './inbound-sql.js';
import { blocksOn, requireOpen, write, type InboundContext } from './inbound-context.js';
import { requireRequest } from './inbound-reads.js';
import type { SqlPort } from '../core/sql.js';
import type { ItemOutcome, RequestStatus } from '../core/types.js';

/*
 * A request's outcomes stored: completeRequest and completeRequests (JournalContract). The ok items are never written
 * one by one: a pending item of a completed request reads as ok.
 */

/**
 * Requests whose items all came back ok, stored as `status` in one statement; like the ok items of completeRequest,
 * nothing is written per item. The files' rows are locked before the requests', as every fenced write does (two
 * writers never wait for each other's row the other way round). A row is read only to say why one was refused.
 */
export async function finishAllOk(c: InboundContext, t: SqlPort, list: ReadonlyArray<AllOkRequest>, status: RequestStatus): Promise<void> {
  if (list.length === 0) return;
  const ids = list.map((r) => r.requestId);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw stateError(`request ${twice} is listed twice`);
  const rows = list.map(({ requestId, outcomes }) => ({ id: requestId, status, results: outcomes.results, count: outcomes.ok }));
  // Locked and stored in one round trip, as recordBatches does.
  const [, stored] = await Promise.all([c.fence?.holdRequests(t, ids), t.values<[number]>(finishOpenRequests(list.length), finishOpenRequestsParams(rows, c.now()))]);
  if (stored.length === list.length) return;
  const done = new Set(stored.map(([id]) => id));
  for (const { requestId, outcomes } of list) {
    if (done.has(requestId)) continue;
    const row = await requireRequest(t, requestId);
    requireOpen(row);
    throw stateError(`request ${requestId} has ${row.item_count} items but ${outcomes.ok} outcomes were given`);
  }
}

/** What a request's outcomes came to: the results of its ok items, and how many failed or are uncertain. */
interface Tally {
  results: Array<[number, unknown]>;
  errors: number;
  uncertain: number;
}

/**
 * Checks every outcome against the request and writes the exceptions of a request without a block (a block's are
 * stored by the caller, in one go). The ok items are not written.
 */
async function storeOutcomes(t: SqlPort, row: RequestRow, outcomes: readonly ItemOutcome[], inBlock: boolean): Promise<Tally> {
  const requestId = row.id;
  const ranges = JSON.parse(row.seqs) as Array<[number, number]>;
  if (outcomes.length !== row.item_count) {
    throw stateError(`request ${requestId} has ${row.item_count} items but ${outcomes.length} outcomes were given`);
  }
  const seen = new Set<number>();
  const tally: Tally = { results: [], errors: 0, uncertain: 0 };
  for (const o of outcomes) {
    if (seen.has(o.seq) || !inRanges(ranges, o.seq)) {
      throw stateError(`seq ${o.seq} is not an item of request ${requestId} or is listed twice`, { requestId, seq: o.seq });
    }
    seen.add(o.seq);
    if (o.status === 'ok') {
      if (o.result !== undefined && o.result !== null) tally.results.push([o.seq, o.result]);
      continue;
    }
    if (o.status === 'error') tally.errors++;
    else tally.uncertain++;
    if (inBlock) continue;
    const changed = await t.run(q.outcome, [o.status, messagesJson(o.messages), o.hint ?? null, row.file_id, o.seq, requestId]);
    if (changed !== 1) throw stateError(`seq ${o.seq} is not an open item of request ${requestId}`, { requestId, seq: o.seq });
  }
  return tally;
}

/** Stores every item's outcome (or packed all-ok outcomes) and the request's status (derived unless `forced`). */
export function completeRequest(c: InboundContext, requestId: number, given: readonly ItemOutcome[] | PackedOkOutcomes, forced?: RequestStatus): Promise<RequestStatus> {
  return write(c, async (t): Promise<RequestStatus> => {
    if (!Array.isArray(given)) {
      await finishAllOk(c, t, [{ requestId, outcomes: given as PackedOkOutcomes }], forced ?? 'done');
      return forced ?? 'done';
    }
    const outcomes = given as readonly ItemOutcome[];
    const itemBlocks = blocksOn(c, t);
    // What the checks and the exceptions' rows need, read in one round trip on a pipelining connection; the bodies
    // only when some item did not come back ok. With leases the file's row is then locked, unless the unit did or is
    // doing so (the next requests' record, started together: no statement more).
    const [row, block, bodies] = await Promise.all([
      requireRequest(t, requestId),
      itemBlocks.get(requestId),
      outcomes.some((o) => o.status !== 'ok') ? itemBlocks.bodiesOf(requestId) : undefined,
    ]);
    await c.fence?.hold(t, row.file_id);
    requireOpen(row);
    const { results, errors, uncertain } = await storeOutcomes(t, row, outcomes, Boolean(block));
    // The ok items are not written: a pending item of a completed request reads as ok, so an
    // all-ok batch costs one row write (the request) instead of one per item.
    const status: RequestStatus = forced ?? (uncertain > 0 ? 'uncertain' : errors > 0 ? 'failed' : 'done');
    // The exceptions' rows and the request's row sent together (checked above, neither reads the other).
    await Promise.all([
      block && errors + uncertain > 0 ? itemBlocks.storeExceptions(block, outcomes, bodies!) : undefined,
      t.run(q.finishRequest, [status, results.length > 0 ? JSON.stringify(results) : null, c.now(), requestId]),
    ]);
    return status;
  });
}
