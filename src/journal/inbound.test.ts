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

const stateCode = async (call: Promise<unknown>): Promise<string | undefined> => {
  try {
    await call;
  } catch (error) {
    return isWisbridgeError(error) ? error.code : 'other';
  }
  return undefined;
};

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
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

  it('reopens without migrating again and refuses a journal from a newer bridge', async () => {
    await journal.close();
    journal = await openJournal(tmp.path);
    const versions = rawDatabase(journal).prepare('SELECT count(*) FROM schema_version').pluck().get();
    expect(versions).toBe(SCHEMA_VERSION);
    await journal.close();
    const raw = new Database(tmp.path);
    raw.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION + 1, 'x');
    raw.close();
    await expect(openJournal(tmp.path)).rejects.toThrow(/newer than this bridge/);
    journal = await openJournal(`${tmp.path}.other`);
  });

  it('checkpoints the WAL on close', async () => {
    const { fileId } = await journal.claimFile(claimInput('a.csv', 'c1'));
    await journal.addItems(fileId, [adjustment(0)]);
    await journal.close();
    const raw = new Database(tmp.path);
    expect(raw.prepare('SELECT count(*) FROM items').pluck().get()).toBe(1);
    raw.close();
    journal = await openJournal(tmp.path);
  });
});

describe('claiming files by checksum', () => {
  it('claims a new file, then reports the same bytes under another name as a duplicate', async () => {
    const first = await journal.claimFile(claimInput('adj-monday.csv', 'abc'));
    expect(first).toMatchObject({ status: 'new', generation: 1 });
    if (first.status !== 'new') throw new Error('unreachable');
    await journal.addItems(first.fileId, [adjustment(0)]);
    const id = await journal.recordRequest(first.fileId, 'inventory.adjustments', [0]);
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
    await journal.markSent(await journal.recordBatch(first.fileId, 'inventory.adjustments', [adjustment(0)]));
    await journal.rejectFile(first.fileId, 'encoding error at line 900');
    expect(await journal.claimFile(claimInput('a.csv', 'abc'))).toMatchObject({ status: 'duplicate', previousStatus: 'rejected' });
  });

  it('resumes a file still processing and abandons its requests that were never sent', async () => {
    const { fileId } = await journal.claimFile(claimInput('a.csv', 'abc'));
    const sentId = await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)]);
    await journal.markSent(sentId);
    const unsentId = await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(2)]);
    const resumed = await journal.claimFile(claimInput('renamed.csv', 'abc'));
    expect(resumed).toEqual({ status: 'resume', fileId, generation: 1 });
    expect(await journal.getRequest(unsentId)).toMatchObject({ status: 'abandoned', sentAt: null });
    // When it was sent: reading back (settle.ts) looks for changes from then on.
    expect(await journal.getRequest(sentId)).toMatchObject({ status: 'sent', sentAt: expect.stringMatching(/^2026-03-01T08:00:\d\d\.000Z$/) });
    // The abandoned item can go out in a new request.
    const again = await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(2)]);
    expect((await journal.requestItems(again)).map((i) => i.seq)).toEqual([2]);
  });
});

