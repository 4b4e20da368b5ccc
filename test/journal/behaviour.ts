import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import {
  packBatch, packOkOutcomes, type InboundJournal, type ItemOutcome, type ItemWithBody, type Journal, type OperatorJournal, type ResultReads,
} from '../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes } from '../../src/journal/test-support.js';

/*
 * The behaviour every journal engine must have, through the contract only (src/journal/contract.ts): written once,
 * run against SQLite (test/journal/sqlite.test.ts) and PostgreSQL (test/journal/postgres.test.ts). Nothing here
 * reads an engine's tables, ids beyond their order, error texts of the database, or the system clock: what the
 * journal stores is asserted through what the journal answers. Engine internals are each engine's own tests.
 */

/** The calls the suite makes on a second connection: plain data in and out (the SQLite fixture serves them from a thread). */
export const CONNECTION_CALLS = [
  'claimFile', 'recordBatch', 'completeRequest', 'finishFile', 'fileSummary', 'nextFileSequence', 'setCursor', 'getCursor', 'beginExport', 'close',
] as const;
export type Connection = Pick<Journal, (typeof CONNECTION_CALLS)[number]>;

export interface JournalFixture {
  /** The journal under test: after reopen(), the reopened one. */
  readonly journal: Journal;
  /** Closes the journal and opens the same one again, as a bridge restarting after a crash does; resolves the new one. */
  reopen(): Promise<Journal>;
  /** Another connection to the same journal, open at the same time (closed by dispose). */
  second(): Promise<Connection>;
  /** Closes whatever is open and removes the journal. */
  dispose(): Promise<void>;
}

/** Opens a fresh, empty journal of the engine; `now` is the clock of the timestamps it stores. */
export type MakeJournal = (options?: { now?: () => Date }) => Promise<JournalFixture>;

const EP = 'inventory.adjustments';
const START = Date.parse('2026-03-01T08:00:00Z');
const LATER = '2026-04-01T00:00:00.000Z';

/** The suite's clock: one second further at every reading, from START, so timestamps are distinct and ordered. */
function ticking(start = START): () => Date {
  let tick = 0;
  return () => new Date(start + 1000 * tick++);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The code of the WisbridgeError a call rejects with ('other' for another error, undefined when it resolves). */
async function stateCode(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    return isWisbridgeError(error) ? error.code : 'other';
  }
  return undefined;
}

/** The items of a file that have a row of their own (rejected rows and exceptions; a block's other items have none). */
async function itemRows(journal: Journal, fileId: number): Promise<ItemWithBody[]> {
  return (await journal.itemsInRange(fileId, 0, 1_000_000)).filter((item) => item.itemId !== null);
}

const records = (...ids: number[]) => ids.map((id) => ({ id, number: `SO-${id}`, updatedAt: '2026-03-01T07:00:00Z' }));

/** A finished file: seqs 0-1 ok, 2-3 error, 4 uncertain, 5 rejected by the mapping. */
async function failedFile(journal: Journal, checksum = 'abc'): Promise<number> {
  const { fileId } = await journal.claimFile(claimInput(`${checksum}.csv`, checksum));
  await journal.addItems(fileId, [{ seq: 5, lines: [7], docKey: 'bad', status: 'error', messages: ['no SKU'] }]);
  const id = await journal.recordBatch(fileId, EP, [0, 1, 2, 3, 4].map((s) => adjustment(s)));
  await journal.markSent(id);
  await journal.completeRequest(id, [
    ...okOutcomes([0, 1]),
    { seq: 2, status: 'error', messages: ['unknown product'] },
    { seq: 3, status: 'error', messages: ['warehouse closed'] },
    { seq: 4, status: 'uncertain', hint: 'look for move of SKU-4' },
  ]);
  expect(await journal.finishFile(fileId)).toBe('failed');
  return fileId;
}

/**
 * A finished file: seqs 0-2 in a block (0-1 ok, 2 error, or uncertain when asked), 3 rejected by the mapping;
 * `redriven`: seq 2 sent again and failed again. Resolves the file and its requests.
 */
async function finishedFile(journal: Journal, checksum: string, options: { uncertain?: boolean; redriven?: boolean } = {}) {
  const { fileId } = await journal.claimFile(claimInput(`${checksum}.csv`, checksum));
  await journal.addItems(fileId, [{ seq: 3, lines: [5], docKey: 'bad', status: 'error', messages: ['no SKU'] }]);
  const id = await journal.recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
  await journal.completeRequest(id, [...okOutcomes([0, 1]), options.uncertain
    ? { seq: 2, status: 'uncertain', hint: 'look for SKU-2' } : { seq: 2, status: 'error', messages: ['unknown product'] }]);
  await journal.finishFile(fileId);
  const requests = [id];
  if (options.redriven) {
    const attempt = await journal.beginRedrive(fileId);
    const retry = await journal.recordRequest(fileId, EP, [2], { attempt });
    await journal.markSent(retry);
    await journal.completeRequest(retry, [{ seq: 2, status: 'error', messages: ['still unknown'] }]);
    await journal.finishFile(fileId);
    requests.push(retry);
  }
  return { fileId, requests };
}

/** A signal that reads as aborted from its nth look on (a prune looks before each file and each chunk of deletes). */
function abortedFromLook(n: number): AbortSignal {
  let looks = 0;
  return { get aborted() { return ++looks >= n; } } as unknown as AbortSignal;
}

