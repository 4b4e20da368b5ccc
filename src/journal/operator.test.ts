import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../errors.js';
import type { Journal } from './index.js';
import { adjustment, claimInput, okOutcomes, useTestJournal } from './test-support.js';

let journal: Journal;
useTestJournal((j) => {
  journal = j;
});

const EP = 'inventory.adjustments';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A finished file: seqs 0-1 ok, 2-3 error, 4 uncertain, 5 rejected by the mapping. */
async function failedFile(checksum = 'abc'): Promise<number> {
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

describe('listing and inspecting', () => {
  it('lists files newest first, filtered by status and time', async () => {
    const failed = await failedFile('one');
    const { fileId: processing } = await journal.claimFile(claimInput('two.csv', 'two'));
    const all = await journal.listFiles({ limit: 10 });
    expect(all.map((f) => f.fileId)).toEqual([processing, failed]);
    expect(all[1]).toMatchObject({ name: 'one.csv', drop: 'partner-a', status: 'failed', summary: { ok: 2, error: 3, uncertain: 1 } });
    expect((await journal.listFiles({ status: 'failed', limit: 10 })).map((f) => f.fileId)).toEqual([failed]);
    expect((await journal.listFiles({ since: all[0].claimedAt, limit: 10 })).map((f) => f.fileId)).toEqual([processing]);
    expect(await journal.listFiles({ limit: 1 })).toHaveLength(1);
  });

  it('lists failed and uncertain items, across files when no file is given', async () => {
    const a = await failedFile('a');
    const b = await failedFile('b');
    expect((await journal.failedItems(a)).map((i) => [i.seq, i.messages[0]])).toEqual([
      [2, 'unknown product'], [3, 'warehouse closed'], [5, 'no SKU'],
    ]);
    expect((await journal.uncertainItems(a)).map((i) => [i.seq, i.hint])).toEqual([[4, 'look for move of SKU-4']]);
    expect((await journal.uncertainItems()).map((i) => i.fileId)).toEqual([a, b]);
    expect(await journal.uncertainItems(undefined, { limit: 1 })).toHaveLength(1);
  });

  it('reports backlog gauges for metrics', async () => {
    await failedFile();
    const { fileId } = await journal.claimFile(claimInput('live.csv', 'live'));
    const sent = await journal.recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)));
    await journal.markSent(sent);
    await journal.recordBatch(fileId, EP, [adjustment(3)]);
    expect(await journal.backlog()).toMatchObject({
      processingFiles: 1, pendingRequests: 1, pendingItems: 1, sentRequests: 1, sentItems: 3, uncertainItems: 1, errorItems: 3,
      exportsUnwritten: 0, acknowledgementsPending: 0, awaitingConfirmation: 0,
    });
  });
});

describe('retry (re-drive)', () => {
  it('re-drives only the failed items, as a new attempt, keeping their history', async () => {
    const fileId = await failedFile();
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
    const fileId = await failedFile();
    const attempt = await journal.beginRedrive(fileId);
    await journal.recordRequest(fileId, EP, [2, 3], { attempt });
    // crash before markSent; the retry command runs again
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

describe('resolving uncertain items', () => {
  it('marks uncertain items applied (ok) by file and seq, and settles the file', async () => {
    const fileId = await failedFile();
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
    const fileId = await failedFile();
    const [uncertain] = await journal.uncertainItems(fileId);
    await journal.resolveUncertain({ itemIds: [uncertain.itemId!] }, { resolution: 'not-applied', note: 'no move found', by: 'ops' });
    expect((await collect(journal.retryable(fileId))).map((i) => i.seq)).toEqual([2, 3, 4]);
    expect((await journal.failedItems(fileId)).find((i) => i.seq === 4)?.messages).toEqual(['not applied: no move found']);
  });

  it('refuses items that are not uncertain, all or nothing', async () => {
    const fileId = await failedFile();
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
});
