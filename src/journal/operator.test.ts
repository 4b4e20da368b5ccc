import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../errors.js';
import type { Journal } from './index.js';
import { adjustment, claimInput, okOutcomes, useTestJournal } from './test-support.js';

let journal: Journal;
useTestJournal((j) => {
  journal = j;
});

const EP = 'inventory.adjustments';

/** A finished file: seqs 0-1 ok, 2-3 error, 4 uncertain, 5 rejected by the mapping. */
function failedFile(checksum = 'abc'): number {
  const { fileId } = journal.claimFile(claimInput(`${checksum}.csv`, checksum));
  journal.addItems(fileId, [{ seq: 5, lines: [7], docKey: 'bad', status: 'error', messages: ['no SKU'] }]);
  const id = journal.recordBatch(fileId, EP, [0, 1, 2, 3, 4].map((s) => adjustment(s)));
  journal.markSent(id);
  journal.completeRequest(id, [
    ...okOutcomes([0, 1]),
    { seq: 2, status: 'error', messages: ['unknown product'] },
    { seq: 3, status: 'error', messages: ['warehouse closed'] },
    { seq: 4, status: 'uncertain', hint: 'look for move of SKU-4' },
  ]);
  expect(journal.finishFile(fileId)).toBe('failed');
  return fileId;
}

describe('listing and inspecting', () => {
  it('lists files newest first, filtered by status and time', () => {
    const failed = failedFile('one');
    const { fileId: processing } = journal.claimFile(claimInput('two.csv', 'two'));
    const all = journal.listFiles({ limit: 10 });
    expect(all.map((f) => f.fileId)).toEqual([processing, failed]);
    expect(all[1]).toMatchObject({ name: 'one.csv', drop: 'partner-a', status: 'failed', summary: { ok: 2, error: 3, uncertain: 1 } });
    expect(journal.listFiles({ status: 'failed', limit: 10 }).map((f) => f.fileId)).toEqual([failed]);
    expect(journal.listFiles({ since: all[0].claimedAt, limit: 10 }).map((f) => f.fileId)).toEqual([processing]);
    expect(journal.listFiles({ limit: 1 })).toHaveLength(1);
  });

  it('lists failed and uncertain items, across files when no file is given', () => {
    const a = failedFile('a');
    const b = failedFile('b');
    expect(journal.failedItems(a).map((i) => [i.seq, i.messages[0]])).toEqual([
      [2, 'unknown product'], [3, 'warehouse closed'], [5, 'no SKU'],
    ]);
    expect(journal.uncertainItems(a).map((i) => [i.seq, i.hint])).toEqual([[4, 'look for move of SKU-4']]);
    expect(journal.uncertainItems().map((i) => i.fileId)).toEqual([a, b]);
    expect(journal.uncertainItems(undefined, { limit: 1 })).toHaveLength(1);
  });

  it('reports backlog gauges for metrics', () => {
    failedFile();
    const { fileId } = journal.claimFile(claimInput('live.csv', 'live'));
    const sent = journal.recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)));
    journal.markSent(sent);
    journal.recordBatch(fileId, EP, [adjustment(3)]);
    expect(journal.backlog()).toMatchObject({
      processingFiles: 1, pendingRequests: 1, pendingItems: 1, sentRequests: 1, sentItems: 3, uncertainItems: 1, errorItems: 3,
      exportsUnwritten: 0, acknowledgementsPending: 0, awaitingConfirmation: 0,
    });
  });
});

describe('retry (re-drive)', () => {
  it('re-drives only the failed items, as a new attempt, keeping their history', () => {
    const fileId = failedFile();
    const retry = [...journal.retryable(fileId)];
    expect(retry.map((i) => i.seq)).toEqual([2, 3]);
    expect(JSON.parse(retry[0].body ?? '')).toMatchObject({ reference: 'ADJ-2' });
    const attempt = journal.beginRedrive(fileId);
    expect(attempt).toBe(2);
    expect(journal.getFile(fileId)).toMatchObject({ status: 'processing', redrives: 1 });
    // ok, uncertain and mapping-rejected items can never be part of a re-drive.
    for (const seqs of [[0], [1, 2], [4], [5]]) {
      expect(() => journal.recordRequest(fileId, EP, seqs, { attempt })).toThrow(/failed .* items/);
    }
    const id = journal.recordRequest(fileId, EP, [2, 3], { attempt });
    expect(journal.getRequest(id)).toMatchObject({ attempt: 2, seqs: [2, 3] });
    journal.markSent(id);
    journal.completeRequest(id, [...okOutcomes([2]), { seq: 3, status: 'error', messages: ['still closed'] }]);
    const [item2] = journal.requestItems(id);
    expect(item2).toMatchObject({ status: 'ok', attempt: 2, result: { move_id: 1002 } });
    expect(journal.itemHistory(item2.itemId!)).toEqual([
      expect.objectContaining({ attempt: 1, status: 'error', messages: ['unknown product'] }),
    ]);
    // The ok items of the first attempt were not touched.
    expect([...journal.itemsInRange(fileId, 0, 1)].map((i) => [i.status, i.attempt, i.result])).toEqual([
      ['ok', 1, { move_id: 1000 }], ['ok', 1, { move_id: 1001 }],
    ]);
    expect(journal.finishFile(fileId)).toBe('failed');
    expect([...journal.retryable(fileId)].map((i) => i.seq)).toEqual([3]);
    expect(journal.beginRedrive(fileId)).toBe(3);
  });

  it('continues an interrupted re-drive with the same attempt and picks up its unsent items', () => {
    const fileId = failedFile();
    const attempt = journal.beginRedrive(fileId);
    journal.recordRequest(fileId, EP, [2, 3], { attempt });
    // crash before markSent; the retry command runs again
    expect(journal.claimFile(claimInput('abc.csv', 'abc')).status).toBe('resume');
    expect(journal.beginRedrive(fileId)).toBe(attempt);
    expect([...journal.retryable(fileId)].map((i) => [i.seq, i.status])).toEqual([[2, 'pending'], [3, 'pending']]);
    const id = journal.recordRequest(fileId, EP, [2, 3], { attempt });
    journal.markSent(id);
    journal.completeRequest(id, okOutcomes([2, 3]));
    expect(journal.fileSummary(fileId)).toMatchObject({ ok: 4, error: 1, uncertain: 1, pending: 0 });
  });

  it('refuses to re-drive a file that is done or still on its first pass', () => {
    const { fileId } = journal.claimFile(claimInput('x.csv', 'x'));
    expect(() => journal.beginRedrive(fileId)).toThrow(/still being processed/);
    journal.finishFile(fileId);
    expect(() => journal.beginRedrive(fileId)).toThrow(/nothing to retry/);
  });
});

