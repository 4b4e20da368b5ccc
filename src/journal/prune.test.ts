import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../errors.js';
import type { Journal } from './index.js';
import { adjustment, claimInput, okOutcomes, useTestJournal, rawDatabase } from './test-support.js';

let journal: Journal;
useTestJournal((j) => {
  journal = j;
});

const EP = 'inventory.adjustments';
const LATER = '2026-04-01T00:00:00.000Z';
const count = (table: string, fileId: number) => rawDatabase(journal).prepare(`SELECT count(*) FROM ${table} WHERE file_id = ?`).pluck().get(fileId) as number;

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A finished file: seqs 0-2 in a block (0-1 ok, 2 error, or uncertain when asked), 3 rejected by the mapping. */
async function finishedFile(checksum: string, options: { uncertain?: boolean; redriven?: boolean } = {}): Promise<number> {
  const { fileId } = await journal.claimFile(claimInput(`${checksum}.csv`, checksum));
  await journal.addItems(fileId, [{ seq: 3, lines: [5], docKey: 'bad', status: 'error', messages: ['no SKU'] }]);
  const id = await journal.recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
  await journal.completeRequest(id, [...okOutcomes([0, 1]), options.uncertain
    ? { seq: 2, status: 'uncertain', hint: 'look for SKU-2' } : { seq: 2, status: 'error', messages: ['unknown product'] }]);
  await journal.finishFile(fileId);
  if (options.redriven) {
    const attempt = await journal.beginRedrive(fileId);
    const retry = await journal.recordRequest(fileId, EP, [2], { attempt });
    await journal.markSent(retry);
    await journal.completeRequest(retry, [{ seq: 2, status: 'error', messages: ['still unknown'] }]);
    await journal.finishFile(fileId);
  }
  return fileId;
}

describe('journal prune', () => {
  it('drops rows, blocks, history and requests of old finished files but keeps the file row, so the content is still a duplicate', async () => {
    const done = await finishedFile('done', { redriven: true });
    const open = await finishedFile('open', { uncertain: true });
    const { fileId: processing } = await journal.claimFile(claimInput('busy.csv', 'busy'));
    await journal.recordBatch(processing, EP, [adjustment(0)]);
    expect(count('items', done)).toBeGreaterThan(0);
    expect(rawDatabase(journal).prepare('SELECT count(*) FROM item_history').pluck().get()).toBe(1);
    const before = await journal.getFile(done);

    const report = await journal.pruneJournal({ olderThan: LATER });
    expect(report).toMatchObject({ files: 1, keptOpen: 1, items: 2, blocks: 1, requests: 2 });
    for (const table of ['items', 'item_blocks', 'requests']) expect(count(table, done)).toBe(0);
    expect(rawDatabase(journal).prepare('SELECT count(*) FROM item_history').pluck().get()).toBe(0);
    expect(count('items', open)).toBeGreaterThan(0);
    expect(count('item_blocks', processing)).toBe(1);
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
    const rejected = await (async () => {
      const { fileId } = await journal.claimFile(claimInput('half.csv', 'half'));
      const id = await journal.recordBatch(fileId, EP, [adjustment(0)], { sent: true });
      await journal.completeRequest(id, okOutcomes([0]));
      await journal.rejectFile(fileId, 'FILE_LAYOUT: broken quote on line 40');
      return fileId;
    })();
    const cutoff = (await journal.getFile(rejected)).finishedAt!;
    const recent = await finishedFile('recent');
    expect(await journal.pruneJournal({ olderThan: cutoff })).toMatchObject({ files: 0 });
    expect(await journal.pruneJournal({ olderThan: (await journal.getFile(recent)).claimedAt })).toMatchObject({ files: 1 });
    expect(await journal.getFile(rejected)).toMatchObject({ status: 'rejected', summary: { ok: 1 } });
    expect(count('requests', rejected)).toBe(0);
    expect(await journal.claimFile(claimInput('half-again.csv', 'half'))).toMatchObject({ status: 'duplicate', fileId: rejected });
    expect(count('items', recent) + count('item_blocks', recent)).toBeGreaterThan(0);
  });

  it('a prune cut short finishes its file first next time; old file events go too', async () => {
    const fileId = await finishedFile('big');
    await journal.recordFileEvent({ drop: 'partner-a', name: 'x.txt', kind: 'rejected', reason: 'no mapping' });
    const controller = new AbortController();
    const cut = journal.pruneJournal({ olderThan: LATER, signal: controller.signal });
    // The abort lands once the first chunk (the file's two items) is gone: the prune yields a turn after each chunk
    // and stops at the next check, before the file's blocks and requests.
    while (count('items', fileId) > 0) await nextTurn();
    controller.abort();
    expect(await cut).toMatchObject({ files: 0, items: 2, blocks: 0, requests: 0 });
    expect((await journal.getFile(fileId)).prunedAt).not.toBeNull();
    expect(count('requests', fileId)).toBe(1);
    expect(await journal.pruneJournal({ olderThan: LATER })).toMatchObject({ files: 0, items: 0, blocks: 1, requests: 1, events: 1 });
    expect(count('requests', fileId)).toBe(0);
    expect(await journal.recentFileEvents(10)).toEqual([]);
  });
});
