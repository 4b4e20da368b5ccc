import { describe, expect, it } from 'vitest';
import { packOkOutcomes } from '../../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes } from '../../../src/journal/test-support.js';
import { EP, collect, stateCode, itemRows, type Suite } from './support.js';
import { testHooks } from '../../../src/journal/testing.js';

export function describeOutcomes(suite: Suite): void {
  describe('outcomes and result reading', () => {
    it('streams one outcome per input line in line order, also for non-contiguous items', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('ship.csv', 'abc'));
      const ship = (seq: number, lines: number[], key: string) =>
        ({ seq, endpoint: 'customer-shipments.ship', docKey: key, lines, body: { id: seq } });
      await suite.journal.addItems(fileId, [
        ship(0, [2, 5], 'SO-1'),
        ship(1, [3, 4], 'SO-2'),
        { seq: 2, docKey: 'SO-3', lines: [6], status: 'error', messages: ['missing id'] },
        ship(3, [7], 'SO-4'),
      ]);
      const id = await suite.journal.recordRequest(fileId, 'customer-shipments.ship', [0, 1, 3]);
      await suite.journal.markSent(id);
      await suite.journal.completeRequest(id, [
        { seq: 0, status: 'ok', result: { shipped_at: '2026-03-01T09:00:00Z' } },
        { seq: 1, status: 'error', messages: ['line 9 unknown'] },
        { seq: 3, status: 'ok' },
      ]);
      const lines = (await collect(suite.journal.iterateLineOutcomes(fileId))).map((o) => [o.line, o.docKey, o.status, o.result, o.messages]);
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
      const { fileId } = await suite.journal.claimFile(claimInput('big.csv', 'abc'));
      const items = Array.from({ length: 4500 }, (_, s) => adjustment(s));
      for (let s = 0; s < items.length; s += 500) {
        const id = await testHooks(suite.journal).recordBatch(fileId, EP, items.slice(s, s + 500));
        await suite.journal.markSent(id);
        await suite.journal.completeRequest(id, okOutcomes(items.slice(s, s + 500).map((i) => i.seq)));
      }
      let expected = 2;
      let count = 0;
      for await (const outcome of suite.journal.iterateLineOutcomes(fileId)) {
        expect(outcome.line).toBe(expected++);
        if (count++ % 1000 === 0) await suite.journal.setCursor('interleaved', String(count));
        if (outcome.seq === 4499) expect(outcome.result).toEqual({ move_id: 1000 + 4499 });
      }
      expect(count).toBe(4500);
      expect(await testHooks(suite.journal).itemsInRange(fileId, 1000, 3999)).toHaveLength(3000);
    });

    it('reads what the service returned per item (resultOf) and per request (resultList), packed or given item by item', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('results.csv', 'abc'));
      const given = await testHooks(suite.journal).recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
      expect(await testHooks(suite.journal).resultOf(given, 0)).toBeNull(); // nothing before the outcome
      await suite.journal.completeRequest(given, [
        { seq: 0, status: 'ok', result: { move_id: 10, lines: [{ sku: 'A', qty: 1.5 }] } },
        { seq: 1, status: 'ok' },
        { seq: 2, status: 'error', messages: ['unknown product'] },
      ]);
      expect(await testHooks(suite.journal).resultOf(given, 0)).toEqual({ move_id: 10, lines: [{ sku: 'A', qty: 1.5 }] });
      expect(await testHooks(suite.journal).resultOf(given, 1)).toBeNull();
      expect(await testHooks(suite.journal).resultOf(given, 2)).toBeNull();
      expect(await testHooks(suite.journal).resultOf(null, 0)).toBeNull();
      expect(await testHooks(suite.journal).resultList(given)).toEqual([[0, { move_id: 10, lines: [{ sku: 'A', qty: 1.5 }] }]]);

      const packed = await testHooks(suite.journal).recordBatch(fileId, EP, [3, 4].map((s) => adjustment(s)), { sent: true });
      await suite.journal.completeRequest(packed, packOkOutcomes([{ seq: 4, status: 'ok', result: { move_id: 14 } }, { seq: 3, status: 'ok', result: 'text' }])!);
      expect(await testHooks(suite.journal).resultList(packed)).toEqual([[4, { move_id: 14 }], [3, 'text']]); // in outcome order
      expect(await testHooks(suite.journal).resultOf(packed, 3)).toBe('text');
      const empty = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(5)], { sent: true });
      await suite.journal.completeRequest(empty, packOkOutcomes([{ seq: 5, status: 'ok' }])!);
      expect(await testHooks(suite.journal).resultList(empty)).toEqual([]);
      expect(await suite.journal.fileSummary(fileId)).toEqual({ fileId, total: 6, pending: 0, sent: 0, ok: 5, error: 1, uncertain: 0, skipped: 0 });
      expect((await suite.journal.requestItems(given)).map((i) => [i.seq, i.status, i.result])).toEqual([
        [0, 'ok', { move_id: 10, lines: [{ sku: 'A', qty: 1.5 }] }], [1, 'ok', null], [2, 'error', null],
      ]);
    });

    it('stores several all-ok requests at once (completeRequests) as one by one, and refuses them all when one does not fit', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('adj.csv', 'abc'));
      const record = (seqs: number[]) => testHooks(suite.journal).recordBatch(fileId, EP, seqs.map((s) => adjustment(s)), { sent: true });
      const [a, b, c] = [await record([0, 1]), await record([2]), await record([3, 4])];
      const okA = packOkOutcomes([{ seq: 0, status: 'ok', result: { move_id: 10 } }, { seq: 1, status: 'ok' }])!;
      const okB = packOkOutcomes([{ seq: 2, status: 'ok' }])!;
      const okC = packOkOutcomes([{ seq: 3, status: 'ok' }, { seq: 4, status: 'ok', result: { move_id: 14 } }])!;
      // One that does not fit (a wrong count, a request finished already, an unknown one) refuses all, naming it.
      await expect(suite.journal.completeRequests([{ requestId: a, outcomes: okA }, { requestId: c, outcomes: okB }]))
        .rejects.toThrow(`request ${c} has 2 items but 1 outcomes were given`);
      await suite.journal.completeRequest(b, okB);
      await expect(suite.journal.completeRequests([{ requestId: a, outcomes: okA }, { requestId: b, outcomes: okB }])).rejects.toThrow(`request ${b} is already done`);
      await expect(suite.journal.completeRequests([{ requestId: 999_999, outcomes: okB }, { requestId: a, outcomes: okA }])).rejects.toThrow('request 999999 is not in the journal');
      await expect(suite.journal.completeRequests([{ requestId: a, outcomes: okA }, { requestId: a, outcomes: okA }])).rejects.toThrow(`request ${a} is listed twice`);
      expect((await suite.journal.getRequest(a)).status).toBe('sent');
      expect((await suite.journal.getRequest(c)).status).toBe('sent');

      await suite.journal.completeRequests([{ requestId: c, outcomes: okC }, { requestId: a, outcomes: okA }]);
      expect([(await suite.journal.getRequest(a)).status, (await suite.journal.getRequest(c)).status]).toEqual(['done', 'done']);
      expect(await testHooks(suite.journal).resultList(a)).toEqual([[0, { move_id: 10 }]]);
      expect(await testHooks(suite.journal).resultList(c)).toEqual([[4, { move_id: 14 }]]);
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 5, ok: 5, sent: 0 });
      await suite.journal.completeRequests([]);
    });

    it('keeps only exceptions and rejected rows as item rows, and reads both back in line order', async () => {
      const ship = (seq: number, lines: number[], key: string) =>
        ({ seq, endpoint: 'customer-shipments.ship', docKey: key, lines, body: { id: seq, key } });
      const { fileId } = await suite.journal.claimFile(claimInput('mixed.csv', 'abc'));
      // Two interleaved requests (grouped documents may complete out of line order), a rejected row between them,
      // a document spread over non-contiguous lines, and one that comes back with an error.
      await suite.journal.addItems(fileId, [{ seq: 4, docKey: 'SO-X', lines: [4], status: 'error', messages: ['no id'] }]);
      const a = await testHooks(suite.journal).recordBatch(fileId, 'customer-shipments.ship', [ship(2, [2, 6], 'SO-1'), ship(7, [7], 'SO-3')], { sent: true });
      const b = await testHooks(suite.journal).recordBatch(fileId, 'customer-shipments.ship', [ship(3, [3, 5], 'SO-2'), ship(8, [8], 'SO-4')], { sent: true });
      await suite.journal.completeRequest(a, [{ seq: 2, status: 'ok', result: { shipped_at: '2026-03-01T09:00:00Z' } }, { seq: 7, status: 'error', messages: ['closed'] }]);
      expect((await collect(suite.journal.iterateLineOutcomes(fileId))).map((o) => [o.line, o.docKey, o.status])).toEqual([
        [2, 'SO-1', 'ok'], [3, 'SO-2', 'sent'], [4, 'SO-X', 'error'], [5, 'SO-2', 'sent'], [6, 'SO-1', 'ok'],
        [7, 'SO-3', 'error'], [8, 'SO-4', 'sent'],
      ]);
      await suite.journal.completeRequest(b, [{ seq: 3, status: 'ok' }, { seq: 8, status: 'ok' }]);
      const outcomes = await collect(suite.journal.iterateLineOutcomes(fileId));
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
      expect((await itemRows(suite.journal, fileId)).map(({ seq, status, body }) => ({ seq, status, body })))
        .toEqual([{ seq: 4, status: 'error', body: null }, { seq: 7, status: 'error', body: '{"id":7,"key":"SO-3"}' }]);
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 5, ok: 3, error: 2 });
      expect((await suite.journal.failedItems(fileId)).map((i) => [i.seq, i.requestId, i.rejected])).toEqual([[4, null, true], [7, a, false]]);
      expect((await collect(suite.journal.retryable(fileId))).map((i) => [i.seq, i.body])).toEqual([[7, '{"id":7,"key":"SO-3"}']]);
      expect((await suite.journal.requestItems(a)).map((i) => [i.seq, i.status, i.itemId === null])).toEqual([[2, 'ok', true], [7, 'error', false]]);
      const state = await suite.journal.resumeState(fileId);
      expect([2, 3, 4, 5, 7, 8, 9].map((s) => state.classify(s))).toEqual(['finished', 'finished', 'finished', 'unsent', 'finished', 'finished', 'unsent']);
    });

    it('re-drives an error copied out of a block and resolves an uncertain one without touching the ok items', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('adj.csv', 'abc'));
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
      await suite.journal.completeRequest(id, [
        { seq: 0, status: 'ok', result: { move_id: 10 } },
        { seq: 1, status: 'error', messages: ['insufficient stock'] },
        { seq: 2, status: 'uncertain', messages: ['timeout'], hint: 'check SKU-2' },
      ]);
      expect(await suite.journal.finishFile(fileId)).toBe('failed');
      await suite.journal.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'applied', note: 'seen in the service', by: 'ops' });
      const attempt = await suite.journal.beginRedrive(fileId);
      const again = await suite.journal.recordRequest(fileId, EP, [1], { attempt });
      await suite.journal.markSent(again);
      await suite.journal.completeRequest(again, [{ seq: 1, status: 'ok', result: { move_id: 11 } }]);
      expect(await suite.journal.finishFile(fileId)).toBe('done');
      expect((await collect(suite.journal.iterateLineOutcomes(fileId))).map((o) => [o.line, o.status, o.result])).toEqual([
        [2, 'ok', { move_id: 10 }], [3, 'ok', { move_id: 11 }], [4, 'ok', null],
      ]);
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 3, ok: 3, error: 0, uncertain: 0 });
    });

    it('refuses a seq already in another block, naming it, and leaves nothing behind', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('dup.csv', 'abc'));
      await testHooks(suite.journal).recordBatch(fileId, EP, [10, 11, 12].map((s) => adjustment(s)));
      await expect(testHooks(suite.journal).recordBatch(fileId, EP, [8, 9, 12, 13].map((s) => adjustment(s)))).rejects.toThrow(/item 12 of file/);
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 3, pending: 3 });
      // No block of the refused request: its seqs 8, 9 and 13 are nowhere.
      expect((await testHooks(suite.journal).itemsInRange(fileId, 0, 20)).map((i) => i.seq)).toEqual([10, 11, 12]);
      expect((await suite.journal.resumeState(fileId)).maxSeq).toBe(12);
    });
  });

  describe('result names, dispositions and file events', () => {
    it('keeps each file\'s own result name and disposition, also for two files of the same name, across a restart', async () => {
      const first = await suite.journal.claimFile(claimInput('ACK_SO_20261120.csv', 'so-1001'));
      expect(await suite.journal.getFile(first.fileId)).toMatchObject({ resultName: null, disposedTo: null });
      await suite.journal.recordResultName(first.fileId, 'ACK_SO_20261120.result.csv');
      await suite.journal.finishFile(first.fileId);
      await suite.journal.recordDisposition(first.fileId, 'archive/ACK_SO_20261120.csv');
      const second = await suite.journal.claimFile(claimInput('ACK_SO_20261120.csv', 'so-1002'));
      expect(second.status).toBe('new');
      await suite.journal.recordResultName(second.fileId, 'ACK_SO_20261120.20261120T101500000Z.result.csv');
      await suite.reopen();
      expect(await suite.journal.getFile(first.fileId)).toMatchObject({
        name: 'ACK_SO_20261120.csv', resultName: 'ACK_SO_20261120.result.csv', disposedTo: 'archive/ACK_SO_20261120.csv',
      });
      expect(await suite.journal.getFile(second.fileId)).toMatchObject({
        name: 'ACK_SO_20261120.csv', resultName: 'ACK_SO_20261120.20261120T101500000Z.result.csv', disposedTo: null,
      });
      expect((await suite.journal.latestFileNamed('ACK_SO_20261120.csv'))?.fileId).toBe(second.fileId);
      await suite.journal.recordDisposition(second.fileId, 'error/ACK_SO_20261120.20261120T101600000Z.csv');
      expect((await suite.journal.getFile(second.fileId)).disposedTo).toBe('error/ACK_SO_20261120.20261120T101600000Z.csv');
      expect((await suite.journal.getFile(first.fileId)).resultName).toBe('ACK_SO_20261120.result.csv');
      expect(await stateCode(suite.journal.recordResultName(999_999, 'x.result.csv'))).toBe('JOURNAL_STATE');
      expect(await stateCode(suite.journal.recordDisposition(999_999, 'archive/x.csv'))).toBe('JOURNAL_STATE');
    });

    it('keeps an X12 file\'s acknowledgement as recorded, across a restart', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('NWL_945.edi', 'edi'));
      expect((await suite.journal.getFile(fileId)).x12Ack).toBeNull();
      const ack = JSON.stringify({ name: 'NWL_945.ack.edi', replies: [{ interchange: 7, group: 7, firstSet: 1 }] });
      await suite.journal.recordX12Ack(fileId, ack);
      await suite.reopen();
      expect((await suite.journal.getFile(fileId)).x12Ack).toBe(ack);
      expect(await stateCode(suite.journal.recordX12Ack(999_999, ack))).toBe('JOURNAL_STATE');
    });

    it('a duplicate is unfinished until its disposition is recorded; a file rejected unread never is', async () => {
      const { fileId } = (await suite.journal.claimFile(claimInput('KORR.csv', 'c1'))) as { fileId: number };
      const recorded = await suite.journal.recordFileEvent({ drop: 'wms', name: 'KORR.csv', kind: 'duplicate', originalFileId: fileId, reason: 'same bytes', resultName: 'KORR.1.result.csv' });
      const id = recorded.eventId;
      await suite.journal.recordFileEvent({ drop: 'wms', name: 'BAD.csv', kind: 'rejected', reason: 'FILE_NAME' });
      expect((await suite.journal.fileEventsNamed('KORR.csv'))[0]).toEqual(recorded);
      expect(recorded).toMatchObject({ kind: 'duplicate', resultName: 'KORR.1.result.csv', disposedTo: null });
      expect((await suite.journal.fileEventsNamed('BAD.csv'))[0]).toMatchObject({ kind: 'rejected', disposedTo: 'unknown' });
      await suite.journal.recordEventDisposition(id, 'archive/KORR.1.csv');
      expect((await suite.journal.fileEventsNamed('KORR.csv'))[0].disposedTo).toBe('archive/KORR.1.csv');
    });

    it('an unfinished duplicate is found again after a restart, the latest one first', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('STOCK.csv', 'stock'));
      await suite.journal.finishFile(fileId);
      const older = await suite.journal.recordFileEvent({ drop: 'wms', name: 'STOCK.csv', kind: 'duplicate', originalFileId: fileId, resultName: 'STOCK.1.result.csv' });
      await suite.journal.recordEventDisposition(older.eventId, 'archive/STOCK.1.csv');
      const newer = await suite.journal.recordFileEvent({ drop: 'wms', name: 'STOCK.csv', kind: 'duplicate', originalFileId: fileId, resultName: 'STOCK.2.result.csv' });
      await suite.reopen(); // a crash between the result file and the move
      expect(await suite.journal.claimDuplicate({ drop: 'wms', name: 'STOCK.csv', originalFileId: fileId, reason: 'same bytes', resultName: 'STOCK.3.result.csv' }))
        .toEqual({ status: 'resume', event: newer });
      expect(await suite.journal.countFileEvents()).toBe(2);
      expect((await suite.journal.recentFileEvents(10)).map((e) => [e.eventId, e.disposedTo])).toEqual([[newer.eventId, null], [older.eventId, 'archive/STOCK.1.csv']]);
    });
  });
}