describe('items and requests', () => {
  let fileId: number;
  beforeEach(async () => {
    fileId = (await journal.claimFile(claimInput('a.csv', 'abc'))).fileId;
  });

  it('walks pending → sent → ok / error / uncertain and derives the request status', async () => {
    await journal.addItems(fileId, [adjustment(0), adjustment(1), adjustment(2), adjustment(3)]);
    const id = await journal.recordRequest(fileId, 'inventory.adjustments', [0, 1, 2]);
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
    const second = await journal.recordRequest(fileId, 'inventory.adjustments', [3]);
    await journal.markSent(second);
    expect(await journal.completeRequest(second, [{ seq: 3, status: 'error', messages: ['x'] }])).toBe('failed');
    expect(await journal.fileSummary(fileId)).toMatchObject({ total: 4, ok: 1, error: 2, uncertain: 1, pending: 0, sent: 0 });
    expect(await journal.finishFile(fileId)).toBe('failed');
    expect((await journal.getFile(fileId)).summary).toMatchObject({ ok: 1, error: 2, uncertain: 1 });
  });

  it('records a batch already marked sent in one commit when asked', async () => {
    const id = await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)], { sent: true });
    expect((await journal.getRequest(id)).status).toBe('sent');
    expect((await journal.requestItems(id)).map((i) => i.status)).toEqual(['sent', 'sent']);
    await expect(journal.markSent(id)).rejects.toThrow(/not pending/);
    expect((await journal.resumeState(fileId)).classify(1)).toBe('sent');
  });

  it('releases a request that never reached the service: its items can be sent again', async () => {
    const id = await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)], { sent: true });
    await journal.releaseRequest(id);
    expect((await journal.getRequest(id)).status).toBe('abandoned');
    // Its items are no longer recorded at all (the file maps them again), so nothing reads as in flight.
    expect((await journal.resumeState(fileId)).counts).toEqual({ finished: 0, sent: 0, unsent: 0 });
    expect((await journal.resumeState(fileId)).classify(1)).toBe('unsent');
    await expect(journal.completeRequest(id, okOutcomes([0, 1]))).rejects.toThrow(/already abandoned/);
    const again = await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)]);
    await journal.markSent(again);
    await journal.completeRequest(again, okOutcomes([0, 1]));
    expect(await journal.fileSummary(fileId)).toMatchObject({ total: 2, ok: 2 });
  });

  it('records large batches in chunks and names the item already in a request, leaving nothing behind', async () => {
    const seqs = Array.from({ length: 137 }, (_, i) => i);
    const first = await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(75)]);
    const error = await journal.recordBatch(fileId, 'inventory.adjustments', seqs.map((s) => adjustment(s))).then(() => undefined, (e: unknown) => e);
    expect(isWisbridgeError(error, 'JOURNAL_STATE') && error.message).toContain('item 75 ');
    expect(await journal.fileSummary(fileId)).toMatchObject({ total: 1, pending: 1 });
    await journal.markSent(first);
    await journal.completeRequest(first, okOutcomes([75]));
    const rest = seqs.filter((s) => s !== 75);
    const id = await journal.recordBatch(fileId, 'inventory.adjustments', rest.map((s) => adjustment(s)), { sent: true });
    expect((await journal.requestItems(id)).map((i) => [i.seq, i.status])).toEqual(rest.map((s) => [s, 'sent']));
    await journal.completeRequest(id, okOutcomes(rest));
    expect(await journal.fileSummary(fileId)).toMatchObject({ total: 137, ok: 137 });
  });

  it('stores a request packed ahead (packBatch, packOkOutcomes) as it stores one given item by item', async () => {
    const items = [adjustment(0), adjustment(1, { lines: [3, 4] }), adjustment(3, { lines: [5] })];
    const packed = packBatch('inventory.adjustments', items);
    expect(packed).toMatchObject({ endpoint: 'inventory.adjustments', count: 3, ranges: [[0, 1], [3, 3]], firstLine: 2 });
    expect(await stateCode(journal.recordBatch(fileId, 'inventory.counts', packed))).toBe('JOURNAL_STATE');
    expect(await stateCode(journal.recordBatch(fileId, 'inventory.adjustments', packed))).toBe('JOURNAL_STATE'); // no bodies
    const bodies = JSON.stringify(items.map((i) => i.body));
    const id = await journal.recordBatch(fileId, 'inventory.adjustments', packed, { sent: true, bodies });
    expect(await stateCode(journal.recordBatch(fileId, 'inventory.adjustments', packBatch('inventory.adjustments', [adjustment(3)]), { bodies: '[{}]' })))
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
    const id = await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(0), adjustment(1)]);
    expect(await stateCode(journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(1)]))).toBe('JOURNAL_STATE');
    expect(await stateCode(journal.completeRequest(id, okOutcomes([0])))).toBe('JOURNAL_STATE');
    expect(await stateCode(journal.completeRequest(id, okOutcomes([0, 5])))).toBe('JOURNAL_STATE');
    expect(await stateCode(journal.completeRequest(id, okOutcomes([0, 0])))).toBe('JOURNAL_STATE');
    expect(await stateCode(journal.finishFile(fileId))).toBe('JOURNAL_STATE');
    await journal.markSent(id);
    expect(await stateCode(journal.markSent(id))).toBe('JOURNAL_STATE');
    await journal.completeRequest(id, okOutcomes([0, 1]));
    expect(await stateCode(journal.completeRequest(id, okOutcomes([0, 1])))).toBe('JOURNAL_STATE');
    expect(await stateCode(journal.recordRequest(fileId, 'inventory.adjustments', [0]))).toBe('JOURNAL_STATE');
    expect(await stateCode(journal.recordBatch(fileId, 'inventory.counts', [adjustment(9)]))).toBe('JOURNAL_STATE');
    // A failed transaction leaves nothing behind.
    expect(await journal.fileSummary(fileId)).toMatchObject({ total: 2, ok: 2 });
    await journal.finishFile(fileId);
    expect(await stateCode(journal.addItems(fileId, [adjustment(3)]))).toBe('JOURNAL_STATE');
    expect(await stateCode(journal.rejectFile(fileId, 'late'))).toBe('JOURNAL_STATE');
  });

  it('keeps rows the mapping rejected as items with their message and never sends them', async () => {
    await journal.addItems(fileId, [
      adjustment(0),
      { seq: 1, docKey: 'SKU-?', lines: [3], status: 'error', messages: ['quantity is not a number'] },
      { seq: 2, lines: [4], status: 'skipped', messages: ['empty row'] },
    ]);
    expect(await stateCode(journal.recordRequest(fileId, 'inventory.adjustments', [1]))).toBe('JOURNAL_STATE');
    const [bad] = await journal.failedItems(fileId);
    expect(bad).toMatchObject({ seq: 1, rejected: true, status: 'error', messages: ['quantity is not a number'] });
    expect(await collect(journal.retryable(fileId))).toEqual([]);
  });

  it('records addItems idempotently: a re-run of the same file keeps the first recording', async () => {
    expect(await journal.addItems(fileId, [adjustment(0), adjustment(1)])).toBe(2);
    expect(await journal.addItems(fileId, [adjustment(1), adjustment(2)])).toBe(1);
    expect((await journal.itemsInRange(fileId, 0, 10)).map((i) => i.seq)).toEqual([0, 1, 2]);
  });

  it('shares one commit across calls with transaction() and rolls all back on error', async () => {
    await expect(journal.transaction(async (tx) => {
      await tx.addItems(fileId, [adjustment(0)]);
      await tx.recordRequest(fileId, 'inventory.adjustments', [0, 1]);
    })).rejects.toThrow(/only 1 of the 2/);
    expect((await journal.fileSummary(fileId)).total).toBe(0);
    const id = await journal.transaction(async (tx) => {
      await tx.addItems(fileId, [adjustment(0)]);
      return tx.recordRequest(fileId, 'inventory.adjustments', [0]);
    });
    expect(await journal.getRequest(id)).toMatchObject({ seqs: [0], status: 'pending', attempt: 1 });
  });
});

