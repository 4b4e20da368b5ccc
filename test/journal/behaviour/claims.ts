import { beforeEach, describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../../src/errors.js';
import { freshState, packBatch, packOkOutcomes, type ItemOutcome } from '../../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes } from '../../../src/journal/test-support.js';
import { EP, collect, stateCode, type Suite } from './support.js';
import { testHooks } from '../../../src/journal/testing.js';

/** Matches a journal stamp (ISO text) between two readings of this machine's clock, which the database shares. */
const stampedBetween = (from: number, to: number) => ({
  asymmetricMatch: (value: unknown) => typeof value === 'string' && Date.parse(value) >= from && Date.parse(value) <= to,
  toString: () => `a stamp between ${new Date(from).toISOString()} and ${new Date(to).toISOString()}`,
});

export function describeClaims(suite: Suite): void {
  describe('claims and duplicates by checksum', () => {
    it('claims a new file, then reports the same bytes under another name as a duplicate', async () => {
      const first = await suite.journal.claimFile(claimInput('adj-monday.csv', 'abc'));
      expect(first).toMatchObject({ status: 'new', generation: 1 });
      if (first.status !== 'new') throw new Error('unreachable');
      await suite.journal.addItems(first.fileId, [adjustment(0)]);
      const id = await suite.journal.recordRequest(first.fileId, EP, [0]);
      await suite.journal.markSent(id);
      await suite.journal.completeRequest(id, okOutcomes([0]));
      expect(await suite.journal.finishFile(first.fileId)).toBe('done');

      const again = await suite.journal.claimFile(claimInput('adj-monday-copy.csv', 'abc'));
      expect(again).toMatchObject({ status: 'duplicate', fileId: first.fileId, previousName: 'adj-monday.csv', previousStatus: 'done' });
      expect(again.status === 'duplicate' && again.finishedAt).toBeTruthy();
      expect((await suite.journal.claimFile(claimInput('other.csv', 'def'))).status).toBe('new');
    });

    it('reads a file claimed just now as freshState gives it without reading: nothing recorded, every seq unsent', async () => {
      const claim = await suite.journal.claimFile(claimInput('fresh.csv', 'c-fresh'));
      if (claim.status !== 'new') throw new Error('unreachable');
      const { classify: read, ...readState } = await suite.journal.resumeState(claim.fileId);
      const { classify: given, ...givenState } = freshState(claim.fileId);
      expect(readState).toEqual(givenState);
      for (const seq of [0, 1, 999]) expect([seq, read(seq)]).toEqual([seq, given(seq)]);
    });

    it('force creates a new claim generation and keeps the earlier one', async () => {
      const first = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      await suite.journal.rejectFile(first.fileId, 'no header');
      // A rejected file whose rows never reached the service is not a duplicate.
      const second = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      expect(second).toMatchObject({ status: 'new', generation: 2 });
      await suite.journal.finishFile(second.fileId);
      expect((await suite.journal.claimFile(claimInput('a.csv', 'abc'))).status).toBe('duplicate');
      const forced = await suite.journal.claimFile({ ...claimInput('a.csv', 'abc'), force: true });
      expect(forced).toMatchObject({ status: 'new', generation: 3 });
      expect(forced.fileId).not.toBe(second.fileId);
      expect((await suite.journal.getFile(second.fileId)).status).toBe('done');
      expect(await suite.journal.getFile(first.fileId)).toMatchObject({ status: 'rejected', reason: 'no header' });
    });

    it('counts a rejected file as processed once some of it reached the service', async () => {
      const first = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      await suite.journal.markSent(await testHooks(suite.journal).recordBatch(first.fileId, EP, [adjustment(0)]));
      await suite.journal.rejectFile(first.fileId, 'encoding error at line 900');
      expect(await suite.journal.claimFile(claimInput('a.csv', 'abc'))).toMatchObject({ status: 'duplicate', previousStatus: 'rejected' });
    });

    it('a forced claim while the file is still processing resumes it instead', async () => {
      const first = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      expect(await suite.journal.claimFile({ ...claimInput('b.csv', 'abc'), force: true })).toEqual({ status: 'resume', fileId: first.fileId, generation: 1 });
      expect(await suite.journal.countFiles()).toBe(1);
    });
  });

  describe('resume after a crash', () => {
    it('reopened: the file resumes, its requests never sent are abandoned, the sent one waits to be reconciled', async () => {
      const before = Date.now();
      const { fileId } = await suite.journal.claimFile(claimInput('crash.csv', 'crash'));
      const done = await testHooks(suite.journal).recordBatch(fileId, EP, [0, 1].map((s) => adjustment(s)), { sent: true });
      await suite.journal.completeRequest(done, okOutcomes([0, 1]));
      const sent = await testHooks(suite.journal).recordBatch(fileId, EP, [2, 3].map((s) => adjustment(s)), { sent: true });
      const pendingBlock = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(4)]);
      await suite.journal.addItems(fileId, [adjustment(5), adjustment(6)]);
      const pendingRows = await suite.journal.recordRequest(fileId, EP, [5]);
      await suite.reopen(); // the process died here

      expect(await suite.journal.getRequest(pendingBlock)).toMatchObject({ status: 'pending' }); // reopening alone changes nothing
      expect(await suite.journal.claimFile(claimInput('crash-renamed.csv', 'crash'))).toEqual({ status: 'resume', fileId, generation: 1 });
      expect(await suite.journal.getRequest(pendingBlock)).toMatchObject({ status: 'abandoned', sentAt: null });
      expect(await suite.journal.getRequest(pendingRows)).toMatchObject({ status: 'abandoned', sentAt: null });
      expect(await suite.journal.getRequest(sent)).toMatchObject({ status: 'sent', sentAt: stampedBetween(before, Date.now()) });
      const state = await suite.journal.resumeState(fileId);
      expect(state.sentRequests).toEqual([expect.objectContaining({ requestId: sent, seqs: [2, 3], endpoint: EP })]);
      expect([0, 1, 2, 3, 4, 5, 6, 7].map((s) => state.classify(s))).toEqual(['finished', 'finished', 'sent', 'sent', 'unsent', 'unsent', 'unsent', 'unsent']);
      // Seq 4's block went with its request (mapped and recorded again); 5 and 6 are rows without a request.
      expect(state.counts).toEqual({ finished: 2, sent: 2, unsent: 2 });
      expect(state.maxSeq).toBe(6);

      // The restarted pipeline reconciles the sent request and sends the rest again.
      await suite.journal.completeRequest(sent, [{ seq: 2, status: 'uncertain', hint: 'check SKU-2' }, ...okOutcomes([3])]);
      await suite.journal.completeRequest(await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(4)], { sent: true }), okOutcomes([4]));
      const rows = await suite.journal.recordRequest(fileId, EP, [5, 6]);
      await suite.journal.markSent(rows);
      await suite.journal.completeRequest(rows, okOutcomes([5, 6]));
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 7, ok: 6, uncertain: 1, pending: 0, sent: 0 });
      expect(await suite.journal.finishFile(fileId)).toBe('failed');
    });

    it('resumes a file still processing and abandons its requests that were never sent', async () => {
      const before = Date.now();
      const { fileId } = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      const sentId = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
      await suite.journal.markSent(sentId);
      const unsentId = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(2)]);
      const resumed = await suite.journal.claimFile(claimInput('renamed.csv', 'abc'));
      expect(resumed).toEqual({ status: 'resume', fileId, generation: 1 });
      expect(await suite.journal.getRequest(unsentId)).toMatchObject({ status: 'abandoned', sentAt: null });
      // When it was sent, by the database's clock, not the journal's (a test clock in 2026-03): reading back and the
      // untouched-since check (pipeline/untouched.ts) compare it with the service's times, on any instance.
      expect(await suite.journal.getRequest(sentId)).toMatchObject({ status: 'sent', sentAt: stampedBetween(before, Date.now()) });
      // The abandoned item can go out in a new request.
      const again = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(2)]);
      expect((await suite.journal.requestItems(again)).map((i) => i.seq)).toEqual([2]);
    });

    it('tells finished, sent and never-sent seqs apart and lists the requests in flight', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      const done = await testHooks(suite.journal).recordBatch(fileId, EP, [0, 1, 2, 3].map((s) => adjustment(s)));
      await suite.journal.markSent(done);
      await suite.journal.completeRequest(done, [...okOutcomes([0, 1, 3]), { seq: 2, status: 'error', messages: ['x'] }]);
      const inFlight = await testHooks(suite.journal).recordBatch(fileId, EP, [4, 5].map((s) => adjustment(s)));
      await suite.journal.markSent(inFlight);
      await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(6)]);
      await suite.journal.addItems(fileId, [adjustment(7), { seq: 8, lines: [10], status: 'skipped' }]);

      const state = await suite.journal.resumeState(fileId);
      expect(state.maxSeq).toBe(8);
      expect(state.counts).toEqual({ finished: 5, sent: 2, unsent: 2 });
      expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((s) => state.classify(s))).toEqual([
        'finished', 'finished', 'finished', 'finished', 'sent', 'sent', 'unsent', 'unsent', 'finished', 'unsent',
      ]);
      expect(state.sentRequests).toEqual([expect.objectContaining({ requestId: inFlight, seqs: [4, 5], endpoint: EP })]);
      expect((await suite.journal.requestItems(inFlight)).map((i) => JSON.parse(i.body ?? 'null').reference)).toEqual(['ADJ-4', 'ADJ-5']);
      // The caller reconciles the request in flight: here an uncertain adjustment and a read-back ok.
      await suite.journal.completeRequest(inFlight, [{ seq: 4, status: 'uncertain', hint: 'check SKU-4' }, ...okOutcomes([5])]);
      expect((await suite.journal.resumeState(fileId)).classify(4)).toBe('finished');
    });
  });

  describe('items and requests', () => {
    let fileId: number;
    beforeEach(async () => {
      fileId = (await suite.journal.claimFile(claimInput('a.csv', 'abc'))).fileId;
    });

    it('walks pending → sent → ok / error / uncertain and derives the request status', async () => {
      await suite.journal.addItems(fileId, [adjustment(0), adjustment(1), adjustment(2), adjustment(3)]);
      const id = await suite.journal.recordRequest(fileId, EP, [0, 1, 2]);
      expect((await suite.journal.requestItems(id)).map((i) => i.status)).toEqual(['pending', 'pending', 'pending']);
      await suite.journal.markSent(id);
      expect((await suite.journal.requestItems(id)).map((i) => i.status)).toEqual(['sent', 'sent', 'sent']);
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 4, pending: 1, sent: 3 });
      const status = await suite.journal.completeRequest(id, [
        { seq: 0, status: 'ok', result: { move_id: 7 } },
        { seq: 1, status: 'error', messages: ['unknown product'] },
        { seq: 2, status: 'uncertain', hint: 'check move of SKU-2' },
      ]);
      expect(status).toBe('uncertain');
      const items = await suite.journal.requestItems(id);
      expect(items.map((i) => [i.status, i.result, i.messages, i.hint])).toEqual([
        ['ok', { move_id: 7 }, [], null],
        ['error', null, ['unknown product'], null],
        ['uncertain', null, [], 'check move of SKU-2'],
      ]);
      expect((await suite.journal.getRequest(id)).status).toBe('uncertain');
      const second = await suite.journal.recordRequest(fileId, EP, [3]);
      await suite.journal.markSent(second);
      expect(await suite.journal.completeRequest(second, [{ seq: 3, status: 'error', messages: ['x'] }])).toBe('failed');
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 4, ok: 1, error: 2, uncertain: 1, pending: 0, sent: 0 });
      expect(await suite.journal.finishFile(fileId)).toBe('failed');
      expect((await suite.journal.getFile(fileId)).summary).toMatchObject({ ok: 1, error: 2, uncertain: 1 });
    });

    it('records a batch already marked sent in one commit when asked', async () => {
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0), adjustment(1)], { sent: true });
      expect((await suite.journal.getRequest(id)).status).toBe('sent');
      expect((await suite.journal.requestItems(id)).map((i) => i.status)).toEqual(['sent', 'sent']);
      await expect(suite.journal.markSent(id)).rejects.toThrow(/not pending/);
      expect((await suite.journal.resumeState(fileId)).classify(1)).toBe('sent');
    });

    it('releases a request that never reached the service: its items can be sent again', async () => {
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0), adjustment(1)], { sent: true });
      await suite.journal.releaseRequest(id);
      expect((await suite.journal.getRequest(id)).status).toBe('abandoned');
      // Its items are no longer recorded at all (the file maps them again), so nothing reads as in flight.
      expect((await suite.journal.resumeState(fileId)).counts).toEqual({ finished: 0, sent: 0, unsent: 0 });
      expect((await suite.journal.resumeState(fileId)).classify(1)).toBe('unsent');
      await expect(suite.journal.completeRequest(id, okOutcomes([0, 1]))).rejects.toThrow(/already abandoned/);
      const again = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
      await suite.journal.markSent(again);
      await suite.journal.completeRequest(again, okOutcomes([0, 1]));
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 2, ok: 2 });
    });

    it('records large batches in chunks and names the item already in a request, leaving nothing behind', async () => {
      const seqs = Array.from({ length: 137 }, (_, i) => i);
      const first = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(75)]);
      const error = await testHooks(suite.journal).recordBatch(fileId, EP, seqs.map((s) => adjustment(s))).then(() => undefined, (e: unknown) => e);
      expect(isWisbridgeError(error, 'JOURNAL_STATE') && error.message).toContain('item 75 ');
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 1, pending: 1 });
      await suite.journal.markSent(first);
      await suite.journal.completeRequest(first, okOutcomes([75]));
      const rest = seqs.filter((s) => s !== 75);
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, rest.map((s) => adjustment(s)), { sent: true });
      expect((await suite.journal.requestItems(id)).map((i) => [i.seq, i.status])).toEqual(rest.map((s) => [s, 'sent']));
      await suite.journal.completeRequest(id, okOutcomes(rest));
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 137, ok: 137 });
    });

    it('refuses a seq that has an item row of its own (a rejected or skipped row), in a request\'s first range or a later one', async () => {
      await suite.journal.addItems(fileId, [{ seq: 4, lines: [5], status: 'skipped', messages: ['a comment line'] }]);
      const refused = async (seqs: number[]) => testHooks(suite.journal).recordBatch(fileId, EP, seqs.map((s) => adjustment(s))).then(() => undefined, (e: unknown) => e);
      for (const seqs of [[4], [3, 4], [1, 4], [1, 2, 4, 6]]) {
        const error = await refused(seqs);
        expect(isWisbridgeError(error, 'JOURNAL_STATE') && error.message).toContain('item 4 ');
      }
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(1), adjustment(2), adjustment(6)]);
      expect((await suite.journal.getRequest(id)).seqs).toEqual([1, 2, 6]);
    });

    it('stores a request packed ahead (packBatch, packOkOutcomes) as it stores one given item by item', async () => {
      const items = [adjustment(0), adjustment(1, { lines: [3, 4] }), adjustment(3, { lines: [5] })];
      const packed = packBatch(EP, items);
      expect(packed).toMatchObject({ endpoint: EP, count: 3, ranges: [[0, 1], [3, 3]], firstLine: 2 });
      expect(await stateCode(testHooks(suite.journal).recordBatch(fileId, 'inventory.counts', packed))).toBe('JOURNAL_STATE');
      expect(await stateCode(testHooks(suite.journal).recordBatch(fileId, EP, packed))).toBe('JOURNAL_STATE'); // no bodies
      const bodies = JSON.stringify(items.map((i) => i.body));
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, packed, { sent: true, bodies });
      expect(await stateCode(testHooks(suite.journal).recordBatch(fileId, EP, packBatch(EP, [adjustment(3)]), { bodies: '[{}]' })))
        .toBe('JOURNAL_STATE'); // seq 3 is already in a request
      expect(packOkOutcomes([...okOutcomes([0]), { seq: 1, status: 'error', messages: ['x'] }])).toBeUndefined();
      const outcomes: ItemOutcome[] = [{ seq: 0, status: 'ok', result: { move_id: 70 } }, { seq: 1, status: 'ok' }, { seq: 3, status: 'ok', result: { move_id: 73 } }];
      const ok = packOkOutcomes(outcomes)!;
      expect(await stateCode(suite.journal.completeRequest(id, { ...ok, ok: 2 }))).toBe('JOURNAL_STATE');
      expect(await suite.journal.completeRequest(id, ok)).toBe('done');
      expect(await stateCode(suite.journal.completeRequest(id, ok))).toBe('JOURNAL_STATE');
      expect((await collect(suite.journal.iterateLineOutcomes(fileId))).map((o) => [o.line, o.docKey, o.status, o.result])).toEqual([
        [2, 'SKU-0', 'ok', { move_id: 70 }], [3, 'SKU-1', 'ok', null], [4, 'SKU-1', 'ok', null], [5, 'SKU-3', 'ok', { move_id: 73 }],
      ]);
      expect((await suite.journal.requestItems(id)).map((i) => JSON.parse(i.body ?? 'null'))).toEqual(items.map((i) => i.body));
    });

    it('refuses transitions that do not fit the recorded state', async () => {
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
      expect(await stateCode(testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(1)]))).toBe('JOURNAL_STATE');
      expect(await stateCode(suite.journal.completeRequest(id, okOutcomes([0])))).toBe('JOURNAL_STATE');
      expect(await stateCode(suite.journal.completeRequest(id, okOutcomes([0, 5])))).toBe('JOURNAL_STATE');
      expect(await stateCode(suite.journal.completeRequest(id, okOutcomes([0, 0])))).toBe('JOURNAL_STATE');
      await expect(suite.journal.completeRequest(id, packOkOutcomes(okOutcomes([0]))!)).rejects.toThrow(`request ${id} has 2 items but 1 outcomes were given`);
      await expect(suite.journal.completeRequest(999_999, packOkOutcomes(okOutcomes([0]))!)).rejects.toThrow('request 999999 is not in the journal');
      expect(await stateCode(suite.journal.finishFile(fileId))).toBe('JOURNAL_STATE');
      await suite.journal.markSent(id);
      expect(await stateCode(suite.journal.markSent(id))).toBe('JOURNAL_STATE');
      await suite.journal.completeRequest(id, okOutcomes([0, 1]));
      expect(await stateCode(suite.journal.completeRequest(id, okOutcomes([0, 1])))).toBe('JOURNAL_STATE');
      await expect(suite.journal.completeRequest(id, packOkOutcomes(okOutcomes([0, 1]))!)).rejects.toThrow(`request ${id} is already done`);
      expect(await stateCode(suite.journal.recordRequest(fileId, EP, [0]))).toBe('JOURNAL_STATE');
      expect(await stateCode(testHooks(suite.journal).recordBatch(fileId, 'inventory.counts', [adjustment(9)]))).toBe('JOURNAL_STATE');
      // A failed transaction leaves nothing behind.
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 2, ok: 2 });
      await suite.journal.finishFile(fileId);
      expect(await stateCode(suite.journal.addItems(fileId, [adjustment(3)]))).toBe('JOURNAL_STATE');
      expect(await stateCode(suite.journal.rejectFile(fileId, 'late'))).toBe('JOURNAL_STATE');
    });

    it('records nothing of a batch it refuses: an unknown file, a seq recorded already, a file no longer processing', async () => {
      await expect(testHooks(suite.journal).recordBatch(999_999, EP, [adjustment(0)], { sent: true })).rejects.toThrow(/file 999999 is not in the journal/);
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0), adjustment(1)], { sent: true });
      await expect(testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(1), adjustment(2)], { sent: true })).rejects.toThrow(/item 1 of file \d+ is already in a request/);
      await suite.journal.addItems(fileId, [{ seq: 5, lines: [7], status: 'skipped', messages: ['empty row'] }]);
      await expect(testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(4), adjustment(5)], { sent: true })).rejects.toThrow(/item 5 of file \d+ is already in a request/);
      expect((await suite.journal.resumeState(fileId)).sentRequests.map((r) => r.requestId)).toEqual([id]);
      await suite.journal.completeRequest(id, okOutcomes([0, 1]));
      await suite.journal.finishFile(fileId);
      await expect(testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(7)], { sent: true })).rejects.toThrow(new RegExp(`file ${fileId} is (done|failed), not processing`));
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 3, ok: 2, skipped: 1 });
    });

    it('records a commit\'s requests at once (recordBatches) as one by one, and none when one does not fit', async () => {
      const batch = (seqs: number[]) => {
        const items = seqs.map((s) => adjustment(s));
        return { endpoint: EP, packed: packBatch(EP, items), bodies: JSON.stringify(items.map((i) => i.body)) };
      };
      const sent = async () => (await suite.journal.resumeState(fileId)).sentRequests.map((r) => [r.requestId, r.seqs]);
      const first = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0)], { sent: true });
      await suite.journal.addItems(fileId, [{ seq: 9, lines: [11], status: 'skipped', messages: ['empty row'] }]);
      const refused: Array<[string, Parameters<typeof suite.journal.recordBatches>]> = [
        ['a seq in a block', [fileId, [batch([1, 2]), batch([0, 3])]]],
        ['an item row in a first range', [fileId, [batch([1, 2]), batch([8, 9])]]],
        ['an item row in a later range', [fileId, [batch([1, 2]), batch([7, 9, 12])]]],
        ['two sharing a seq', [fileId, [batch([1, 2]), batch([2, 3])]]],
        ['an unknown file', [999_999, [batch([1, 2])]]],
        ['another endpoint', [fileId, [{ ...batch([1]), endpoint: 'inventory.counts' }]]],
      ];
      for (const [what, args] of refused) expect([what, await stateCode(suite.journal.recordBatches(...args))]).toEqual([what, 'JOURNAL_STATE']);
      await expect(suite.journal.recordBatches(fileId, [batch([1, 2]), batch([7, 9, 12])])).rejects.toThrow(`item 9 of file ${fileId} is already in a request`);
      expect(await sent()).toEqual([[first, [0]]]);

      const ids = await suite.journal.recordBatches(fileId, [batch([1, 2]), batch([3]), batch([4, 6])], { sent: true });
      expect(ids).toHaveLength(3);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(await sent()).toEqual([[first, [0]], [ids[0], [1, 2]], [ids[1], [3]], [ids[2], [4, 6]]]);
      expect((await suite.journal.requestItems(ids[2])).map((i) => [i.seq, JSON.parse(i.body ?? 'null')])).toEqual([[4, adjustment(4).body], [6, adjustment(6).body]]);
      expect(await suite.journal.recordBatches(fileId, [])).toEqual([]);
      const [unsent] = await suite.journal.recordBatches(fileId, [batch([5])]);
      expect((await suite.journal.getRequest(unsent)).status).toBe('pending');
      // An item row between two of a request's ranges (a skipped row between documents of several lines) is not in it.
      const [around] = await suite.journal.recordBatches(fileId, [batch([8, 10])], { sent: true });
      expect((await suite.journal.requestItems(around)).map((i) => i.seq)).toEqual([8, 10]);
      for (const [id, seqs] of [[first, [0]], [ids[0], [1, 2]], [ids[1], [3]], [ids[2], [4, 6]], [unsent, [5]], [around, [8, 10]]] as const) await suite.journal.completeRequest(id, okOutcomes([...seqs]));
      expect(await suite.journal.finishFile(fileId)).toBe('done');
      await expect(suite.journal.recordBatches(fileId, [batch([20])])).rejects.toThrow(`file ${fileId} is done, not processing`);
    });

    it('checks a request of many ranges against the item rows between them: refused for one in a range past the first 64 rows, recorded otherwise', async () => {
      const batch = (seqs: number[]) => {
        const items = seqs.map((s) => adjustment(s));
        return { endpoint: EP, packed: packBatch(EP, items), bodies: JSON.stringify(items.map((i) => i.body)) };
      };
      // Documents of two lines (seqs 0, 2, 4, …) with a skipped row between each two (1, 3, 5, …): 100 item rows in the span.
      await suite.journal.addItems(fileId, Array.from({ length: 100 }, (_, i) => ({ seq: 2 * i + 1, lines: [2 * i + 3], status: 'skipped' as const, messages: ['empty row'] })));
      await suite.journal.addItems(fileId, [{ seq: 180, lines: [182], status: 'skipped', messages: ['empty row'] }]);
      const even = Array.from({ length: 100 }, (_, i) => 2 * i);
      await expect(suite.journal.recordBatches(fileId, [batch(even)])).rejects.toThrow(`item 180 of file ${fileId} is already in a request`);
      await expect(testHooks(suite.journal).recordBatch(fileId, EP, even.map((s) => adjustment(s)))).rejects.toThrow(`item 180 of file ${fileId} is already in a request`);
      const kept = even.filter((s) => s !== 180);
      const [id] = await suite.journal.recordBatches(fileId, [batch(kept)]);
      expect((await suite.journal.requestItems(id)).map((i) => i.seq)).toEqual(kept);
    });

    it('names what is not in the journal: a file, a request, an export', async () => {
      await expect(suite.journal.getFile(999_999)).rejects.toThrow(/file 999999 is not in the journal/);
      await expect(suite.journal.getRequest(999_999)).rejects.toThrow(/request 999999 is not in the journal/);
      await expect(suite.journal.getExport(999_999)).rejects.toThrow(/export 999999 is not in the journal/);
      expect(await stateCode(suite.journal.addItems(999_999, [adjustment(0)]))).toBe('JOURNAL_STATE');
      expect(await stateCode(suite.journal.markSent(999_999))).toBe('JOURNAL_STATE');
    });

    it('keeps rows the mapping rejected as items with their message and never sends them', async () => {
      await suite.journal.addItems(fileId, [
        adjustment(0),
        { seq: 1, docKey: 'SKU-?', lines: [3], status: 'error', messages: ['quantity is not a number'] },
        { seq: 2, lines: [4], status: 'skipped', messages: ['empty row'] },
      ]);
      expect(await stateCode(suite.journal.recordRequest(fileId, EP, [1]))).toBe('JOURNAL_STATE');
      const [bad] = await suite.journal.failedItems(fileId);
      expect(bad).toMatchObject({ seq: 1, rejected: true, status: 'error', messages: ['quantity is not a number'] });
      expect(await collect(suite.journal.retryable(fileId))).toEqual([]);
    });

    it('records addItems idempotently: a re-run of the same file keeps the first recording', async () => {
      expect(await suite.journal.addItems(fileId, [adjustment(0), adjustment(1)])).toBe(2);
      expect(await suite.journal.addItems(fileId, [adjustment(1), adjustment(2)])).toBe(1);
      expect((await testHooks(suite.journal).itemsInRange(fileId, 0, 10)).map((i) => i.seq)).toEqual([0, 1, 2]);
    });
  });
}