describe('resolving uncertain items', () => {
  it('marks uncertain items applied (ok) by file and seq, and settles the file', () => {
    const fileId = failedFile();
    const attempt = journal.beginRedrive(fileId);
    const id = journal.recordRequest(fileId, EP, [2, 3], { attempt });
    journal.markSent(id);
    journal.completeRequest(id, okOutcomes([2, 3]));
    journal.finishFile(fileId);
    expect(journal.getFile(fileId).status).toBe('failed');
    const result = journal.resolveUncertain({ fileId, seqs: [4] }, { resolution: 'applied', note: 'move 88 found', by: 'ops@3pl' });
    // Mapping-rejected row 5 keeps the file failed; the uncertain one is now ok.
    expect(result).toEqual({ resolved: 1, files: [{ fileId, status: 'failed' }] });
    const [item] = [...journal.itemsInRange(fileId, 4, 4)];
    expect(item).toMatchObject({ status: 'ok', resolution: 'applied', resolutionNote: 'move 88 found', resolvedBy: 'ops@3pl' });
    // The note replaces the uncertain message and hint (the result file shows it); the history keeps them.
    expect(item).toMatchObject({ messages: ['applied: move 88 found'], hint: null });
    expect(item.resolvedAt).toMatch(/^2026-03-01T/);
    expect(journal.itemHistory(item.itemId!)).toEqual([expect.objectContaining({ status: 'uncertain', hint: 'look for move of SKU-4' })]);
    expect(journal.uncertainItems(fileId)).toEqual([]);
  });

  it('marks uncertain items not applied (error) by item id, so retry can re-drive them', () => {
    const fileId = failedFile();
    const [uncertain] = journal.uncertainItems(fileId);
    journal.resolveUncertain({ itemIds: [uncertain.itemId!] }, { resolution: 'not-applied', note: 'no move found', by: 'ops' });
    expect([...journal.retryable(fileId)].map((i) => i.seq)).toEqual([2, 3, 4]);
    expect(journal.failedItems(fileId).find((i) => i.seq === 4)?.messages).toEqual(['not applied: no move found']);
  });

  it('refuses items that are not uncertain, all or nothing', () => {
    const fileId = failedFile();
    const [uncertain] = journal.uncertainItems(fileId);
    let code: string | undefined;
    try {
      journal.resolveUncertain({ fileId, seqs: [4, 0] }, { resolution: 'applied', note: '', by: 'ops' });
    } catch (error) {
      code = isWisbridgeError(error) ? error.code : undefined;
    }
    expect(code).toBe('JOURNAL_STATE');
    expect(journal.uncertainItems(fileId).map((i) => i.itemId)).toEqual([uncertain.itemId]);
    expect(() => journal.resolveUncertain({ itemIds: [999_999] }, { resolution: 'applied', note: '', by: 'ops' }))
      .toThrow(/not uncertain items: 999999/);
  });

  it('settles a file to done when the last open item is resolved', () => {
    const { fileId } = journal.claimFile(claimInput('u.csv', 'u'));
    const id = journal.recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
    journal.markSent(id);
    journal.completeRequest(id, [...okOutcomes([0]), { seq: 1, status: 'uncertain', hint: 'check' }]);
    expect(journal.finishFile(fileId)).toBe('failed');
    const result = journal.resolveUncertain({ fileId, seqs: [1] }, { resolution: 'applied', note: 'seen', by: 'ops' });
    expect(result.files).toEqual([{ fileId, status: 'done' }]);
    expect(journal.getFile(fileId).summary).toMatchObject({ ok: 2, uncertain: 0 });
  });
});