describe('resume classification', () => {
  it('tells finished, sent and never-sent seqs apart and lists the requests in flight', async () => {
    const { fileId } = await journal.claimFile(claimInput('a.csv', 'abc'));
    const done = await journal.recordBatch(fileId, 'inventory.adjustments', [0, 1, 2, 3].map((s) => adjustment(s)));
    await journal.markSent(done);
    await journal.completeRequest(done, [...okOutcomes([0, 1, 3]), { seq: 2, status: 'error', messages: ['x'] }]);
    const inFlight = await journal.recordBatch(fileId, 'inventory.adjustments', [4, 5].map((s) => adjustment(s)));
    await journal.markSent(inFlight);
    await journal.recordBatch(fileId, 'inventory.adjustments', [adjustment(6)]);
    await journal.addItems(fileId, [adjustment(7), { seq: 8, lines: [10], status: 'skipped' }]);

    const state = await journal.resumeState(fileId);
    expect(state.maxSeq).toBe(8);
    expect(state.counts).toEqual({ finished: 5, sent: 2, unsent: 2 });
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((s) => state.classify(s))).toEqual([
      'finished', 'finished', 'finished', 'finished', 'sent', 'sent', 'unsent', 'unsent', 'finished', 'unsent',
    ]);
    expect(state.sentRequests).toEqual([expect.objectContaining({ requestId: inFlight, seqs: [4, 5], endpoint: 'inventory.adjustments' })]);
    expect((await journal.requestItems(inFlight)).map((i) => JSON.parse(i.body ?? 'null').reference)).toEqual(['ADJ-4', 'ADJ-5']);
    // The caller settles the request in flight: here an uncertain adjustment and a read-back ok.
    await journal.completeRequest(inFlight, [{ seq: 4, status: 'uncertain', hint: 'check SKU-4' }, ...okOutcomes([5])]);
    expect((await journal.resumeState(fileId)).classify(4)).toBe('finished');
  });
});

