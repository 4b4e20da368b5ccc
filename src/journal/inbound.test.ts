import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../errors.js';
import { openJournal, packBatch, packOkOutcomes, SCHEMA_VERSION, type ItemOutcome, type Journal } from './index.js';
import { adjustment, claimInput, okOutcomes, useTestJournal, type TempDir, rawDatabase } from './test-support.js';

let tmp: TempDir;
let journal: Journal;
useTestJournal((j, t) => {
  journal = j;
  tmp = t;
});

const stateCode = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return isWisbridgeError(error) ? error.code : 'other';
  }
  return undefined;
};

describe('opening', () => {
  it('sets WAL, synchronous=FULL, foreign keys and a busy timeout, and records the schema version', () => {
    expect(rawDatabase(journal).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(rawDatabase(journal).pragma('synchronous', { simple: true })).toBe(2);
    expect(rawDatabase(journal).pragma('foreign_keys', { simple: true })).toBe(1);
    expect(rawDatabase(journal).pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(5000);
    expect(journal.schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
  });

  it('reopens without migrating again and refuses a journal from a newer bridge', () => {
    journal.close();
    journal = openJournal(tmp.path);
    const versions = rawDatabase(journal).prepare('SELECT count(*) FROM schema_version').pluck().get();
    expect(versions).toBe(SCHEMA_VERSION);
    journal.close();
    const raw = new Database(tmp.path);
    raw.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION + 1, 'x');
    raw.close();
    expect(() => openJournal(tmp.path)).toThrow(/newer than this bridge/);
    journal = openJournal(`${tmp.path}.other`);
  });

  it('checkpoints the WAL on close', () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1'));
    journal.addItems(fileId, [adjustment(0)]);
    journal.close();
    const raw = new Database(tmp.path);
    expect(raw.prepare('SELECT count(*) FROM items').pluck().get()).toBe(1);
    raw.close();
    journal = openJournal(tmp.path);
  });
});

describe('claiming files by checksum', () => {
  it('claims a new file, then reports the same bytes under another name as a duplicate', () => {
    const first = journal.claimFile(claimInput('adj-monday.csv', 'abc'));
    expect(first).toMatchObject({ status: 'new', generation: 1 });
    if (first.status !== 'new') throw new Error('unreachable');
    journal.addItems(first.fileId, [adjustment(0)]);
    const id = journal.recordRequest(first.fileId, 'inventory.adjustments', [0]);
    journal.markSent(id);
    journal.completeRequest(id, okOutcomes([0]));
    expect(journal.finishFile(first.fileId)).toBe('done');

    const again = journal.claimFile(claimInput('adj-monday-copy.csv', 'abc'));
    expect(again).toMatchObject({ status: 'duplicate', fileId: first.fileId, previousName: 'adj-monday.csv', previousStatus: 'done' });
    expect(again.status === 'duplicate' && again.finishedAt).toBeTruthy();
    expect(journal.claimFile(claimInput('other.csv', 'def')).status).toBe('new');
  });

  it('force creates a new claim generation and keeps the earlier one', () => {
    const first = journal.claimFile(claimInput('a.csv', 'abc'));
    journal.rejectFile(first.fileId, 'no header');
    // A rejected file whose rows never reached the service is not a duplicate.
    const second = journal.claimFile(claimInput('a.csv', 'abc'));
    expect(second).toMatchObject({ status: 'new', generation: 2 });
    journal.finishFile(second.fileId);
    expect(journal.claimFile(claimInput('a.csv', 'abc')).status).toBe('duplicate');
    const forced = journal.claimFile({ ...claimInput('a.csv', 'abc'), force: true });
    expect(forced).toMatchObject({ status: 'new', generation: 3 });
    expect(forced.fileId).not.toBe(second.fileId);
    expect(journal.getFile(second.fileId).status).toBe('done');
    expect(journal.getFile(first.fileId)).toMatchObject({ status: 'rejected', reason: 'no header' });
  });

  it('counts a rejected file as processed once some of it reached the service', () => {
    const first = journal.claimFile(claimInput('a.csv', 'abc'));
    journal.markSent(journal.recordBatch(first.fileId, 'inventory.adjustments', [adjustment(0)]));
    journal.rejectFile(first.fileId, 'encoding error at line 900');
    expect(journal.claimFile(claimInput('a.csv', 'abc'))).toMatchObject({ status: 'duplicate', previousStatus: 'rejected' });
  });

  it('resumes a file still processing and abandons its requests that were never sent', () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'abc'));
    const sentId = journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)]);
    journal.markSent(sentId);
    const unsentId = journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(2)]);
    const resumed = journal.claimFile(claimInput('renamed.csv', 'abc'));
    expect(resumed).toEqual({ status: 'resume', fileId, generation: 1 });
    expect(journal.getRequest(unsentId)).toMatchObject({ status: 'abandoned', sentAt: null });
    // When it was sent: reading back (settle.ts) looks for changes from then on.
    expect(journal.getRequest(sentId)).toMatchObject({ status: 'sent', sentAt: expect.stringMatching(/^2026-03-01T08:00:\d\d\.000Z$/) });
    // The abandoned item can go out in a new request.
    const again = journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(2)]);
    expect(journal.requestItems(again).map((i) => i.seq)).toEqual([2]);
  });
});