export function describeJournal(engineName: string, makeJournal: MakeJournal): void {
  describe(`${engineName} journal behaviour`, () => {
    let fx: JournalFixture;
    let journal: Journal;
    const reopen = async () => {
      journal = await fx.reopen();
    };

    beforeEach(async () => {
      fx = await makeJournal({ now: ticking() });
      journal = fx.journal;
    });
    afterEach(async () => {
      await fx?.dispose();
    });

    describe('claims and duplicates by checksum', () => {
      it('claims a new file, then reports the same bytes under another name as a duplicate', async () => {
        const first = await journal.claimFile(claimInput('adj-monday.csv', 'abc'));
        expect(first).toMatchObject({ status: 'new', generation: 1 });
        if (first.status !== 'new') throw new Error('unreachable');
        await journal.addItems(first.fileId, [adjustment(0)]);
        const id = await journal.recordRequest(first.fileId, EP, [0]);
        await journal.markSent(id);
        await journal.completeRequest(id, okOutcomes([0]));
        expect(await journal.finishFile(first.fileId)).toBe('done');

        const again = await journal.claimFile(claimInput('adj-monday-copy.csv', 'abc'));
        expect(again).toMatchObject({ status: 'duplicate', fileId: first.fileId, previousName: 'adj-monday.csv', previousStatus: 'done' });
        expect(again.status === 'duplicate' && again.finishedAt).toBeTruthy();
        expect((await journal.claimFile(claimInput('other.csv', 'def'))).status).toBe('new');
      });

      it('force creates a new claim generation and keeps the earlier one', async () => {
        const first = await journal.claimFile(claimInput('a.csv', 'abc'));
        await journal.rejectFile(first.fileId, 'no header');
        // A rejected file whose rows never reached the service is not a duplicate.
        const second = await journal.claimFile(claimInput('a.csv', 'abc'));
        expect(second).toMatchObject({ status: 'new', generation: 2 });
        await journal.finishFile(second.fileId);
        expect((await journal.claimFile(claimInput('a.csv', 'abc'))).status).toBe('duplicate');
        const forced = await journal.claimFile({ ...claimInput('a.csv', 'abc'), force: true });
        expect(forced).toMatchObject({ status: 'new', generation: 3 });
        expect(forced.fileId).not.toBe(second.fileId);
        expect((await journal.getFile(second.fileId)).status).toBe('done');
        expect(await journal.getFile(first.fileId)).toMatchObject({ status: 'rejected', reason: 'no header' });
      });

      it('counts a rejected file as processed once some of it reached the service', async () => {
        const first = await journal.claimFile(claimInput('a.csv', 'abc'));
        await journal.markSent(await journal.recordBatch(first.fileId, EP, [adjustment(0)]));
        await journal.rejectFile(first.fileId, 'encoding error at line 900');
        expect(await journal.claimFile(claimInput('a.csv', 'abc'))).toMatchObject({ status: 'duplicate', previousStatus: 'rejected' });
      });

      it('a forced claim while the file is still processing resumes it instead', async () => {
        const first = await journal.claimFile(claimInput('a.csv', 'abc'));
        expect(await journal.claimFile({ ...claimInput('b.csv', 'abc'), force: true })).toEqual({ status: 'resume', fileId: first.fileId, generation: 1 });
        expect(await journal.countFiles()).toBe(1);
      });
    });

    describe('resume after a crash', () => {
      it('reopened: the file resumes, its requests never sent are abandoned, the sent one waits to be settled', async () => {
        const { fileId } = await journal.claimFile(claimInput('crash.csv', 'crash'));
        const done = await journal.recordBatch(fileId, EP, [0, 1].map((s) => adjustment(s)), { sent: true });
        await journal.completeRequest(done, okOutcomes([0, 1]));
        const sent = await journal.recordBatch(fileId, EP, [2, 3].map((s) => adjustment(s)), { sent: true });
        const pendingBlock = await journal.recordBatch(fileId, EP, [adjustment(4)]);
        await journal.addItems(fileId, [adjustment(5), adjustment(6)]);
        const pendingRows = await journal.recordRequest(fileId, EP, [5]);
        await reopen(); // the process died here

        expect(await journal.getRequest(pendingBlock)).toMatchObject({ status: 'pending' }); // reopening alone changes nothing
        expect(await journal.claimFile(claimInput('crash-renamed.csv', 'crash'))).toEqual({ status: 'resume', fileId, generation: 1 });
        expect(await journal.getRequest(pendingBlock)).toMatchObject({ status: 'abandoned', sentAt: null });
        expect(await journal.getRequest(pendingRows)).toMatchObject({ status: 'abandoned', sentAt: null });
        expect(await journal.getRequest(sent)).toMatchObject({ status: 'sent', sentAt: expect.stringMatching(/^2026-03-01T08:00:\d\d\.000Z$/) });
        const state = await journal.resumeState(fileId);
        expect(state.sentRequests).toEqual([expect.objectContaining({ requestId: sent, seqs: [2, 3], endpoint: EP })]);
        expect([0, 1, 2, 3, 4, 5, 6, 7].map((s) => state.classify(s))).toEqual(['finished', 'finished', 'sent', 'sent', 'unsent', 'unsent', 'unsent', 'unsent']);
        // Seq 4's block went with its request (mapped and recorded again); 5 and 6 are rows without a request.
        expect(state.counts).toEqual({ finished: 2, sent: 2, unsent: 2 });
        expect(state.maxSeq).toBe(6);

        // The restarted pipeline settles the sent request and sends the rest again.
        await journal.completeRequest(sent, [{ seq: 2, status: 'uncertain', hint: 'check SKU-2' }, ...okOutcomes([3])]);
        await journal.completeRequest(await journal.recordBatch(fileId, EP, [adjustment(4)], { sent: true }), okOutcomes([4]));
        const rows = await journal.recordRequest(fileId, EP, [5, 6]);
        await journal.markSent(rows);
        await journal.completeRequest(rows, okOutcomes([5, 6]));
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 7, ok: 6, uncertain: 1, pending: 0, sent: 0 });
        expect(await journal.finishFile(fileId)).toBe('failed');
      });

      it('resumes a file still processing and abandons its requests that were never sent', async () => {
        const { fileId } = await journal.claimFile(claimInput('a.csv', 'abc'));
        const sentId = await journal.recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
        await journal.markSent(sentId);
        const unsentId = await journal.recordBatch(fileId, EP, [adjustment(2)]);
        const resumed = await journal.claimFile(claimInput('renamed.csv', 'abc'));
        expect(resumed).toEqual({ status: 'resume', fileId, generation: 1 });
        expect(await journal.getRequest(unsentId)).toMatchObject({ status: 'abandoned', sentAt: null });
        // When it was sent: reading back (settle.ts) looks for changes from then on.
        expect(await journal.getRequest(sentId)).toMatchObject({ status: 'sent', sentAt: expect.stringMatching(/^2026-03-01T08:00:\d\d\.000Z$/) });
        // The abandoned item can go out in a new request.
        const again = await journal.recordBatch(fileId, EP, [adjustment(2)]);
        expect((await journal.requestItems(again)).map((i) => i.seq)).toEqual([2]);
      });

      it('tells finished, sent and never-sent seqs apart and lists the requests in flight', async () => {
        const { fileId } = await journal.claimFile(claimInput('a.csv', 'abc'));
        const done = await journal.recordBatch(fileId, EP, [0, 1, 2, 3].map((s) => adjustment(s)));
        await journal.markSent(done);
        await journal.completeRequest(done, [...okOutcomes([0, 1, 3]), { seq: 2, status: 'error', messages: ['x'] }]);
        const inFlight = await journal.recordBatch(fileId, EP, [4, 5].map((s) => adjustment(s)));
        await journal.markSent(inFlight);
        await journal.recordBatch(fileId, EP, [adjustment(6)]);
        await journal.addItems(fileId, [adjustment(7), { seq: 8, lines: [10], status: 'skipped' }]);

        const state = await journal.resumeState(fileId);
        expect(state.maxSeq).toBe(8);
        expect(state.counts).toEqual({ finished: 5, sent: 2, unsent: 2 });
        expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((s) => state.classify(s))).toEqual([
          'finished', 'finished', 'finished', 'finished', 'sent', 'sent', 'unsent', 'unsent', 'finished', 'unsent',
        ]);
        expect(state.sentRequests).toEqual([expect.objectContaining({ requestId: inFlight, seqs: [4, 5], endpoint: EP })]);
        expect((await journal.requestItems(inFlight)).map((i) => JSON.parse(i.body ?? 'null').reference)).toEqual(['ADJ-4', 'ADJ-5']);
        // The caller settles the request in flight: here an uncertain adjustment and a read-back ok.
        await journal.completeRequest(inFlight, [{ seq: 4, status: 'uncertain', hint: 'check SKU-4' }, ...okOutcomes([5])]);
        expect((await journal.resumeState(fileId)).classify(4)).toBe('finished');
      });
    });

    describe('items and requests', () => {
      let fileId: number;
      beforeEach(async () => {
        fileId = (await journal.claimFile(claimInput('a.csv', 'abc'))).fileId;
      });

      it('walks pending → sent → ok / error / uncertain and derives the request status', async () => {
        await journal.addItems(fileId, [adjustment(0), adjustment(1), adjustment(2), adjustment(3)]);
        const id = await journal.recordRequest(fileId, EP, [0, 1, 2]);
        expect((await journal.requestItems(id)).map((i) => i.status)).toEqual(['pending', 'pending', 'pending']);
        await journal.markSent(id);
        expect((await journal.requestItems(id)).map((i) => i.status)).toEqual(['sent', 'sent', 'sent']);
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 4, pending: 1, sent: 3 });
        const status = await journal.completeRequest(id, [
          { seq: 0, status: 'ok', result: { move_id: 7 } },
          { seq: 1, status: 'error', messages: ['unknown product'] },
          { seq: 2, status: 'uncertain', hint: 'check move of SKU-2' },
        ]);
        expect(status).toBe('uncertain');
        const items = await journal.requestItems(id);
        expect(items.map((i) => [i.status, i.result, i.messages, i.hint])).toEqual([
          ['ok', { move_id: 7 }, [], null],
          ['error', null, ['unknown product'], null],
          ['uncertain', null, [], 'check move of SKU-2'],
        ]);
        expect((await journal.getRequest(id)).status).toBe('uncertain');
        const second = await journal.recordRequest(fileId, EP, [3]);
        await journal.markSent(second);
        expect(await journal.completeRequest(second, [{ seq: 3, status: 'error', messages: ['x'] }])).toBe('failed');
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 4, ok: 1, error: 2, uncertain: 1, pending: 0, sent: 0 });
        expect(await journal.finishFile(fileId)).toBe('failed');
        expect((await journal.getFile(fileId)).summary).toMatchObject({ ok: 1, error: 2, uncertain: 1 });
      });

      it('records a batch already marked sent in one commit when asked', async () => {
        const id = await journal.recordBatch(fileId, EP, [adjustment(0), adjustment(1)], { sent: true });
        expect((await journal.getRequest(id)).status).toBe('sent');
        expect((await journal.requestItems(id)).map((i) => i.status)).toEqual(['sent', 'sent']);
        await expect(journal.markSent(id)).rejects.toThrow(/not pending/);
        expect((await journal.resumeState(fileId)).classify(1)).toBe('sent');
      });

      it('releases a request that never reached the service: its items can be sent again', async () => {
        const id = await journal.recordBatch(fileId, EP, [adjustment(0), adjustment(1)], { sent: true });
        await journal.releaseRequest(id);
        expect((await journal.getRequest(id)).status).toBe('abandoned');
        // Its items are no longer recorded at all (the file maps them again), so nothing reads as in flight.
        expect((await journal.resumeState(fileId)).counts).toEqual({ finished: 0, sent: 0, unsent: 0 });
        expect((await journal.resumeState(fileId)).classify(1)).toBe('unsent');
        await expect(journal.completeRequest(id, okOutcomes([0, 1]))).rejects.toThrow(/already abandoned/);
        const again = await journal.recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
        await journal.markSent(again);
        await journal.completeRequest(again, okOutcomes([0, 1]));
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 2, ok: 2 });
      });

      it('records large batches in chunks and names the item already in a request, leaving nothing behind', async () => {
        const seqs = Array.from({ length: 137 }, (_, i) => i);
        const first = await journal.recordBatch(fileId, EP, [adjustment(75)]);
        const error = await journal.recordBatch(fileId, EP, seqs.map((s) => adjustment(s))).then(() => undefined, (e: unknown) => e);
        expect(isWisbridgeError(error, 'JOURNAL_STATE') && error.message).toContain('item 75 ');
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 1, pending: 1 });
        await journal.markSent(first);
        await journal.completeRequest(first, okOutcomes([75]));
        const rest = seqs.filter((s) => s !== 75);
        const id = await journal.recordBatch(fileId, EP, rest.map((s) => adjustment(s)), { sent: true });
        expect((await journal.requestItems(id)).map((i) => [i.seq, i.status])).toEqual(rest.map((s) => [s, 'sent']));
        await journal.completeRequest(id, okOutcomes(rest));
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 137, ok: 137 });
      });

      it('stores a request packed ahead (packBatch, packOkOutcomes) as it stores one given item by item', async () => {
        const items = [adjustment(0), adjustment(1, { lines: [3, 4] }), adjustment(3, { lines: [5] })];
        const packed = packBatch(EP, items);
        expect(packed).toMatchObject({ endpoint: EP, count: 3, ranges: [[0, 1], [3, 3]], firstLine: 2 });
        expect(await stateCode(journal.recordBatch(fileId, 'inventory.counts', packed))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.recordBatch(fileId, EP, packed))).toBe('JOURNAL_STATE'); // no bodies
        const bodies = JSON.stringify(items.map((i) => i.body));
        const id = await journal.recordBatch(fileId, EP, packed, { sent: true, bodies });
        expect(await stateCode(journal.recordBatch(fileId, EP, packBatch(EP, [adjustment(3)]), { bodies: '[{}]' })))
          .toBe('JOURNAL_STATE'); // seq 3 is already in a request
        expect(packOkOutcomes([...okOutcomes([0]), { seq: 1, status: 'error', messages: ['x'] }])).toBeUndefined();
        const outcomes: ItemOutcome[] = [{ seq: 0, status: 'ok', result: { move_id: 70 } }, { seq: 1, status: 'ok' }, { seq: 3, status: 'ok', result: { move_id: 73 } }];
        const ok = packOkOutcomes(outcomes)!;
        expect(await stateCode(journal.completeRequest(id, { ...ok, ok: 2 }))).toBe('JOURNAL_STATE');
        expect(await journal.completeRequest(id, ok)).toBe('done');
        expect(await stateCode(journal.completeRequest(id, ok))).toBe('JOURNAL_STATE');
        expect((await collect(journal.iterateLineOutcomes(fileId))).map((o) => [o.line, o.docKey, o.status, o.result])).toEqual([
          [2, 'SKU-0', 'ok', { move_id: 70 }], [3, 'SKU-1', 'ok', null], [4, 'SKU-1', 'ok', null], [5, 'SKU-3', 'ok', { move_id: 73 }],
        ]);
        expect((await journal.requestItems(id)).map((i) => JSON.parse(i.body ?? 'null'))).toEqual(items.map((i) => i.body));
      });

      it('refuses transitions that do not fit the recorded state', async () => {
        const id = await journal.recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
        expect(await stateCode(journal.recordBatch(fileId, EP, [adjustment(1)]))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.completeRequest(id, okOutcomes([0])))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.completeRequest(id, okOutcomes([0, 5])))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.completeRequest(id, okOutcomes([0, 0])))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.finishFile(fileId))).toBe('JOURNAL_STATE');
        await journal.markSent(id);
        expect(await stateCode(journal.markSent(id))).toBe('JOURNAL_STATE');
        await journal.completeRequest(id, okOutcomes([0, 1]));
        expect(await stateCode(journal.completeRequest(id, okOutcomes([0, 1])))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.recordRequest(fileId, EP, [0]))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.recordBatch(fileId, 'inventory.counts', [adjustment(9)]))).toBe('JOURNAL_STATE');
        // A failed transaction leaves nothing behind.
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 2, ok: 2 });
        await journal.finishFile(fileId);
        expect(await stateCode(journal.addItems(fileId, [adjustment(3)]))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.rejectFile(fileId, 'late'))).toBe('JOURNAL_STATE');
      });

      it('names what is not in the journal: a file, a request, an export', async () => {
        await expect(journal.getFile(999_999)).rejects.toThrow(/file 999999 is not in the journal/);
        await expect(journal.getRequest(999_999)).rejects.toThrow(/request 999999 is not in the journal/);
        await expect(journal.getExport(999_999)).rejects.toThrow(/export 999999 is not in the journal/);
        expect(await stateCode(journal.addItems(999_999, [adjustment(0)]))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.markSent(999_999))).toBe('JOURNAL_STATE');
      });

      it('keeps rows the mapping rejected as items with their message and never sends them', async () => {
        await journal.addItems(fileId, [
          adjustment(0),
          { seq: 1, docKey: 'SKU-?', lines: [3], status: 'error', messages: ['quantity is not a number'] },
          { seq: 2, lines: [4], status: 'skipped', messages: ['empty row'] },
        ]);
        expect(await stateCode(journal.recordRequest(fileId, EP, [1]))).toBe('JOURNAL_STATE');
        const [bad] = await journal.failedItems(fileId);
        expect(bad).toMatchObject({ seq: 1, rejected: true, status: 'error', messages: ['quantity is not a number'] });
        expect(await collect(journal.retryable(fileId))).toEqual([]);
      });

      it('records addItems idempotently: a re-run of the same file keeps the first recording', async () => {
        expect(await journal.addItems(fileId, [adjustment(0), adjustment(1)])).toBe(2);
        expect(await journal.addItems(fileId, [adjustment(1), adjustment(2)])).toBe(1);
        expect((await journal.itemsInRange(fileId, 0, 10)).map((i) => i.seq)).toEqual([0, 1, 2]);
      });
    });

    describe('outcomes and result reading', () => {
      it('streams one outcome per input line in line order, also for non-contiguous items', async () => {
        const { fileId } = await journal.claimFile(claimInput('ship.csv', 'abc'));
        const ship = (seq: number, lines: number[], key: string) =>
          ({ seq, endpoint: 'customer-shipments.ship', docKey: key, lines, body: { id: seq } });
        await journal.addItems(fileId, [
          ship(0, [2, 5], 'SO-1'),
          ship(1, [3, 4], 'SO-2'),
          { seq: 2, docKey: 'SO-3', lines: [6], status: 'error', messages: ['missing id'] },
          ship(3, [7], 'SO-4'),
        ]);
        const id = await journal.recordRequest(fileId, 'customer-shipments.ship', [0, 1, 3]);
        await journal.markSent(id);
        await journal.completeRequest(id, [
          { seq: 0, status: 'ok', result: { shipped_at: '2026-03-01T09:00:00Z' } },
          { seq: 1, status: 'error', messages: ['line 9 unknown'] },
          { seq: 3, status: 'ok' },
        ]);
        const lines = (await collect(journal.iterateLineOutcomes(fileId))).map((o) => [o.line, o.docKey, o.status, o.result, o.messages]);
        expect(lines).toEqual([
          [2, 'SO-1', 'ok', { shipped_at: '2026-03-01T09:00:00Z' }, []],
          [3, 'SO-2', 'error', null, ['line 9 unknown']],
          [4, 'SO-2', 'error', null, ['line 9 unknown']],
          [5, 'SO-1', 'ok', { shipped_at: '2026-03-01T09:00:00Z' }, []],
          [6, 'SO-3', 'error', null, ['missing id']],
          [7, 'SO-4', 'ok', null, []],
        ]);
      });

      it('pages through many items while other writes happen between yields', async () => {
        const { fileId } = await journal.claimFile(claimInput('big.csv', 'abc'));
        const items = Array.from({ length: 4500 }, (_, s) => adjustment(s));
        for (let s = 0; s < items.length; s += 500) {
          const id = await journal.recordBatch(fileId, EP, items.slice(s, s + 500));
          await journal.markSent(id);
          await journal.completeRequest(id, okOutcomes(items.slice(s, s + 500).map((i) => i.seq)));
        }
        let expected = 2;
        let count = 0;
        for await (const outcome of journal.iterateLineOutcomes(fileId)) {
          expect(outcome.line).toBe(expected++);
          if (count++ % 1000 === 0) await journal.setCursor('interleaved', String(count));
          if (outcome.seq === 4499) expect(outcome.result).toEqual({ move_id: 1000 + 4499 });
        }
        expect(count).toBe(4500);
        expect(await journal.itemsInRange(fileId, 1000, 3999)).toHaveLength(3000);
      });

      it('reads what the service returned per item (resultOf) and per request (resultList), packed or given item by item', async () => {
        const { fileId } = await journal.claimFile(claimInput('results.csv', 'abc'));
        const given = await journal.recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
        expect(await journal.resultOf(given, 0)).toBeNull(); // nothing before the outcome
        await journal.completeRequest(given, [
          { seq: 0, status: 'ok', result: { move_id: 10, lines: [{ sku: 'A', qty: 1.5 }] } },
          { seq: 1, status: 'ok' },
          { seq: 2, status: 'error', messages: ['unknown product'] },
        ]);
        expect(await journal.resultOf(given, 0)).toEqual({ move_id: 10, lines: [{ sku: 'A', qty: 1.5 }] });
        expect(await journal.resultOf(given, 1)).toBeNull();
        expect(await journal.resultOf(given, 2)).toBeNull();
        expect(await journal.resultOf(null, 0)).toBeNull();
        expect(await journal.resultList(given)).toEqual([[0, { move_id: 10, lines: [{ sku: 'A', qty: 1.5 }] }]]);

        const packed = await journal.recordBatch(fileId, EP, [3, 4].map((s) => adjustment(s)), { sent: true });
        await journal.completeRequest(packed, packOkOutcomes([{ seq: 4, status: 'ok', result: { move_id: 14 } }, { seq: 3, status: 'ok', result: 'text' }])!);
        expect(await journal.resultList(packed)).toEqual([[4, { move_id: 14 }], [3, 'text']]); // in outcome order
        expect(await journal.resultOf(packed, 3)).toBe('text');
        const empty = await journal.recordBatch(fileId, EP, [adjustment(5)], { sent: true });
        await journal.completeRequest(empty, packOkOutcomes([{ seq: 5, status: 'ok' }])!);
        expect(await journal.resultList(empty)).toEqual([]);
        expect(await journal.fileSummary(fileId)).toEqual({ fileId, total: 6, pending: 0, sent: 0, ok: 5, error: 1, uncertain: 0, skipped: 0 });
        expect((await journal.requestItems(given)).map((i) => [i.seq, i.status, i.result])).toEqual([
          [0, 'ok', { move_id: 10, lines: [{ sku: 'A', qty: 1.5 }] }], [1, 'ok', null], [2, 'error', null],
        ]);
      });

      it('keeps only exceptions and rejected rows as item rows, and reads both back in line order', async () => {
        const ship = (seq: number, lines: number[], key: string) =>
          ({ seq, endpoint: 'customer-shipments.ship', docKey: key, lines, body: { id: seq, key } });
        const { fileId } = await journal.claimFile(claimInput('mixed.csv', 'abc'));
        // Two interleaved requests (grouped documents may complete out of line order), a rejected row between them,
        // a document spread over non-contiguous lines, and one that comes back with an error.
        await journal.addItems(fileId, [{ seq: 4, docKey: 'SO-X', lines: [4], status: 'error', messages: ['no id'] }]);
        const a = await journal.recordBatch(fileId, 'customer-shipments.ship', [ship(2, [2, 6], 'SO-1'), ship(7, [7], 'SO-3')], { sent: true });
        const b = await journal.recordBatch(fileId, 'customer-shipments.ship', [ship(3, [3, 5], 'SO-2'), ship(8, [8], 'SO-4')], { sent: true });
        await journal.completeRequest(a, [{ seq: 2, status: 'ok', result: { shipped_at: '2026-03-01T09:00:00Z' } }, { seq: 7, status: 'error', messages: ['closed'] }]);
        expect((await collect(journal.iterateLineOutcomes(fileId))).map((o) => [o.line, o.docKey, o.status])).toEqual([
          [2, 'SO-1', 'ok'], [3, 'SO-2', 'sent'], [4, 'SO-X', 'error'], [5, 'SO-2', 'sent'], [6, 'SO-1', 'ok'],
          [7, 'SO-3', 'error'], [8, 'SO-4', 'sent'],
        ]);
        await journal.completeRequest(b, [{ seq: 3, status: 'ok' }, { seq: 8, status: 'ok' }]);
        const outcomes = await collect(journal.iterateLineOutcomes(fileId));
        expect(outcomes.map((o) => [o.line, o.docKey, o.status, o.result, o.messages])).toEqual([
          [2, 'SO-1', 'ok', { shipped_at: '2026-03-01T09:00:00Z' }, []],
          [3, 'SO-2', 'ok', null, []],
          [4, 'SO-X', 'error', null, ['no id']],
          [5, 'SO-2', 'ok', null, []],
          [6, 'SO-1', 'ok', { shipped_at: '2026-03-01T09:00:00Z' }, []],
          [7, 'SO-3', 'error', null, ['closed']],
          [8, 'SO-4', 'ok', null, []],
        ]);
        // Item rows: the rejected row and the error copied out of its block (with its body, for a re-drive).
        expect((await itemRows(journal, fileId)).map(({ seq, status, body }) => ({ seq, status, body })))
          .toEqual([{ seq: 4, status: 'error', body: null }, { seq: 7, status: 'error', body: '{"id":7,"key":"SO-3"}' }]);
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 5, ok: 3, error: 2 });
        expect((await journal.failedItems(fileId)).map((i) => [i.seq, i.requestId, i.rejected])).toEqual([[4, null, true], [7, a, false]]);
        expect((await collect(journal.retryable(fileId))).map((i) => [i.seq, i.body])).toEqual([[7, '{"id":7,"key":"SO-3"}']]);
        expect((await journal.requestItems(a)).map((i) => [i.seq, i.status, i.itemId === null])).toEqual([[2, 'ok', true], [7, 'error', false]]);
        const state = await journal.resumeState(fileId);
        expect([2, 3, 4, 5, 7, 8, 9].map((s) => state.classify(s))).toEqual(['finished', 'finished', 'finished', 'unsent', 'finished', 'finished', 'unsent']);
      });

      it('re-drives an error copied out of a block and resolves an uncertain one without touching the ok items', async () => {
        const { fileId } = await journal.claimFile(claimInput('adj.csv', 'abc'));
        const id = await journal.recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
        await journal.completeRequest(id, [
          { seq: 0, status: 'ok', result: { move_id: 10 } },
          { seq: 1, status: 'error', messages: ['insufficient stock'] },
          { seq: 2, status: 'uncertain', messages: ['timeout'], hint: 'check SKU-2' },
        ]);
        expect(await journal.finishFile(fileId)).toBe('failed');
        await journal.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'applied', note: 'seen in the service', by: 'ops' });
        const attempt = await journal.beginRedrive(fileId);
        const again = await journal.recordRequest(fileId, EP, [1], { attempt });
        await journal.markSent(again);
        await journal.completeRequest(again, [{ seq: 1, status: 'ok', result: { move_id: 11 } }]);
        expect(await journal.finishFile(fileId)).toBe('done');
        expect((await collect(journal.iterateLineOutcomes(fileId))).map((o) => [o.line, o.status, o.result])).toEqual([
          [2, 'ok', { move_id: 10 }], [3, 'ok', { move_id: 11 }], [4, 'ok', null],
        ]);
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 3, ok: 3, error: 0, uncertain: 0 });
      });

      it('refuses a seq already in another block, naming it, and leaves nothing behind', async () => {
        const { fileId } = await journal.claimFile(claimInput('dup.csv', 'abc'));
        await journal.recordBatch(fileId, EP, [10, 11, 12].map((s) => adjustment(s)));
        await expect(journal.recordBatch(fileId, EP, [8, 9, 12, 13].map((s) => adjustment(s)))).rejects.toThrow(/item 12 of file/);
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 3, pending: 3 });
        // No block of the refused request: its seqs 8, 9 and 13 are nowhere.
        expect((await journal.itemsInRange(fileId, 0, 20)).map((i) => i.seq)).toEqual([10, 11, 12]);
        expect((await journal.resumeState(fileId)).maxSeq).toBe(12);
      });
    });

    describe('operators: listing and inspecting', () => {
      it('lists files newest first, filtered by status and time', async () => {
        const failed = await failedFile(journal, 'one');
        const { fileId: processing } = await journal.claimFile(claimInput('two.csv', 'two'));
        const all = await journal.listFiles({ limit: 10 });
        expect(all.map((f) => f.fileId)).toEqual([processing, failed]);
        expect(all[1]).toMatchObject({ name: 'one.csv', drop: 'partner-a', status: 'failed', summary: { ok: 2, error: 3, uncertain: 1 } });
        expect((await journal.listFiles({ status: 'failed', limit: 10 })).map((f) => f.fileId)).toEqual([failed]);
        expect((await journal.listFiles({ since: all[0].claimedAt, limit: 10 })).map((f) => f.fileId)).toEqual([processing]);
        expect(await journal.listFiles({ limit: 1 })).toHaveLength(1);
      });

      it('lists failed and uncertain items, across files when no file is given', async () => {
        const a = await failedFile(journal, 'a');
        const b = await failedFile(journal, 'b');
        expect((await journal.failedItems(a)).map((i) => [i.seq, i.messages[0]])).toEqual([
          [2, 'unknown product'], [3, 'warehouse closed'], [5, 'no SKU'],
        ]);
        expect((await journal.uncertainItems(a)).map((i) => [i.seq, i.hint])).toEqual([[4, 'look for move of SKU-4']]);
        expect((await journal.uncertainItems()).map((i) => i.fileId)).toEqual([a, b]);
        expect(await journal.uncertainItems(undefined, { limit: 1 })).toHaveLength(1);
      });

      it('reports backlog gauges for metrics', async () => {
        await failedFile(journal);
        const { fileId } = await journal.claimFile(claimInput('live.csv', 'live'));
        const sent = await journal.recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)));
        await journal.markSent(sent);
        await journal.recordBatch(fileId, EP, [adjustment(3)]);
        expect(await journal.backlog()).toMatchObject({
          processingFiles: 1, pendingRequests: 1, pendingItems: 1, sentRequests: 1, sentItems: 3, uncertainItems: 1, errorItems: 3,
          exportsUnwritten: 0, acknowledgementsPending: 0, awaitingConfirmation: 0,
        });
      });

      it('finds the latest file of a name, and the latest events of a name never claimed', async () => {
        expect(await journal.latestFileNamed('orders.csv')).toBeUndefined();
        const first = await journal.claimFile(claimInput('orders.csv', 'one'));
        await journal.finishFile(first.fileId);
        const second = await journal.claimFile({ ...claimInput('orders.csv', 'two'), drop: 'partner-b' });
        expect(await journal.latestFileNamed('orders.csv')).toMatchObject({ fileId: second.fileId, drop: 'partner-b', checksum: 'two', status: 'processing' });
        await journal.recordFileEvent({ drop: 'partner-a', name: 'x.txt', kind: 'rejected', reason: 'no mapping' });
        await journal.recordFileEvent({ drop: 'partner-a', name: 'x.txt', kind: 'rejected', reason: 'still no mapping' });
        expect((await journal.fileEventsNamed('x.txt')).map((e) => e.reason)).toEqual(['still no mapping']);
        expect((await journal.fileEventsNamed('x.txt', 5)).map((e) => e.reason)).toEqual(['still no mapping', 'no mapping']);
        expect((await journal.recentFileEvents(1)).map((e) => e.reason)).toEqual(['still no mapping']);
        expect(await journal.fileEventsNamed('orders.csv')).toEqual([]);
      });
    });

    describe('operators: retry (re-drive)', () => {
      it('re-drives only the failed items, as a new attempt, keeping their history', async () => {
        const fileId = await failedFile(journal);
        const retry = await collect(journal.retryable(fileId));
        expect(retry.map((i) => i.seq)).toEqual([2, 3]);
        expect(JSON.parse(retry[0].body ?? '')).toMatchObject({ reference: 'ADJ-2' });
        const attempt = await journal.beginRedrive(fileId);
        expect(attempt).toBe(2);
        expect(await journal.getFile(fileId)).toMatchObject({ status: 'processing', redrives: 1 });
        // ok, uncertain and mapping-rejected items can never be part of a re-drive.
        for (const seqs of [[0], [1, 2], [4], [5]]) {
          await expect(journal.recordRequest(fileId, EP, seqs, { attempt })).rejects.toThrow(/failed .* items/);
        }
        const id = await journal.recordRequest(fileId, EP, [2, 3], { attempt });
        expect(await journal.getRequest(id)).toMatchObject({ attempt: 2, seqs: [2, 3] });
        await journal.markSent(id);
        await journal.completeRequest(id, [...okOutcomes([2]), { seq: 3, status: 'error', messages: ['still closed'] }]);
        const [item2] = await journal.requestItems(id);
        expect(item2).toMatchObject({ status: 'ok', attempt: 2, result: { move_id: 1002 } });
        expect(await journal.itemHistory(item2.itemId!)).toEqual([
          expect.objectContaining({ attempt: 1, status: 'error', messages: ['unknown product'] }),
        ]);
        // The ok items of the first attempt were not touched.
        expect([...await journal.itemsInRange(fileId, 0, 1)].map((i) => [i.status, i.attempt, i.result])).toEqual([
          ['ok', 1, { move_id: 1000 }], ['ok', 1, { move_id: 1001 }],
        ]);
        expect(await journal.finishFile(fileId)).toBe('failed');
        expect((await collect(journal.retryable(fileId))).map((i) => i.seq)).toEqual([3]);
        expect(await journal.beginRedrive(fileId)).toBe(3);
      });

      it('continues an interrupted re-drive with the same attempt and picks up its unsent items', async () => {
        const fileId = await failedFile(journal);
        const attempt = await journal.beginRedrive(fileId);
        await journal.recordRequest(fileId, EP, [2, 3], { attempt });
        // crash before markSent; the retry command runs again
        await reopen();
        expect((await journal.claimFile(claimInput('abc.csv', 'abc'))).status).toBe('resume');
        expect(await journal.beginRedrive(fileId)).toBe(attempt);
        expect((await collect(journal.retryable(fileId))).map((i) => [i.seq, i.status])).toEqual([[2, 'pending'], [3, 'pending']]);
        const id = await journal.recordRequest(fileId, EP, [2, 3], { attempt });
        await journal.markSent(id);
        await journal.completeRequest(id, okOutcomes([2, 3]));
        expect(await journal.fileSummary(fileId)).toMatchObject({ ok: 4, error: 1, uncertain: 1, pending: 0 });
      });

      it('refuses to re-drive a file that is done or still on its first pass', async () => {
        const { fileId } = await journal.claimFile(claimInput('x.csv', 'x'));
        await expect(journal.beginRedrive(fileId)).rejects.toThrow(/still being processed/);
        await journal.finishFile(fileId);
        await expect(journal.beginRedrive(fileId)).rejects.toThrow(/nothing to retry/);
      });
    });

    describe('uncertain rows and their resolution', () => {
      it('marks uncertain items applied (ok) by file and seq, and settles the file', async () => {
        const fileId = await failedFile(journal);
        const attempt = await journal.beginRedrive(fileId);
        const id = await journal.recordRequest(fileId, EP, [2, 3], { attempt });
        await journal.markSent(id);
        await journal.completeRequest(id, okOutcomes([2, 3]));
        await journal.finishFile(fileId);
        expect((await journal.getFile(fileId)).status).toBe('failed');
        const result = await journal.resolveUncertain({ fileId, seqs: [4] }, { resolution: 'applied', note: 'move 88 found', by: 'ops@3pl' });
        // Mapping-rejected row 5 keeps the file failed; the uncertain one is now ok.
        expect(result).toEqual({ resolved: 1, files: [{ fileId, status: 'failed' }] });
        const [item] = [...await journal.itemsInRange(fileId, 4, 4)];
        expect(item).toMatchObject({ status: 'ok', resolution: 'applied', resolutionNote: 'move 88 found', resolvedBy: 'ops@3pl' });
        // The note replaces the uncertain message and hint (the result file shows it); the history keeps them.
        expect(item).toMatchObject({ messages: ['applied: move 88 found'], hint: null });
        expect(item.resolvedAt).toMatch(/^2026-03-01T/);
        expect(await journal.itemHistory(item.itemId!)).toEqual([expect.objectContaining({ status: 'uncertain', hint: 'look for move of SKU-4' })]);
        expect(await journal.uncertainItems(fileId)).toEqual([]);
      });

      it('marks uncertain items not applied (error) by item id, so retry can re-drive them', async () => {
        const fileId = await failedFile(journal);
        const [uncertain] = await journal.uncertainItems(fileId);
        await journal.resolveUncertain({ itemIds: [uncertain.itemId] }, { resolution: 'not-applied', note: 'no move found', by: 'ops' });
        expect((await collect(journal.retryable(fileId))).map((i) => i.seq)).toEqual([2, 3, 4]);
        expect((await journal.failedItems(fileId)).find((i) => i.seq === 4)?.messages).toEqual(['not applied: no move found']);
      });

      it('refuses items that are not uncertain, all or nothing', async () => {
        const fileId = await failedFile(journal);
        const [uncertain] = await journal.uncertainItems(fileId);
        let code: string | undefined;
        try {
          await journal.resolveUncertain({ fileId, seqs: [4, 0] }, { resolution: 'applied', note: '', by: 'ops' });
        } catch (error) {
          code = isWisbridgeError(error) ? error.code : undefined;
        }
        expect(code).toBe('JOURNAL_STATE');
        expect((await journal.uncertainItems(fileId)).map((i) => i.itemId)).toEqual([uncertain.itemId]);
        await expect(journal.resolveUncertain({ itemIds: [999_999] }, { resolution: 'applied', note: '', by: 'ops' }))
          .rejects.toThrow(/not uncertain items: 999999/);
      });

      it('settles a file to done when the last open item is resolved', async () => {
        const { fileId } = await journal.claimFile(claimInput('u.csv', 'u'));
        const id = await journal.recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
        await journal.markSent(id);
        await journal.completeRequest(id, [...okOutcomes([0]), { seq: 1, status: 'uncertain', hint: 'check' }]);
        expect(await journal.finishFile(fileId)).toBe('failed');
        const result = await journal.resolveUncertain({ fileId, seqs: [1] }, { resolution: 'applied', note: 'seen', by: 'ops' });
        expect(result.files).toEqual([{ fileId, status: 'done' }]);
        expect((await journal.getFile(fileId)).summary).toMatchObject({ ok: 2, uncertain: 0 });
      });

      it('resolves uncertain rows of several files at once and settles each, still uncertain after a restart until then', async () => {
        const a = await failedFile(journal, 'a');
        const { fileId: b } = await journal.claimFile(claimInput('b.csv', 'b'));
        const id = await journal.recordBatch(b, EP, [adjustment(0)], { sent: true });
        await journal.completeRequest(id, [{ seq: 0, status: 'uncertain', hint: 'check SKU-0' }]);
        await journal.finishFile(b);
        await reopen();
        const uncertain = await journal.uncertainItems();
        expect(uncertain.map((i) => [i.fileId, i.seq, i.hint])).toEqual([[a, 4, 'look for move of SKU-4'], [b, 0, 'check SKU-0']]);
        const result = await journal.resolveUncertain({ itemIds: uncertain.map((i) => i.itemId) }, { resolution: 'applied', note: 'checked', by: 'ops' });
        expect(result).toEqual({ resolved: 2, files: [{ fileId: a, status: 'failed' }, { fileId: b, status: 'done' }] });
        expect(await journal.getFile(b)).toMatchObject({ status: 'done', summary: { total: 1, ok: 1, uncertain: 0 } });
        expect(await journal.backlog()).toMatchObject({ uncertainItems: 0, errorItems: 3 });
        expect((await collect(journal.iterateLineOutcomes(b))).map((o) => [o.status, o.resolution, o.messages])).toEqual([['ok', 'applied', ['applied: checked']]]);
      });
    });

    describe('result names, dispositions and file events', () => {
      it('keeps each file\'s own result name and disposition, also for two files of the same name, across a restart', async () => {
        const first = await journal.claimFile(claimInput('ACK_SO_20261120.csv', 'so-1001'));
        expect(await journal.getFile(first.fileId)).toMatchObject({ resultName: null, disposedTo: null });
        await journal.recordResultName(first.fileId, 'ACK_SO_20261120.result.csv');
        await journal.finishFile(first.fileId);
        await journal.recordDisposition(first.fileId, 'archive/ACK_SO_20261120.csv');
        const second = await journal.claimFile(claimInput('ACK_SO_20261120.csv', 'so-1002'));
        expect(second.status).toBe('new');
        await journal.recordResultName(second.fileId, 'ACK_SO_20261120.20261120T101500000Z.result.csv');
        await reopen();
        expect(await journal.getFile(first.fileId)).toMatchObject({
          name: 'ACK_SO_20261120.csv', resultName: 'ACK_SO_20261120.result.csv', disposedTo: 'archive/ACK_SO_20261120.csv',
        });
        expect(await journal.getFile(second.fileId)).toMatchObject({
          name: 'ACK_SO_20261120.csv', resultName: 'ACK_SO_20261120.20261120T101500000Z.result.csv', disposedTo: null,
        });
        expect((await journal.latestFileNamed('ACK_SO_20261120.csv'))?.fileId).toBe(second.fileId);
        await journal.recordDisposition(second.fileId, 'error/ACK_SO_20261120.20261120T101600000Z.csv');
        expect((await journal.getFile(second.fileId)).disposedTo).toBe('error/ACK_SO_20261120.20261120T101600000Z.csv');
        expect((await journal.getFile(first.fileId)).resultName).toBe('ACK_SO_20261120.result.csv');
        expect(await stateCode(journal.recordResultName(999_999, 'x.result.csv'))).toBe('JOURNAL_STATE');
        expect(await stateCode(journal.recordDisposition(999_999, 'archive/x.csv'))).toBe('JOURNAL_STATE');
      });

      it('a duplicate is unfinished until its disposition is recorded; a file rejected unread never is', async () => {
        const { fileId } = (await journal.claimFile(claimInput('KORR.csv', 'c1'))) as { fileId: number };
        const recorded = await journal.recordFileEvent({ drop: 'wms', name: 'KORR.csv', kind: 'duplicate', originalFileId: fileId, reason: 'same bytes', resultName: 'KORR.1.result.csv' });
        const id = recorded.eventId;
        await journal.recordFileEvent({ drop: 'wms', name: 'BAD.csv', kind: 'rejected', reason: 'FILE_NAME' });
        expect((await journal.fileEventsNamed('KORR.csv'))[0]).toEqual(recorded);
        expect(recorded).toMatchObject({ kind: 'duplicate', resultName: 'KORR.1.result.csv', disposedTo: null });
        expect((await journal.fileEventsNamed('BAD.csv'))[0]).toMatchObject({ kind: 'rejected', disposedTo: 'unknown' });
        expect((await journal.unfinishedDuplicate('wms', 'KORR.csv', fileId))?.eventId).toBe(id);
        expect(await journal.unfinishedDuplicate('other-drop', 'KORR.csv', fileId)).toBeUndefined();
        expect(await journal.unfinishedDuplicate('wms', 'KORR.csv', fileId + 1)).toBeUndefined();
        await journal.recordEventDisposition(id, 'archive/KORR.1.csv');
        expect(await journal.unfinishedDuplicate('wms', 'KORR.csv', fileId)).toBeUndefined();
        expect((await journal.fileEventsNamed('KORR.csv'))[0].disposedTo).toBe('archive/KORR.1.csv');
      });

      it('an unfinished duplicate is found again after a restart, the latest one first', async () => {
        const { fileId } = await journal.claimFile(claimInput('STOCK.csv', 'stock'));
        await journal.finishFile(fileId);
        const older = await journal.recordFileEvent({ drop: 'wms', name: 'STOCK.csv', kind: 'duplicate', originalFileId: fileId, resultName: 'STOCK.1.result.csv' });
        await journal.recordEventDisposition(older.eventId, 'archive/STOCK.1.csv');
        const newer = await journal.recordFileEvent({ drop: 'wms', name: 'STOCK.csv', kind: 'duplicate', originalFileId: fileId, resultName: 'STOCK.2.result.csv' });
        await reopen(); // a crash between the result file and the move
        expect(await journal.unfinishedDuplicate('wms', 'STOCK.csv', fileId)).toEqual(newer);
        expect(await journal.countFileEvents()).toBe(2);
        expect((await journal.recentFileEvents(10)).map((e) => [e.eventId, e.disposedTo])).toEqual([[newer.eventId, null], [older.eventId, 'archive/STOCK.1.csv']]);
      });
    });

    describe('exports with acknowledgement and confirmation', () => {
      it('records the file before writing, then acknowledges after it is in place', async () => {
        const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-0001.csv', records: records(1, 2, 3) });
        expect(await journal.getExport(exportId)).toMatchObject({ status: 'recorded', policy: 'on-export', recordCount: 3 });
        // records of an export without acknowledgement are unwritten too until their file is in place
        const never = await journal.beginExport({ workType: 'products', fileName: 'p.csv', records: records(7, 8), policy: 'never', repeatable: true });
        expect((await journal.backlog()).exportsUnwritten).toBe(5);
        expect((await journal.exportRecords(never)).map((r) => r.ackStatus)).toEqual(['unwritten', 'unwritten']);
        await journal.markExportWritten(never);
        expect(await journal.alreadyExported('customer-shipments', [1, 2, 4])).toEqual(new Set([1, 2]));
        expect(await journal.pendingAcknowledgements('customer-shipments')).toEqual([]);
        expect((await journal.backlog()).exportsUnwritten).toBe(3);
        await journal.markExportWritten(exportId);
        expect((await journal.pendingAcknowledgements('customer-shipments')).map((r) => [r.id, r.number, r.fileName])).toEqual([
          [1, 'SO-1', 'cs-0001.csv'], [2, 'SO-2', 'cs-0001.csv'], [3, 'SO-3', 'cs-0001.csv'],
        ]);
        expect(await journal.recordAcknowledgements(exportId, [
          { id: 1, status: 'acknowledged', acknowledgedAt: '2026-03-01T08:00:05Z' },
          { id: 2, status: 'error', messages: ['shipment was cancelled'] },
        ])).toBe(false);
        expect(await journal.recordAcknowledgements(exportId, [{ id: 3, status: 'acknowledged' }])).toBe(true);
        expect((await journal.getExport(exportId)).status).toBe('completed');
        expect((await journal.exportRecords(exportId)).map((r) => [r.id, r.ackStatus, r.acknowledgedAt, r.messages])).toEqual([
          [1, 'acknowledged', '2026-03-01T08:00:05Z', []],
          [2, 'error', null, ['shipment was cancelled']],
          [3, 'acknowledged', expect.stringMatching(/^2026-03-01T/), []],
        ]);
        await expect(journal.recordAcknowledgements(exportId, [{ id: 3, status: 'acknowledged' }])).rejects.toThrow(/not waiting/);
        expect((await journal.listExports({ workType: 'customer-shipments', limit: 5 })).map((e) => e.exportId)).toEqual([exportId]);
      });

      it('after a crash between writing and acknowledging, neither loses the acknowledgement nor exports again', async () => {
        const exportId = await journal.beginExport({ workType: 'supplier-shipments', fileName: 'ss-0001.csv', records: records(10, 11) });
        await journal.markExportWritten(exportId);
        await journal.recordAcknowledgements(exportId, [{ id: 10, status: 'acknowledged' }]);
        await reopen(); // the process died here
        expect((await journal.pendingAcknowledgements('supplier-shipments')).map((r) => r.id)).toEqual([11]);
        expect(await journal.alreadyExported('supplier-shipments', [10, 11, 12])).toEqual(new Set([10, 11]));
        await expect(journal.beginExport({ workType: 'supplier-shipments', fileName: 'ss-0002.csv', records: records(11, 12) }))
          .rejects.toThrow(/already exported .*11/);
      });

      it('abandons an export whose file never reached the outbox, freeing its records', async () => {
        const lost = await journal.beginExport({ workType: 'customer-returns', fileName: 'cr-0001.csv', records: records(5, 6) });
        await reopen();
        expect((await journal.unwrittenExports('customer-returns')).map((e) => e.exportId)).toEqual([lost]);
        await journal.abandonExport(lost);
        expect((await journal.getExport(lost)).status).toBe('abandoned');
        expect(await journal.alreadyExported('customer-returns', [5, 6])).toEqual(new Set());
        const again = await journal.beginExport({ workType: 'customer-returns', fileName: 'cr-0002.csv', records: records(5, 6) });
        await expect(journal.abandonExport(lost)).rejects.toThrow(/only an unwritten export/);
        await journal.markExportWritten(again);
        await expect(journal.abandonExport(again)).rejects.toThrow(/only an unwritten export/);
      });

      it('records a large export in parts: records added while recorded, checked like the first part, refused once written', async () => {
        const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(1, 2), policy: 'on-export' });
        await journal.addExportRecords(exportId, records(3, 4));
        expect(await journal.getExport(exportId)).toMatchObject({ status: 'recorded', recordCount: 4 });
        const earlier = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-other.csv', records: records(9) });
        const taken = await (async () => {
          try {
            await journal.addExportRecords(exportId, records(5, 9));
          } catch (error) {
            return error as { code: string; details: { ids: number[] } };
          }
        })();
        expect(taken).toMatchObject({ code: 'JOURNAL_STATE', details: { ids: [9] } });
        expect((await journal.exportRecords(exportId)).map((r) => r.id)).toEqual([1, 2, 3, 4]);
        expect((await journal.exportRecords(earlier)).map((r) => r.id)).toEqual([9]);
        await journal.addExportRecords(exportId, records(5));
        await journal.markExportWritten(exportId);
        expect(await journal.getExport(exportId)).toMatchObject({ status: 'written', recordCount: 5 });
        await expect(journal.addExportRecords(exportId, records(6))).rejects.toThrow(/only be added before it is written/);
      });

      it('marks an export written in one step, however many records it has; its records read unwritten until then', async () => {
        const ids = Array.from({ length: 2_500 }, (_, i) => i + 1);
        const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(...ids) });
        expect((await journal.exportRecords(exportId)).every((r) => r.ackStatus === 'unwritten')).toBe(true);
        expect(await journal.cancelledNotYetExported('customer-shipments', [1, 2])).toEqual([]);
        await expect(journal.recordAcknowledgements(exportId, [{ id: 1, status: 'acknowledged' }])).rejects.toThrow(/is recorded: its records are not waiting/);
        await journal.markExportWritten(exportId);
        expect((await journal.getExport(exportId)).status).toBe('written');
        expect(await journal.pendingAcknowledgements('customer-shipments')).toHaveLength(2_500);
        expect((await journal.exportRecords(exportId)).every((r) => r.ackStatus === 'pending')).toBe(true);
        expect((await journal.cancelledNotYetExported('customer-shipments', [1, 2])).map((r) => r.id)).toEqual([1, 2]);
        expect((await journal.exportRecordsAfter(exportId, 1_000, 3)).map((r) => r.id)).toEqual([1_001, 1_002, 1_003]);
        expect(await journal.exportRecordsAfter(exportId, 2_500, 3)).toEqual([]);
      });

      it('lists the exports with records due for acknowledgement, and each one\'s due records, written exports only', async () => {
        const a = await journal.beginExport({ workType: 'customer-shipments', fileName: 'a.csv', records: records(1, 2) });
        const b = await journal.beginExport({ workType: 'customer-shipments', fileName: 'b.csv', records: records(3) });
        const c = await journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(4), policy: 'on-confirmation' });
        await journal.beginExport({ workType: 'customer-shipments', fileName: 'd.csv', records: records(5) }); // not written
        for (const id of [a, b, c]) await journal.markExportWritten(id);
        await journal.recordAcknowledgements(b, [{ id: 3, status: 'acknowledged' }]);
        expect(await journal.exportsDueForAcknowledgement('customer-shipments')).toEqual([a]);
        expect(await journal.exportsDueForAcknowledgement('customer-returns')).toEqual([]);
        expect((await journal.pendingAcknowledgementsOf(a)).map((r) => [r.id, r.fileName, r.ackStatus])).toEqual([[1, 'a.csv', 'pending'], [2, 'a.csv', 'pending']]);
        expect(await journal.pendingAcknowledgementsOf(b)).toEqual([]);
        expect(await journal.pendingIdsOf(a)).toEqual(new Set([1, 2]));
        expect(await journal.pendingIdsOf(b)).toEqual(new Set());
        await journal.confirmRecords('customer-shipments', [4]);
        expect(await journal.exportsDueForAcknowledgement('customer-shipments')).toEqual([a, c]);
        expect((await journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([1, 2, 4]);
      });

      it('answers which ids were exported for sparse and dense id lists alike', async () => {
        await journal.markExportWritten(await journal.beginExport({ workType: 'customer-shipments', fileName: 'a.csv', records: records(10, 12, 1_000_000) }));
        await journal.abandonExport(await journal.beginExport({ workType: 'customer-shipments', fileName: 'b.csv', records: records(11) }));
        expect(await journal.alreadyExported('customer-shipments', [9, 10, 11, 12, 13])).toEqual(new Set([10, 12]));
        expect(await journal.alreadyExported('customer-shipments', [12, 1_000_000, 5])).toEqual(new Set([12, 1_000_000]));
        expect(await journal.alreadyExported('customer-shipments', [])).toEqual(new Set());
      });

      it('keeps work types apart and rejects a record listed twice', async () => {
        await journal.markExportWritten(await journal.beginExport({ workType: 'inbound-transfers', fileName: 'it.csv', records: records(1) }));
        expect(await journal.alreadyExported('outbound-transfers', [1])).toEqual(new Set());
        await expect(journal.beginExport({ workType: 'outbound-transfers', fileName: 'ot.csv', records: records(1, 1) })).rejects.toThrow(/twice/);
      });

      it('lets repeatable exports (product catalog) list a record again and completes them without acknowledgement', async () => {
        const first = await journal.beginExport({ workType: 'products', fileName: 'p1.csv', records: records(1, 2), policy: 'never', repeatable: true });
        await journal.markExportWritten(first);
        const second = await journal.beginExport({ workType: 'products', fileName: 'p2.csv', records: records(2), policy: 'never', repeatable: true });
        await journal.markExportWritten(second);
        expect((await journal.getExport(second)).status).toBe('completed');
        expect((await journal.exportRecords(second))[0].ackStatus).toBe('not-required');
        expect(await journal.pendingAcknowledgements('products')).toEqual([]);
      });

      it('confirmation-file policy: waits for the WMS confirmation before the records are due for acknowledgement', async () => {
        const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(1, 2), policy: 'on-confirmation' });
        await journal.markExportWritten(exportId);
        expect(await journal.pendingAcknowledgements('customer-shipments')).toEqual([]);
        expect((await journal.awaitingConfirmation('customer-shipments')).map((r) => r.id)).toEqual([1, 2]);
        expect((await journal.backlog()).awaitingConfirmation).toBe(2);
        expect(await journal.confirmRecords('customer-shipments', [2, 99])).toEqual({ confirmed: [2], unknown: [99] });
        expect((await journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([2]);
        await journal.recordAcknowledgements(exportId, [{ id: 2, status: 'acknowledged' }]);
        expect((await journal.getExport(exportId)).status).toBe('written');
        expect((await journal.awaitingConfirmation('customer-shipments')).map((r) => r.id)).toEqual([1]);
      });

      it('confirmation-file policy: a confirmation of a record not yet handed over confirms nothing; a restart keeps what waits', async () => {
        const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(1, 2), policy: 'on-confirmation' });
        expect(await journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [], unknown: [1] });
        await journal.markExportWritten(exportId);
        expect(await journal.confirmRecords('customer-returns', [1])).toEqual({ confirmed: [], unknown: [1] }); // another work type
        await reopen();
        expect(await journal.backlog()).toMatchObject({ exportsUnwritten: 0, awaitingConfirmation: 2, acknowledgementsPending: 0 });
        expect(await journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [1], unknown: [] });
        expect(await journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [], unknown: [1] }); // once only
        expect(await journal.backlog()).toMatchObject({ awaitingConfirmation: 1, acknowledgementsPending: 1 });
      });

      it('cancellations: exports a cancelled record once in a cancellation list', async () => {
        const work = await journal.beginExport({ workType: 'customer-shipments', fileName: 'w.csv', records: records(1, 2, 3) });
        await journal.markExportWritten(work);
        // 4 was never exported: the WMS never heard of it.
        expect((await journal.cancelledNotYetExported('customer-shipments', [2, 3, 4])).map((r) => [r.id, r.fileName])).toEqual([
          [2, 'w.csv'], [3, 'w.csv'],
        ]);
        const cancel = await journal.beginCancellationExport({ workType: 'customer-shipments', fileName: 'cancel-1.csv', records: records(2) });
        expect((await journal.cancelledNotYetExported('customer-shipments', [2, 3])).map((r) => r.id)).toEqual([3]);
        await journal.markCancellationExported(cancel);
        expect(await journal.getExport(cancel)).toMatchObject({ kind: 'cancellation', status: 'completed', policy: 'never' });
        await expect(journal.beginCancellationExport({ workType: 'customer-shipments', fileName: 'c2.csv', records: records(2, 4) }))
          .rejects.toThrow(/not exported or already cancelled: 2, 4/);
        // A cancellation list never counts as handing the work over.
        expect(await journal.alreadyExported('customer-shipments', [2])).toEqual(new Set([2]));
        expect((await journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([1, 2, 3]);
      });

      it('cancellations: offers the record again when the cancellation file was lost in a crash', async () => {
        await journal.markExportWritten(await journal.beginExport({ workType: 'customer-returns', fileName: 'w.csv', records: records(7) }));
        const cancel = await journal.beginCancellationExport({ workType: 'customer-returns', fileName: 'cancel.csv', records: records(7) });
        await reopen();
        await journal.abandonExport(cancel);
        expect((await journal.cancelledNotYetExported('customer-returns', [7])).map((r) => r.id)).toEqual([7]);
      });

      it('persists cursors and per-work-type sequence numbers across reopen', async () => {
        expect(await journal.getCursor('products.updated_at')).toBeNull();
        await journal.setCursor('products.updated_at', '2026-03-01T00:00:00Z');
        await journal.setCursor('products.updated_at', '2026-03-01T06:00:00Z');
        expect([await journal.nextFileSequence('customer-shipments'), await journal.nextFileSequence('customer-shipments')]).toEqual([1, 2]);
        expect(await journal.nextFileSequence('supplier-shipments')).toBe(1);
        await reopen();
        expect(await journal.getCursor('products.updated_at')).toBe('2026-03-01T06:00:00Z');
        expect(await journal.nextFileSequence('customer-shipments')).toBe(3);
      });
    });

    describe('operator actions and console pages', () => {
      it('prepares the console queries once, on the journal clock', async () => {
        expect(journal.console).toBe(journal.console);
        await journal.console.recordAction({ action: 'download', fileId: 1, target: 'a.csv', actor: 'test', via: 'console', detail: null, outcome: 'ok' });
        expect((await journal.console.listActions({ limit: 5 }))[0]).toMatchObject({ action: 'download', at: expect.stringMatching(/^2026-03-01T08:/) });
      });

      it('records operator actions and lists them newest first, by file, in pages; they survive a restart', async () => {
        const { fileId } = await journal.claimFile(claimInput('a.csv', 'abc'));
        const ids: number[] = [];
        for (let i = 0; i < 5; i++) {
          ids.push(await journal.console.recordAction({
            action: i % 2 ? 'resolve' : 'redrive', fileId: i < 3 ? fileId : null, target: i < 3 ? 'a.csv' : null, actor: `ops-${i}`, via: i % 2 ? 'cli' : 'console',
            detail: i === 4 ? '{"seqs":[4]}' : null, outcome: i === 2 ? 'refused: file is done' : 'ok',
          }));
        }
        expect([...ids].sort((x, y) => x - y)).toEqual(ids); // in the order recorded
        await reopen();
        const newest = await journal.console.listActions({ limit: 2 });
        expect(newest.map((a) => a.id)).toEqual([ids[4], ids[3]]);
        expect(newest[0]).toEqual({
          id: ids[4], action: 'redrive', fileId: null, target: null, actor: 'ops-4', via: 'console', detail: '{"seqs":[4]}', outcome: 'ok',
          at: expect.stringMatching(/^2026-03-01T08:00:\d\d\.000Z$/),
        });
        expect((await journal.console.listActions({ before: newest[1].id, limit: 10 })).map((a) => a.id)).toEqual([ids[2], ids[1], ids[0]]);
        const ofFile = await journal.console.listActions({ fileId, limit: 10 });
        expect(ofFile.map((a) => [a.action, a.actor, a.outcome])).toEqual([
          ['redrive', 'ops-2', 'refused: file is done'], ['resolve', 'ops-1', 'ok'], ['redrive', 'ops-0', 'ok'],
        ]);
        expect(await journal.console.listActions({ fileId: fileId + 1, limit: 10 })).toEqual([]);
      });

      it('lists files newest first with filters and keyset pages', async () => {
        for (let i = 0; i < 7; i++) {
          const { fileId } = await journal.claimFile({ ...claimInput(`F_${i}.csv`, `c${i}`), drop: i % 2 ? 'b' : 'a', mapping: i === 2 ? 'counts' : 'adjustments' });
          await journal.addItems(fileId, [adjustment(0)]);
          if (i % 3 === 0) await journal.rejectFile(fileId, 'bad header');
        }
        const pages = journal.console;
        const names = (list: Array<{ name: string }>) => list.map((f) => f.name);
        const first = await pages.listFiles({ limit: 3 });
        expect(names(first)).toEqual(['F_6.csv', 'F_5.csv', 'F_4.csv']);
        expect(names(await pages.listFiles({ limit: 3, before: first[2].fileId }))).toEqual(['F_3.csv', 'F_2.csv', 'F_1.csv']);
        expect(names(await pages.listFiles({ limit: 10, status: 'rejected' }))).toEqual(['F_6.csv', 'F_3.csv', 'F_0.csv']);
        expect(names(await pages.listFiles({ limit: 10, drop: 'b', status: 'processing' }))).toEqual(['F_5.csv', 'F_1.csv']);
        expect(names(await pages.listFiles({ limit: 10, name: 'f_4' }))).toEqual(['F_4.csv']);
        expect(names(await pages.listFiles({ limit: 10, name: 'f%4' }))).toEqual([]); // a wildcard in the name matches only itself
        expect(names(await pages.listFiles({ limit: 10, name: '_' }))).toHaveLength(7);
        expect(names(await pages.listFiles({ limit: 10, mappings: ['counts'] }))).toEqual(['F_2.csv']);
        expect(names(await pages.listFiles({ limit: 10, mappings: ['counts', 'adjustments'], drop: 'a' }))).toEqual(['F_6.csv', 'F_4.csv', 'F_2.csv', 'F_0.csv']);
        expect(await pages.listFiles({ limit: 10, mappings: ['other'] })).toEqual([]);
        expect(await pages.listFiles({ limit: 10, from: '2100-01-01T00:00:00Z' })).toEqual([]);
        const f3 = (await pages.listFiles({ limit: 10, name: 'F_3' }))[0];
        expect(f3).toMatchObject({ drop: 'b', mapping: 'adjustments', size: 100, status: 'rejected', reason: 'bad header', redrives: 0, finishedAt: expect.stringMatching(/^2026-03-01T/) });
        expect(names(await pages.listFiles({ limit: 10, from: f3.claimedAt, to: first[1].claimedAt }))).toEqual(['F_4.csv', 'F_3.csv']);
      });

      it('lists exports newest first with filters and keyset pages', async () => {
        const a = await journal.beginExport({ workType: 'customer-shipments', fileName: 'CS_0001.csv', records: records(1) });
        const b = await journal.beginExport({ workType: 'customer-returns', fileName: 'CR_0001.csv', records: records(2), policy: 'on-confirmation' });
        const c = await journal.beginExport({ workType: 'customer-shipments', fileName: 'CS_0002.csv', records: records(3) });
        await journal.markExportWritten(a);
        const pages = journal.console;
        expect((await pages.listExports({ limit: 10 })).map((e) => e.exportId)).toEqual([c, b, a]);
        expect((await pages.listExports({ limit: 10, before: c })).map((e) => e.exportId)).toEqual([b, a]);
        expect((await pages.listExports({ limit: 10, workType: 'customer-shipments' })).map((e) => e.fileName)).toEqual(['CS_0002.csv', 'CS_0001.csv']);
        expect((await pages.listExports({ limit: 10, status: 'written' })).map((e) => e.exportId)).toEqual([a]);
        expect((await pages.listExports({ limit: 10, name: 'cr_' })).map((e) => e.exportId)).toEqual([b]);
        expect((await pages.listExports({ limit: 10, name: 'cs%' }))).toEqual([]);
        expect((await pages.listExports({ limit: 1, workType: 'customer-returns' }))[0]).toMatchObject({
          exportId: b, kind: 'work', policy: 'on-confirmation', status: 'recorded', recordCount: 1, writtenAt: null, completedAt: null,
        });
      });

      it('pages through a file\'s rows, blocks and item rows merged in seq order, each row once, optionally of one status', async () => {
        const { fileId } = await journal.claimFile(claimInput('mixed.csv', 'mixed'));
        const done = await journal.recordBatch(fileId, EP, [0, 1, 2, 3].map((s) => adjustment(s)), { sent: true });
        await journal.completeRequest(done, [
          { seq: 0, status: 'ok', result: { move_id: 1000 } },
          { seq: 1, status: 'error', messages: ['insufficient stock'] },
          { seq: 2, status: 'uncertain', messages: ['connection reset'], hint: 'look for the move' },
          ...okOutcomes([3]),
        ]);
        await journal.recordBatch(fileId, EP, [5, 6, 8].map((s) => adjustment(s)), { sent: true }); // in flight
        await journal.addItems(fileId, [
          { seq: 4, lines: [6], status: 'error', messages: ['not a number'] },
          { seq: 7, lines: [9], status: 'skipped', messages: ['blank row'] },
        ]);
        const pageAll = async (status: 'ok' | 'error' | 'uncertain' | 'skipped' | 'sent' | undefined, limit: number) => {
          const seen: string[] = [];
          let after: number | undefined;
          for (let guard = 0; guard < 50; guard++) {
            const page = await journal.console.fileRows(fileId, { status, after, limit });
            expect(page.rows.length).toBeLessThanOrEqual(limit);
            seen.push(...page.rows.map((r) => `${r.seq}:${r.status}`));
            if (page.next === null) return seen;
            after = page.next;
          }
          throw new Error('paging did not end');
        };
        const expected = (await journal.itemsInRange(fileId, 0, 100)).map((i) => `${i.seq}:${i.status}`);
        expect(expected).toEqual(['0:ok', '1:error', '2:uncertain', '3:ok', '4:error', '5:sent', '6:sent', '7:skipped', '8:sent']);
        for (const limit of [1, 2, 4, 100]) expect(await pageAll(undefined, limit), `limit ${limit}`).toEqual(expected);
        for (const status of ['ok', 'error', 'uncertain', 'skipped', 'sent'] as const) {
          expect(await pageAll(status, 2), status).toEqual(expected.filter((e) => e.endsWith(`:${status}`)));
        }
        const { rows } = await journal.console.fileRows(fileId, { limit: 100 });
        expect(rows.find((r) => r.seq === 0)).toMatchObject({ docKey: 'SKU-0', lines: [2], result: { move_id: 1000 }, itemId: null, requestId: done, attempt: 1 });
        expect(rows.find((r) => r.seq === 2)).toMatchObject({ status: 'uncertain', hint: 'look for the move', messages: ['connection reset'], itemId: expect.any(Number) });
        expect(rows.find((r) => r.seq === 4)).toMatchObject({ status: 'error', rejected: true, messages: ['not a number'], requestId: null });
        expect(await journal.console.fileRows(fileId, { after: 8, limit: 10 })).toEqual({ rows: [], next: null });
      });

      it('pages through the uncertain rows of every file, oldest file first, with their hints', async () => {
        const a = await failedFile(journal, 'a');
        const { fileId: b } = await journal.claimFile(claimInput('b.csv', 'b'));
        const id = await journal.recordBatch(b, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
        await journal.completeRequest(id, [{ seq: 0, status: 'uncertain', hint: 'h0' }, ...okOutcomes([1]), { seq: 2, status: 'uncertain', hint: 'h2' }]);
        const first = await journal.console.uncertainRows({ limit: 2 });
        expect(first.rows.map((r) => [r.fileId, r.file, r.seq, r.hint, r.status])).toEqual([
          [a, 'a.csv', 4, 'look for move of SKU-4', 'uncertain'], [b, 'b.csv', 0, 'h0', 'uncertain'],
        ]);
        expect(first.next).toEqual({ fileId: b, seq: 0 });
        const second = await journal.console.uncertainRows({ afterFile: first.next!.fileId, afterSeq: first.next!.seq, limit: 2 });
        expect(second.rows.map((r) => [r.fileId, r.seq, r.hint])).toEqual([[b, 2, 'h2']]);
        expect(second.next).toBeNull();
        await journal.resolveUncertain({ fileId: b, seqs: [0] }, { resolution: 'not-applied', note: 'n', by: 'ops' });
        expect((await journal.console.uncertainRows({ limit: 10 })).rows.map((r) => [r.fileId, r.seq])).toEqual([[a, 4], [b, 2]]);
      });

      it('says where the journal is, how big, and since when', async () => {
        expect(await journal.console.stats(journal.location)).toEqual({ path: journal.location, bytes: expect.any(Number), oldestEntry: null });
        const { fileId } = await journal.claimFile(claimInput('a.csv', 'abc'));
        const stats = await journal.console.stats(journal.location);
        expect(stats.bytes).toBeGreaterThan(0);
        expect(stats.oldestEntry).toBe((await journal.getFile(fileId)).claimedAt);
      });
    });

    describe('retention that keeps checksums', () => {
      it('drops rows, blocks, history and requests of old finished files but keeps the file row, so the content is still a duplicate', async () => {
        const { fileId: done, requests } = await finishedFile(journal, 'done', { redriven: true });
        const { fileId: open } = await finishedFile(journal, 'open', { uncertain: true });
        const { fileId: processing } = await journal.claimFile(claimInput('busy.csv', 'busy'));
        await journal.recordBatch(processing, EP, [adjustment(0)]);
        const redriven = (await itemRows(journal, done)).find((i) => i.seq === 2)!;
        expect(await itemRows(journal, done)).toHaveLength(2);
        expect(await journal.itemHistory(redriven.itemId!)).toHaveLength(1);
        const before = await journal.getFile(done);

        const report = await journal.pruneJournal({ olderThan: LATER });
        expect(report).toMatchObject({ files: 1, keptOpen: 1, items: 2, blocks: 1, requests: 2 });
        // The file's item rows and its block are gone, its history too, and its requests.
        expect(await journal.itemsInRange(done, 0, 1_000_000)).toEqual([]);
        expect(await journal.itemHistory(redriven.itemId!)).toEqual([]);
        for (const id of requests) await expect(journal.getRequest(id)).rejects.toThrow(/not in the journal/);
        expect((await itemRows(journal, open)).length).toBeGreaterThan(0);
        expect((await journal.itemsInRange(processing, 0, 10)).map((i) => [i.seq, i.itemId, i.status])).toEqual([[0, null, 'pending']]);
        const after = await journal.getFile(done);
        expect(after).toMatchObject({ checksum: before.checksum, status: 'failed', summary: before.summary });
        expect(after.prunedAt).not.toBeNull();
        expect(await collect(journal.iterateLineOutcomes(done))).toEqual([]);

        expect(await journal.claimFile(claimInput('done-again.csv', 'done'))).toMatchObject({ status: 'duplicate', fileId: done, previousStatus: 'failed' });
        const retry = await journal.beginRedrive(done).catch((e: unknown) => e);
        expect(isWisbridgeError(retry, 'JOURNAL_STATE') && retry.message).toMatch(/pruned/);
        expect(await journal.journalStats()).toMatchObject({ files: 3, prunedFiles: 1, oldestEntry: before.claimedAt, oldestDetail: (await journal.getFile(open)).claimedAt });
        expect(await journal.pruneJournal({ olderThan: LATER })).toMatchObject({ files: 0, keptOpen: 1 });
      });

      it('keeps files finished after the cut-off, and a rejected file that reached the service stays a duplicate', async () => {
        const { fileId: rejected, request } = await (async () => {
          const { fileId } = await journal.claimFile(claimInput('half.csv', 'half'));
          const id = await journal.recordBatch(fileId, EP, [adjustment(0)], { sent: true });
          await journal.completeRequest(id, okOutcomes([0]));
          await journal.rejectFile(fileId, 'FILE_LAYOUT: broken quote on line 40');
          return { fileId, request: id };
        })();
        const cutoff = (await journal.getFile(rejected)).finishedAt!;
        const { fileId: recent } = await finishedFile(journal, 'recent');
        expect(await journal.pruneJournal({ olderThan: cutoff })).toMatchObject({ files: 0 });
        expect(await journal.pruneJournal({ olderThan: (await journal.getFile(recent)).claimedAt })).toMatchObject({ files: 1 });
        expect(await journal.getFile(rejected)).toMatchObject({ status: 'rejected', summary: { ok: 1 } });
        await expect(journal.getRequest(request)).rejects.toThrow(/not in the journal/);
        expect(await journal.claimFile(claimInput('half-again.csv', 'half'))).toMatchObject({ status: 'duplicate', fileId: rejected });
        expect((await journal.itemsInRange(recent, 0, 10)).length).toBeGreaterThan(0);
      });

      it('a prune cut short finishes its file first next time; old file events go too', async () => {
        const { fileId, requests: [request] } = await finishedFile(journal, 'big');
        await journal.recordFileEvent({ drop: 'partner-a', name: 'x.txt', kind: 'rejected', reason: 'no mapping' });
        // Cut short once the file's two item rows are gone (looks: before the file, before each of the two chunks of
        // items, the second finding none): before its block and its request.
        const cut = await journal.pruneJournal({ olderThan: LATER, signal: abortedFromLook(4) });
        expect(cut).toMatchObject({ files: 0, items: 2, blocks: 0, requests: 0 });
        expect((await journal.getFile(fileId)).prunedAt).not.toBeNull();
        expect(await itemRows(journal, fileId)).toEqual([]);
        expect(await journal.getRequest(request)).toMatchObject({ requestId: request });
        await reopen();
        expect(await journal.pruneJournal({ olderThan: LATER })).toMatchObject({ files: 0, items: 0, blocks: 1, requests: 1, events: 1 });
        await expect(journal.getRequest(request)).rejects.toThrow(/not in the journal/);
        expect(await journal.recentFileEvents(10)).toEqual([]);
        expect(await journal.claimFile(claimInput('big-again.csv', 'big'))).toMatchObject({ status: 'duplicate', fileId });
      });

      it('counts what it holds: files, file events, exports, and its size and age', async () => {
        expect(await journal.journalStats()).toMatchObject({ path: journal.location, files: 0, prunedFiles: 0, oldestEntry: null, oldestDetail: null });
        const { fileId } = await journal.claimFile(claimInput('a.csv', 'abc'));
        await journal.recordFileEvent({ drop: 'partner-a', name: 'a.csv', kind: 'duplicate', originalFileId: fileId });
        await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs.csv', records: records(1) });
        expect([await journal.countFiles(), await journal.countFileEvents(), await journal.countExports()]).toEqual([1, 1, 1]);
        const stats = await journal.journalStats();
        expect(stats).toMatchObject({ files: 1, prunedFiles: 0, oldestEntry: (await journal.getFile(fileId)).claimedAt, oldestDetail: (await journal.getFile(fileId)).claimedAt });
        expect(stats.bytes).toBeGreaterThan(0);
        expect(stats.freeBytes).toBeGreaterThanOrEqual(0);
      });
    });

    describe('units of work', () => {
      let fileId: number;
      beforeEach(async () => {
        fileId = (await journal.claimFile(claimInput('a.csv', 'abc'))).fileId;
      });

      it('shares one commit across calls with transaction() and rolls all back on error', async () => {
        await expect(journal.transaction(async (tx) => {
          await tx.addItems(fileId, [adjustment(0)]);
          await tx.recordRequest(fileId, EP, [0, 1]);
        })).rejects.toThrow(/only 1 of the 2/);
        expect((await journal.fileSummary(fileId)).total).toBe(0);
        const id = await journal.transaction(async (tx) => {
          await tx.addItems(fileId, [adjustment(0)]);
          return tx.recordRequest(fileId, EP, [0]);
        });
        expect(await journal.getRequest(id)).toMatchObject({ seqs: [0], status: 'pending', attempt: 1 });
      });

      it('a throw of the caller\'s own rolls back every call of the unit, across roles', async () => {
        const boom = new Error('the caller gave up');
        await expect(journal.transaction(async (tx) => {
          const claimed = await tx.claimFile(claimInput('b.csv', 'def'));
          await tx.recordBatch(claimed.fileId, EP, [adjustment(0)], { sent: true });
          await tx.recordResultName(fileId, 'a.result.csv');
          await tx.beginExport({ workType: 'customer-shipments', fileName: 'cs.csv', records: records(1) });
          await tx.setCursor('k', 'v');
          expect(await tx.nextFileSequence('customer-shipments')).toBe(1);
          // Inside, the unit reads its own writes.
          expect(await tx.countFiles()).toBe(2);
          expect(await tx.fileSummary(claimed.fileId)).toMatchObject({ total: 1, sent: 1 });
          throw boom;
        })).rejects.toBe(boom);
        expect(await journal.countFiles()).toBe(1);
        expect((await journal.claimFile(claimInput('b.csv', 'def'))).status).toBe('new');
        expect((await journal.getFile(fileId)).resultName).toBeNull();
        expect(await journal.countExports()).toBe(0);
        expect(await journal.alreadyExported('customer-shipments', [1])).toEqual(new Set());
        expect(await journal.getCursor('k')).toBeNull();
        expect(await journal.nextFileSequence('customer-shipments')).toBe(1);
        expect(await journal.backlog()).toMatchObject({ sentRequests: 0, sentItems: 0 });
      });

      it('commits every call of the unit together and resolves what fn returns', async () => {
        const result = await journal.transaction(async (tx) => {
          const id = await tx.recordBatch(fileId, EP, [0, 1].map((s) => adjustment(s)), { sent: true });
          await tx.completeRequest(id, okOutcomes([0, 1]));
          await tx.addItems(fileId, [{ seq: 2, lines: [4], status: 'skipped' }]);
          return { id, status: await tx.finishFile(fileId) };
        });
        expect(result.status).toBe('done');
        expect(await journal.getRequest(result.id)).toMatchObject({ status: 'done' });
        expect(await journal.getFile(fileId)).toMatchObject({ status: 'done', summary: { total: 3, ok: 2, skipped: 1 } });
      });

      it('a call that fails inside a unit leaves nothing of itself, and the unit goes on to commit the rest', async () => {
        await journal.addItems(fileId, [adjustment(0), adjustment(1)]);
        const kept = await journal.transaction(async (tx) => {
          // Fails after recording its request row: only 1 of the 2 items is pending.
          expect(await stateCode(tx.recordRequest(fileId, EP, [0, 2]))).toBe('JOURNAL_STATE');
          // Fails on a seq already recorded, after checking the others.
          await tx.recordBatch(fileId, EP, [adjustment(5)]);
          expect(await stateCode(tx.recordBatch(fileId, EP, [4, 5].map((s) => adjustment(s))))).toBe('JOURNAL_STATE');
          return tx.recordRequest(fileId, EP, [0, 1]);
        });
        expect(await journal.getRequest(kept)).toMatchObject({ seqs: [0, 1], status: 'pending' });
        expect(await journal.backlog()).toMatchObject({ pendingRequests: 2, pendingItems: 3 });
        expect((await journal.itemsInRange(fileId, 0, 10)).map((i) => [i.seq, i.requestId === kept])).toEqual([[0, true], [1, true], [5, false]]);
      });

      it('a unit of work nested in another joins it', async () => {
        await expect(journal.transaction(async (tx) => {
          await tx.transaction(async (inner) => {
            await inner.addItems(fileId, [adjustment(0)]);
          });
          expect((await tx.fileSummary(fileId)).total).toBe(1);
          throw new Error('outer gives up');
        })).rejects.toThrow('outer gives up');
        expect((await journal.fileSummary(fileId)).total).toBe(0);
      });

      it('units of work from one journal at once each commit whole', async () => {
        const units = Array.from({ length: 6 }, (_, i) => journal.transaction(async (tx) => {
          const id = await tx.recordBatch(fileId, EP, [adjustment(i * 2), adjustment(i * 2 + 1)], { sent: true });
          await tx.completeRequest(id, i === 3 ? [{ seq: 6, status: 'error', messages: ['x'] }, ...okOutcomes([7])] : okOutcomes([i * 2, i * 2 + 1]));
          if (i === 4) throw new Error('unit 4 fails');
          return id;
        }));
        const settled = await Promise.allSettled(units);
        expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
        expect(await journal.fileSummary(fileId)).toMatchObject({ total: 10, ok: 9, error: 1, sent: 0 });
        expect((await journal.resumeState(fileId)).classify(8)).toBe('unsent');
      });
    });

    describe('two connections at once', () => {
      it('both claim the same bytes at the same time: exactly one claim is new, the other resumes it', async () => {
        const other = await fx.second();
        for (let round = 0; round < 5; round++) {
          const input = claimInput(`race-${round}.csv`, `race-${round}`);
          const claims = await Promise.all(round % 2 ? [journal.claimFile(input), other.claimFile(input)] : [other.claimFile(input), journal.claimFile(input)]);
          expect(claims.map((c) => c.status).sort(), `round ${round}`).toEqual(['new', 'resume']);
          expect(claims[0].fileId).toBe(claims[1].fileId);
        }
        expect(await journal.countFiles()).toBe(5);
        const [file] = await journal.listFiles({ limit: 1 });
        await other.finishFile(file.fileId);
        expect(await journal.claimFile(claimInput('again.csv', file.checksum))).toMatchObject({ status: 'duplicate', fileId: file.fileId });
      });

      it('interleaved writes from both connections all land, and each sees the other\'s', async () => {
        const other = await fx.second();
        const mine = (await journal.claimFile(claimInput('mine.csv', 'mine'))).fileId;
        const theirs = (await other.claimFile(claimInput('theirs.csv', 'theirs'))).fileId;
        const write = async (connection: Connection, fileId: number) => {
          for (let from = 0; from < 100; from += 10) {
            const seqs = Array.from({ length: 10 }, (_, i) => from + i);
            const id = await connection.recordBatch(fileId, EP, seqs.map((s) => adjustment(s)), { sent: true });
            await connection.completeRequest(id, okOutcomes(seqs));
            await connection.setCursor(`cursor-${fileId}`, String(from));
          }
        };
        const sequences = Array.from({ length: 12 }, (_, i) => (i % 2 ? journal : other).nextFileSequence('customer-shipments'));
        const [numbers] = await Promise.all([Promise.all(sequences), write(journal, mine), write(other, theirs)]);
        expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
        expect(await journal.fileSummary(theirs)).toMatchObject({ total: 100, ok: 100 });
        expect(await other.fileSummary(mine)).toMatchObject({ total: 100, ok: 100 });
        expect([await other.getCursor(`cursor-${mine}`), await journal.getCursor(`cursor-${theirs}`)]).toEqual(['90', '90']);
        expect(await other.finishFile(mine)).toBe('done');
        expect(await journal.finishFile(theirs)).toBe('done');
        expect(await journal.nextFileSequence('customer-shipments')).toBe(13);
      });

      it('both export the same records at the same time: one export holds them, the other is refused', async () => {
        const other = await fx.second();
        for (let round = 0; round < 3; round++) {
          const ids = [round * 10 + 1, round * 10 + 2];
          const outcomes = await Promise.allSettled([
            journal.beginExport({ workType: 'customer-shipments', fileName: `cs-${round}-a.csv`, records: records(...ids) }),
            other.beginExport({ workType: 'customer-shipments', fileName: `cs-${round}-b.csv`, records: records(...ids) }),
          ]);
          expect(outcomes.map((o) => o.status).sort(), `round ${round}`).toEqual(['fulfilled', 'rejected']);
          const refused = outcomes.find((o) => o.status === 'rejected')!;
          expect(isWisbridgeError(refused.reason, 'JOURNAL_STATE') && refused.reason.message).toMatch(/already exported/);
          const held = outcomes.find((o): o is PromiseFulfilledResult<number> => o.status === 'fulfilled')!.value;
          expect((await journal.exportRecords(held)).map((r) => r.id)).toEqual(ids);
        }
        expect(await journal.countExports()).toBe(3);
      });
    });

    describe('the contract', () => {
      it('hands each user only its part (checked by the compiler)', async () => {
        await journal.claimFile(claimInput('a.csv', 'abc'));
        const [{ fileId }] = await journal.listFiles({ limit: 1 });
        const inbound: InboundJournal = journal;
        const reads: ResultReads = journal;
        const operator: OperatorJournal = journal;
        // The narrowing is by type: at run time it is the same object, so the calls below exist but do not compile.
        // @ts-expect-error the operator side cannot record requests
        expect(operator.recordBatch).toBeDefined();
        // @ts-expect-error the inbound side cannot resolve uncertain rows
        expect(inbound.resolveUncertain).toBeDefined();
        expect(await reads.fileSummary(fileId)).toMatchObject({ fileId, total: 0 });
      });

      it('says where it is without a secret, and can be reached again by its address', async () => {
        expect(journal.location).toEqual(expect.any(String));
        expect(journal.location).not.toMatch(/password|:[^/@]*@/);
        expect(['sqlite', 'postgres']).toContain(journal.address.engine);
        expect(structuredClone(journal.address)).toEqual(journal.address);
        expect(journal.schemaVersion).toBeGreaterThanOrEqual(1);
        await journal.close();
        await journal.close(); // idempotent
        await reopen();
        expect(await journal.countFiles()).toBe(0);
      });
    });
  });
}