describe('line outcomes for the result file', () => {
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
      const id = await journal.recordBatch(fileId, 'inventory.adjustments', items.slice(s, s + 500));
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
});

describe('item blocks (a request packed into one row)', () => {
  const ship = (seq: number, lines: number[], key: string) =>
    ({ seq, endpoint: 'customer-shipments.ship', docKey: key, lines, body: { id: seq, key } });

  it('keeps only exceptions and rejected rows as item rows, and reads both back in line order', async () => {
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
    const rows = rawDatabase(journal).prepare('SELECT seq, status, body FROM items WHERE file_id = ? ORDER BY seq').all(fileId);
    expect(rows).toEqual([{ seq: 4, status: 'error', body: null }, { seq: 7, status: 'error', body: '{"id":7,"key":"SO-3"}' }]);
    expect(await journal.fileSummary(fileId)).toMatchObject({ total: 5, ok: 3, error: 2 });
    expect((await journal.failedItems(fileId)).map((i) => [i.seq, i.requestId, i.rejected])).toEqual([[4, null, true], [7, a, false]]);
    expect((await collect(journal.retryable(fileId))).map((i) => [i.seq, i.body])).toEqual([[7, '{"id":7,"key":"SO-3"}']]);
    expect((await journal.requestItems(a)).map((i) => [i.seq, i.status, i.itemId === null])).toEqual([[2, 'ok', true], [7, 'error', false]]);
    const state = await journal.resumeState(fileId);
    expect([2, 3, 4, 5, 7, 8, 9].map((s) => state.classify(s))).toEqual(['finished', 'finished', 'finished', 'unsent', 'finished', 'finished', 'unsent']);
  });

  it('re-drives an error copied out of a block and resolves an uncertain one without touching the ok items', async () => {
    const { fileId } = await journal.claimFile(claimInput('adj.csv', 'abc'));
    const id = await journal.recordBatch(fileId, 'inventory.adjustments', [0, 1, 2].map((s) => adjustment(s)), { sent: true });
    await journal.completeRequest(id, [
      { seq: 0, status: 'ok', result: { move_id: 10 } },
      { seq: 1, status: 'error', messages: ['insufficient stock'] },
      { seq: 2, status: 'uncertain', messages: ['timeout'], hint: 'check SKU-2' },
    ]);
    expect(await journal.finishFile(fileId)).toBe('failed');
    await journal.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'applied', note: 'seen in the service', by: 'ops' });
    const attempt = await journal.beginRedrive(fileId);
    const again = await journal.recordRequest(fileId, 'inventory.adjustments', [1], { attempt });
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
    await journal.recordBatch(fileId, 'inventory.adjustments', [10, 11, 12].map((s) => adjustment(s)));
    await expect(journal.recordBatch(fileId, 'inventory.adjustments', [8, 9, 12, 13].map((s) => adjustment(s)))).rejects.toThrow(/item 12 of file/);
    expect(await journal.fileSummary(fileId)).toMatchObject({ total: 3, pending: 3 });
    expect(rawDatabase(journal).prepare('SELECT count(*) FROM item_blocks').pluck().get()).toBe(1);
  });
});