describe('items and requests', () => {
  let fileId: number;
  beforeEach(() => {
    fileId = journal.claimFile(claimInput('a.csv', 'abc')).fileId;
  });

  it('walks pending → sent → ok / error / uncertain and derives the request status', () => {
    journal.addItems(fileId, [adjustment(0), adjustment(1), adjustment(2), adjustment(3)]);
    const id = journal.recordRequest(fileId, 'inventory.adjustments', [0, 1, 2]);
    expect(journal.requestItems(id).map((i) => i.status)).toEqual(['pending', 'pending', 'pending']);
    journal.markSent(id);
    expect(journal.requestItems(id).map((i) => i.status)).toEqual(['sent', 'sent', 'sent']);
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 4, pending: 1, sent: 3 });
    const status = journal.completeRequest(id, [
      { seq: 0, status: 'ok', result: { move_id: 7 } },
      { seq: 1, status: 'error', messages: ['unknown product'] },
      { seq: 2, status: 'uncertain', hint: 'check move of SKU-2' },
    ]);
    expect(status).toBe('uncertain');
    const items = journal.requestItems(id);
    expect(items.map((i) => [i.status, i.result, i.messages, i.hint])).toEqual([
      ['ok', { move_id: 7 }, [], null],
      ['error', null, ['unknown product'], null],
      ['uncertain', null, [], 'check move of SKU-2'],
    ]);
    expect(journal.getRequest(id).status).toBe('uncertain');
    const second = journal.recordRequest(fileId, 'inventory.adjustments', [3]);
    journal.markSent(second);
    expect(journal.completeRequest(second, [{ seq: 3, status: 'error', messages: ['x'] }])).toBe('failed');
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 4, ok: 1, error: 2, uncertain: 1, pending: 0, sent: 0 });
    expect(journal.finishFile(fileId)).toBe('failed');
    expect(journal.getFile(fileId).summary).toMatchObject({ ok: 1, error: 2, uncertain: 1 });
  });

  it('records a batch already marked sent in one commit when asked', () => {
    const id = journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)], { sent: true });
    expect(journal.getRequest(id).status).toBe('sent');
    expect(journal.requestItems(id).map((i) => i.status)).toEqual(['sent', 'sent']);
    expect(() => journal.markSent(id)).toThrow(/not pending/);
    expect(journal.resumeState(fileId).classify(1)).toBe('sent');
  });

  it('releases a request that never reached the service: its items can be sent again', () => {
    const id = journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)], { sent: true });
    journal.releaseRequest(id);
    expect(journal.getRequest(id).status).toBe('abandoned');
    // Its items are no longer recorded at all (the file maps them again), so nothing reads as in flight.
    expect(journal.resumeState(fileId).counts).toEqual({ finished: 0, sent: 0, unsent: 0 });
    expect(journal.resumeState(fileId).classify(1)).toBe('unsent');
    expect(() => journal.completeRequest(id, okOutcomes([0, 1]))).toThrow(/already abandoned/);
    const again = journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)]);
    journal.markSent(again);
    journal.completeRequest(again, okOutcomes([0, 1]));
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 2, ok: 2 });
  });

  it('records large batches in chunks and names the item already in a request, leaving nothing behind', () => {
    const seqs = Array.from({ length: 137 }, (_, i) => i);
    const first = journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(75)]);
    const error = (() => {
      try {
        journal.recordBatch(fileId, 'inventory.adjustments', seqs.map((s) => adjustment(s)));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isWisbridgeError(error, 'JOURNAL_STATE') && error.message).toContain('item 75 ');
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 1, pending: 1 });
    journal.markSent(first);
    journal.completeRequest(first, okOutcomes([75]));
    const rest = seqs.filter((s) => s !== 75);
    const id = journal.recordBatch(fileId, 'inventory.adjustments', rest.map((s) => adjustment(s)), { sent: true });
    expect(journal.requestItems(id).map((i) => [i.seq, i.status])).toEqual(rest.map((s) => [s, 'sent']));
    journal.completeRequest(id, okOutcomes(rest));
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 137, ok: 137 });
  });

  it('stores a request packed ahead (packBatch, packOkOutcomes) as it stores one given item by item', () => {
    const items = [adjustment(0), adjustment(1, { lines: [3, 4] }), adjustment(3, { lines: [5] })];
    const packed = packBatch('inventory.adjustments', items);
    expect(packed).toMatchObject({ endpoint: 'inventory.adjustments', count: 3, ranges: [[0, 1], [3, 3]], firstLine: 2 });
    expect(stateCode(() => journal.recordBatch(fileId, 'inventory.counts', packed))).toBe('JOURNAL_STATE');
    expect(stateCode(() => journal.recordBatch(fileId, 'inventory.adjustments', packed))).toBe('JOURNAL_STATE'); // no bodies
    const bodies = JSON.stringify(items.map((i) => i.body));
    const id = journal.recordBatch(fileId, 'inventory.adjustments', packed, { sent: true, bodies });
    expect(stateCode(() => journal.recordBatch(fileId, 'inventory.adjustments', packBatch('inventory.adjustments', [adjustment(3)]), { bodies: '[{}]' })))
      .toBe('JOURNAL_STATE'); // seq 3 is already in a request
    expect(packOkOutcomes([...okOutcomes([0]), { seq: 1, status: 'error', messages: ['x'] }])).toBeUndefined();
    const outcomes: ItemOutcome[] = [{ seq: 0, status: 'ok', result: { move_id: 70 } }, { seq: 1, status: 'ok' }, { seq: 3, status: 'ok', result: { move_id: 73 } }];
    const ok = packOkOutcomes(outcomes)!;
    expect(stateCode(() => journal.completeRequest(id, { ...ok, ok: 2 }))).toBe('JOURNAL_STATE');
    expect(journal.completeRequest(id, ok)).toBe('done');
    expect(stateCode(() => journal.completeRequest(id, ok))).toBe('JOURNAL_STATE');
    expect([...journal.iterateLineOutcomes(fileId)].map((o) => [o.line, o.docKey, o.status, o.result])).toEqual([
      [2, 'SKU-0', 'ok', { move_id: 70 }], [3, 'SKU-1', 'ok', null], [4, 'SKU-1', 'ok', null], [5, 'SKU-3', 'ok', { move_id: 73 }],
    ]);
    expect(journal.requestItems(id).map((i) => JSON.parse(i.body ?? 'null'))).toEqual(items.map((i) => i.body));
  });

  it('refuses transitions that do not fit the recorded state', () => {
    const id = journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)]);
    expect(stateCode(() => journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(1)]))).toBe('JOURNAL_STATE');
    expect(stateCode(() => journal.completeRequest(id, okOutcomes([0])))).toBe('JOURNAL_STATE');
    expect(stateCode(() => journal.completeRequest(id, okOutcomes([0, 5])))).toBe('JOURNAL_STATE');
    expect(stateCode(() => journal.completeRequest(id, okOutcomes([0, 0])))).toBe('JOURNAL_STATE');
    expect(stateCode(() => journal.finishFile(fileId))).toBe('JOURNAL_STATE');
    journal.markSent(id);
    expect(stateCode(() => journal.markSent(id))).toBe('JOURNAL_STATE');
    journal.completeRequest(id, okOutcomes([0, 1]));
    expect(stateCode(() => journal.completeRequest(id, okOutcomes([0, 1])))).toBe('JOURNAL_STATE');
    expect(stateCode(() => journal.recordRequest(fileId, 'inventory.adjustments', [0]))).toBe('JOURNAL_STATE');
    expect(stateCode(() => journal.recordBatch(fileId, 'inventory.counts', [adjustment(9)]))).toBe('JOURNAL_STATE');
    // A failed transaction leaves nothing behind.
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 2, ok: 2 });
    journal.finishFile(fileId);
    expect(stateCode(() => journal.addItems(fileId, [adjustment(3)]))).toBe('JOURNAL_STATE');
    expect(stateCode(() => journal.rejectFile(fileId, 'late'))).toBe('JOURNAL_STATE');
  });

  it('keeps rows the mapping rejected as items with their message and never sends them', () => {
    journal.addItems(fileId, [
      adjustment(0),
      { seq: 1, docKey: 'SKU-?', lines: [3], status: 'error', messages: ['quantity is not a number'] },
      { seq: 2, lines: [4], status: 'skipped', messages: ['empty row'] },
    ]);
    expect(stateCode(() => journal.recordRequest(fileId, 'inventory.adjustments', [1]))).toBe('JOURNAL_STATE');
    const [bad] = journal.failedItems(fileId);
    expect(bad).toMatchObject({ seq: 1, rejected: true, status: 'error', messages: ['quantity is not a number'] });
    expect([...journal.retryable(fileId)]).toEqual([]);
  });

  it('records addItems idempotently: a re-run of the same file keeps the first recording', () => {
    expect(journal.addItems(fileId, [adjustment(0), adjustment(1)])).toBe(2);
    expect(journal.addItems(fileId, [adjustment(1), adjustment(2)])).toBe(1);
    expect([...journal.itemsInRange(fileId, 0, 10)].map((i) => i.seq)).toEqual([0, 1, 2]);
  });

  it('shares one commit across calls with transaction() and rolls all back on error', () => {
    expect(() => journal.transaction(() => {
      journal.addItems(fileId, [adjustment(0)]);
      journal.recordRequest(fileId, 'inventory.adjustments', [0, 1]);
    })).toThrow(/only 1 of the 2/);
    expect(journal.fileSummary(fileId).total).toBe(0);
    const id = journal.transaction(() => {
      journal.addItems(fileId, [adjustment(0)]);
      return journal.recordRequest(fileId, 'inventory.adjustments', [0]);
    });
    expect(journal.getRequest(id)).toMatchObject({ seqs: [0], status: 'pending', attempt: 1 });
  });
});

