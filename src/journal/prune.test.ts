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

/** A finished file: seqs 0-2 in a block (0-1 ok, 2 error, or uncertain when asked), 3 rejected by the mapping. */
function finishedFile(checksum: string, options: { uncertain?: boolean; redriven?: boolean } = {}): number {
  const { fileId } = journal.claimFile(claimInput(`${checksum}.csv`, checksum));
  journal.addItems(fileId, [{ seq: 3, lines: [5], docKey: 'bad', status: 'error', messages: ['no SKU'] }]);
  const id = journal.recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
  journal.completeRequest(id, [...okOutcomes([0, 1]), options.uncertain
    ? { seq: 2, status: 'uncertain', hint: 'look for SKU-2' } : { seq: 2, status: 'error', messages: ['unknown product'] }]);
  journal.finishFile(fileId);
  if (options.redriven) {
    const attempt = journal.beginRedrive(fileId);
    const retry = journal.recordRequest(fileId, EP, [2], { attempt });
    journal.markSent(retry);
    journal.completeRequest(retry, [{ seq: 2, status: 'error', messages: ['still unknown'] }]);
    journal.finishFile(fileId);
  }
  return fileId;
}

describe('journal prune', () => {
  it('drops rows, blocks, history and requests of old finished files but keeps the file row, so the content is still a duplicate', async () => {
    const done = finishedFile('done', { redriven: true });
    const open = finishedFile('open', { uncertain: true });
    const { fileId: processing } = journal.claimFile(claimInput('busy.csv', 'busy'));
    journal.recordBatch(processing, EP, [adjustment(0)]);
    expect(count('items', done)).toBeGreaterThan(0);
    expect(rawDatabase(journal).prepare('SELECT count(*) FROM item_history').pluck().get()).toBe(1);
    const before = journal.getFile(done);

    const report = await journal.pruneJournal({ olderThan: LATER });
    expect(report).toMatchObject({ files: 1, keptOpen: 1, items: 2, blocks: 1, requests: 2 });
    for (const table of ['items', 'item_blocks', 'requests']) expect(count(table, done)).toBe(0);
    expect(rawDatabase(journal).prepare('SELECT count(*) FROM item_history').pluck().get()).toBe(0);
    expect(count('items', open)).toBeGreaterThan(0);
    expect(count('item_blocks', processing)).toBe(1);
    const after = journal.getFile(done);
    expect(after).toMatchObject({ checksum: before.checksum, status: 'failed', summary: before.summary });
    expect(after.prunedAt).not.toBeNull();
    expect([...journal.iterateLineOutcomes(done)]).toEqual([]);

    expect(journal.claimFile(claimInput('done-again.csv', 'done'))).toMatchObject({ status: 'duplicate', fileId: done, previousStatus: 'failed' });
    const retry = (() => { try { journal.beginRedrive(done); } catch (e) { return e; } })();
    expect(isWisbridgeError(retry, 'JOURNAL_STATE') && retry.message).toMatch(/pruned/);
    expect(journal.journalStats()).toMatchObject({ files: 3, prunedFiles: 1, oldestEntry: before.claimedAt, oldestDetail: journal.getFile(open).claimedAt });
    expect(await journal.pruneJournal({ olderThan: LATER })).toMatchObject({ files: 0, keptOpen: 1 });
  });

  it('keeps files finished after the cut-off, and a rejected file that reached the service stays a duplicate', async () => {
    const rejected = (() => {
      const { fileId } = journal.claimFile(claimInput('half.csv', 'half'));
      const id = journal.recordBatch(fileId, EP, [adjustment(0)], { sent: true });
      journal.completeRequest(id, okOutcomes([0]));
      journal.rejectFile(fileId, 'FILE_LAYOUT: broken quote on line 40');
      return fileId;
    })();
    const cutoff = journal.getFile(rejected).finishedAt!;
    const recent = finishedFile('recent');
    expect(await journal.pruneJournal({ olderThan: cutoff })).toMatchObject({ files: 0 });
    expect(await journal.pruneJournal({ olderThan: journal.getFile(recent).claimedAt })).toMatchObject({ files: 1 });
    expect(journal.getFile(rejected)).toMatchObject({ status: 'rejected', summary: { ok: 1 } });
    expect(count('requests', rejected)).toBe(0);
    expect(journal.claimFile(claimInput('half-again.csv', 'half'))).toMatchObject({ status: 'duplicate', fileId: rejected });
    expect(count('items', recent) + count('item_blocks', recent)).toBeGreaterThan(0);
  });

  it('a prune cut short finishes its file first next time; old file events go too', async () => {
    const fileId = finishedFile('big');
    journal.recordFileEvent({ drop: 'partner-a', name: 'x.txt', kind: 'rejected', reason: 'no mapping' });
    const controller = new AbortController();
    // Marking and the first chunk run before the prune's first await: the abort lands after them.
    const cut = journal.pruneJournal({ olderThan: LATER, signal: controller.signal });
    controller.abort();
    expect(await cut).toMatchObject({ files: 0, items: 2, blocks: 0, requests: 0 });
    expect(journal.getFile(fileId).prunedAt).not.toBeNull();
    expect(count('requests', fileId)).toBe(1);
    expect(await journal.pruneJournal({ olderThan: LATER })).toMatchObject({ files: 0, items: 0, blocks: 1, requests: 1, events: 1 });
    expect(count('requests', fileId)).toBe(0);
    expect(journal.recentFileEvents(10)).toEqual([]);
  });
});
