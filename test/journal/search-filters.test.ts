import { describe, expect, it } from 'vitest';
import { adjustment, claimInput, okOutcomes, rawDatabase, useTestJournal } from '../../src/journal/test-support.js';
import type { Journal } from '../../src/journal/index.js';
import { bodyTerms, termFilters } from '../../src/journal/search-terms.js';

let journal: Journal;
useTestJournal((j) => {
  journal = j;
});

/** Makes a block look as one recorded before the term index: its Bloom filters (block_terms) instead of block_index and block_tokens. */
function asFilteredBlock(requestId: number, fileId: number, bodies: unknown[], docKeys: string[]): void {
  const db = rawDatabase(journal);
  db.prepare('DELETE FROM block_index WHERE request_id = ?').run(requestId);
  db.prepare('DELETE FROM block_tokens WHERE request_id = ?').run(requestId);
  const terms = new Set(docKeys.map((k) => k.toLowerCase()));
  for (const body of bodies) bodyTerms(body, terms);
  for (const [part, filter] of termFilters(terms)) db.prepare('INSERT INTO block_terms (request_id, part, file_id, terms) VALUES (?, ?, ?, ?)').run(requestId, part, fileId, filter);
}

describe('search over blocks recorded before the term index (SQLite)', () => {
  it('finds their rows through their Bloom filters after the indexed ones, pages into them, and says the count is a lower bound', async () => {
    const { fileId: old } = await journal.claimFile(claimInput('old.csv', 'old'));
    const items = [0, 1, 2].map((s) => adjustment(s, { body: { product_code: `SKU-${s}`, order: 'SO-9' } }));
    const a = await journal.recordBatch(old, 'inventory.adjustments', items, { sent: true });
    await journal.completeRequest(a, [...okOutcomes([0, 1]), { seq: 2, status: 'error', messages: ['unknown product'] }]);
    asFilteredBlock(a, old, items.map((i) => i.body), items.map((i) => i.docKey!));
    const { fileId: recent } = await journal.claimFile(claimInput('new.csv', 'new'));
    const b = await journal.recordBatch(recent, 'inventory.adjustments', [adjustment(0, { body: { order: 'so-9' } })], { sent: true });
    await journal.completeRequest(b, okOutcomes([0]));

    const first = await journal.console.search('SO-9', { limit: 1 });
    expect(first.hits.map((h) => [h.file, h.seq])).toEqual([['new.csv', 0]]);
    expect(first).toMatchObject({ total: 1, totalAtLeast: true, next: expect.any(String) });
    const second = await journal.console.search('SO-9', { limit: 3, after: first.next! });
    expect(second.hits.map((h) => [h.file, h.seq, h.matched, h.status])).toEqual([
      ['old.csv', 0, 'body', 'ok'], ['old.csv', 1, 'body', 'ok'], ['old.csv', 2, 'body', 'error'],
    ]);
    expect(second).toMatchObject({ total: 4, totalAtLeast: true });
    expect((await journal.console.search('SO-9', { limit: 3, after: second.next ?? 'b0' })).hits).toEqual([]);
    // A failed row of such a block is found once (through its block, not again by its document key).
    expect((await journal.console.search('sku-2', { limit: 10 })).hits.map((h) => [h.file, h.seq, h.status])).toEqual([['old.csv', 2, 'error']]);
  });
});