describe('resume classification', () => {
  it('tells finished, sent and never-sent seqs apart and lists the requests in flight', () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'abc'));
    const done = journal.recordBatch(fileId, 'inventory.adjustments', [0, 1, 2, 3].map((s) => adjustment(s)));
    journal.markSent(done);
    journal.completeRequest(done, [...okOutcomes([0, 1, 3]), { seq: 2, status: 'error', messages: ['x'] }]);
    const inFlight = journal.recordBatch(fileId, 'inventory.adjustments', [4, 5].map((s) => adjustment(s)));
    journal.markSent(inFlight);
    journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(6)]);
    journal.addItems(fileId, [adjustment(7), { seq: 8, lines: [10], status: 'skipped' }]);

    const state = journal.resumeState(fileId);
    expect(state.maxSeq).toBe(8);
    expect(state.counts).toEqual({ finished: 5, sent: 2, unsent: 2 });
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((s) => state.classify(s))).toEqual([
      'finished', 'finished', 'finished', 'finished', 'sent', 'sent', 'unsent', 'unsent', 'finished', 'unsent',
    ]);
    expect(state.sentRequests).toEqual([expect.objectContaining({ requestId: inFlight, seqs: [4, 5], endpoint: 'inventory.adjustments' })]);
    expect(journal.requestItems(inFlight).map((i) => JSON.parse(i.body ?? 'null').reference)).toEqual(['ADJ-4', 'ADJ-5']);
    // The caller settles the request in flight: here an uncertain adjustment and a read-back ok.
    journal.completeRequest(inFlight, [{ seq: 4, status: 'uncertain', hint: 'check SKU-4' }, ...okOutcomes([5])]);
    expect(journal.resumeState(fileId).classify(4)).toBe('finished');
  });
});

describe('line outcomes for the result file', () => {
  it('streams one outcome per input line in line order, also for non-contiguous items', () => {
    const { fileId } = journal.claimFile(claimInput('ship.csv', 'abc'));
    const ship = (seq: number, lines: number[], key: string) =>
      ({ seq, endpoint: 'customer-shipments.ship', docKey: key, lines, body: { id: seq } });
    journal.addItems(fileId, [
      ship(0, [2, 5], 'SO-1'),
      ship(1, [3, 4], 'SO-2'),
      { seq: 2, docKey: 'SO-3', lines: [6], status: 'error', messages: ['missing id'] },
      ship(3, [7], 'SO-4'),
    ]);
    const id = journal.recordRequest(fileId, 'customer-shipments.ship', [0, 1, 3]);
    journal.markSent(id);
    journal.completeRequest(id, [
      { seq: 0, status: 'ok', result: { shipped_at: '2026-03-01T09:00:00Z' } },
      { seq: 1, status: 'error', messages: ['line 9 unknown'] },
      { seq: 3, status: 'ok' },
    ]);
    const lines = [...journal.iterateLineOutcomes(fileId)].map((o) => [o.line, o.docKey, o.status, o.result, o.messages]);
    expect(lines).toEqual([
      [2, 'SO-1', 'ok', { shipped_at: '2026-03-01T09:00:00Z' }, []],
      [3, 'SO-2', 'error', null, ['line 9 unknown']],
      [4, 'SO-2', 'error', null, ['line 9 unknown']],
      [5, 'SO-1', 'ok', { shipped_at: '2026-03-01T09:00:00Z' }, []],
      [6, 'SO-3', 'error', null, ['missing id']],
      [7, 'SO-4', 'ok', null, []],
    ]);
  });

  it('pages through many items while other writes happen between yields', () => {
    const { fileId } = journal.claimFile(claimInput('big.csv', 'abc'));
    const items = Array.from({ length: 4500 }, (_, s) => adjustment(s));
    for (let s = 0; s < items.length; s += 500) {
      const id = journal.recordBatch(fileId, 'inventory.adjustments', items.slice(s, s + 500));
      journal.markSent(id);
      journal.completeRequest(id, okOutcomes(items.slice(s, s + 500).map((i) => i.seq)));
    }
    let expected = 2;
    let count = 0;
    for (const outcome of journal.iterateLineOutcomes(fileId)) {
      expect(outcome.line).toBe(expected++);
      if (count++ % 1000 === 0) journal.setCursor('interleaved', String(count));
      if (outcome.seq === 4499) expect(outcome.result).toEqual({ move_id: 1000 + 4499 });
    }
    expect(count).toBe(4500);
    expect([...journal.itemsInRange(fileId, 1000, 3999)]).toHaveLength(3000);
  });
});

describe('item blocks (a request packed into one row)', () => {
  const ship = (seq: number, lines: number[], key: string) =>
    ({ seq, endpoint: 'customer-shipments.ship', docKey: key, lines, body: { id: seq, key } });

  it('keeps only exceptions and rejected rows as item rows, and reads both back in line order', () => {
    const { fileId } = journal.claimFile(claimInput('mixed.csv', 'abc'));
    // Two interleaved requests (grouped documents may complete out of line order), a rejected row between them,
    // a document spread over non-contiguous lines, and one that comes back with an error.
    journal.addItems(fileId, [{ seq: 4, docKey: 'SO-X', lines: [4], status: 'error', messages: ['no id'] }]);
    const a = journal.recordBatch(fileId, 'customer-shipments.ship', [ship(2, [2, 6], 'SO-1'), ship(7, [7], 'SO-3')], { sent: true });
    const b = journal.recordBatch(fileId, 'customer-shipments.ship', [ship(3, [3, 5], 'SO-2'), ship(8, [8], 'SO-4')], { sent: true });
    journal.completeRequest(a, [{ seq: 2, status: 'ok', result: { shipped_at: '2026-03-01T09:00:00Z' } }, { seq: 7, status: 'error', messages: ['closed'] }]);
    expect([...journal.iterateLineOutcomes(fileId)].map((o) => [o.line, o.docKey, o.status])).toEqual([
      [2, 'SO-1', 'ok'], [3, 'SO-2', 'sent'], [4, 'SO-X', 'error'], [5, 'SO-2', 'sent'], [6, 'SO-1', 'ok'],
      [7, 'SO-3', 'error'], [8, 'SO-4', 'sent'],
    ]);
    journal.completeRequest(b, [{ seq: 3, status: 'ok' }, { seq: 8, status: 'ok' }]);
    const outcomes = [...journal.iterateLineOutcomes(fileId)];
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
    const rows = rawDatabase(journal).prepare('SELECT seq, status, body FROM items WHERE file_id = ? ORDER BY seq').all(fileId);
    expect(rows).toEqual([{ seq: 4, status: 'error', body: null }, { seq: 7, status: 'error', body: '{"id":7,"key":"SO-3"}' }]);
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 5, ok: 3, error: 2 });
    expect(journal.failedItems(fileId).map((i) => [i.seq, i.requestId, i.rejected])).toEqual([[4, null, true], [7, a, false]]);
    expect([...journal.retryable(fileId)].map((i) => [i.seq, i.body])).toEqual([[7, '{"id":7,"key":"SO-3"}']]);
    expect(journal.requestItems(a).map((i) => [i.seq, i.status, i.itemId === null])).toEqual([[2, 'ok', true], [7, 'error', false]]);
    const state = journal.resumeState(fileId);
    expect([2, 3, 4, 5, 7, 8, 9].map((s) => state.classify(s))).toEqual(['finished', 'finished', 'finished', 'unsent', 'finished', 'finished', 'unsent']);
  });

  it('re-drives an error copied out of a block and resolves an uncertain one without touching the ok items', () => {
    const { fileId } = journal.claimFile(claimInput('adj.csv', 'abc'));
    const id = journal.recordBatch(fileId, 'inventory.adjustments', [0, 1, 2].map((s) => adjustment(s)), { sent: true });
    journal.completeRequest(id, [
      { seq: 0, status: 'ok', result: { move_id: 10 } },
      { seq: 1, status: 'error', messages: ['insufficient stock'] },
      { seq: 2, status: 'uncertain', messages: ['timeout'], hint: 'check SKU-2' },
    ]);
    expect(journal.finishFile(fileId)).toBe('failed');
    journal.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'applied', note: 'seen in the service', by: 'ops' });
    const attempt = journal.beginRedrive(fileId);
    const again = journal.recordRequest(fileId, 'inventory.adjustments', [1], { attempt });
    journal.markSent(again);
    journal.completeRequest(again, [{ seq: 1, status: 'ok', result: { move_id: 11 } }]);
    expect(journal.finishFile(fileId)).toBe('done');
    expect([...journal.iterateLineOutcomes(fileId)].map((o) => [o.line, o.status, o.result])).toEqual([
      [2, 'ok', { move_id: 10 }], [3, 'ok', { move_id: 11 }], [4, 'ok', null],
    ]);
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 3, ok: 3, error: 0, uncertain: 0 });
  });

  it('refuses a seq already in another block, naming it, and leaves nothing behind', () => {
    const { fileId } = journal.claimFile(claimInput('dup.csv', 'abc'));
    journal.recordBatch(fileId, 'inventory.adjustments', [10, 11, 12].map((s) => adjustment(s)));
    expect(() => journal.recordBatch(fileId, 'inventory.adjustments', [8, 9, 12, 13].map((s) => adjustment(s)))).toThrow(/item 12 of file/);
    expect(journal.fileSummary(fileId)).toMatchObject({ total: 3, pending: 3 });
    expect(rawDatabase(journal).prepare('SELECT count(*) FROM item_blocks').pluck().get()).toBe(1);
  });
});
