import { describe, expect, it } from 'vitest';
import { packBatch } from '../../../src/journal/core/block-pack.js';
import { adjustment, claimInput, okOutcomes } from '../../../src/journal/test-support.js';
import type { SearchHit, SearchPage } from '../../../src/journal/console/search.js';
import { EP, LATER, finishedFile, type Suite } from './support.js';
import { testHooks } from '../../../src/journal/testing.js';

/** Every page of a search, `limit` rows each: the pages as the console shows them, followed by their `next`. */
async function allPages(suite: Suite, text: string, limit: number): Promise<SearchPage[]> {
  const pages: SearchPage[] = [];
  let after: string | undefined;
  do {
    const page = await suite.journal.console.search(text, { limit, after });
    pages.push(page);
    after = page.next ?? undefined;
  } while (after !== undefined && pages.length < 20);
  return pages;
}

const row = (h: SearchHit) => [h.file, h.seq, h.matched, h.status];

export function describeSearch(suite: Suite): void {
  describe('a block\'s index recorded after it', () => {
    /** A block of two rows carrying reference `ref`, recorded as the flow records it: its index taken off. */
    async function bareBlock(fileId: number, first: number, ref: string) {
      const items = [first, first + 1].map((seq) => adjustment(seq, { body: { product_code: `SKU-${seq}`, quantity: 1, reference: ref } }));
      const bodies = items.map((i) => i.body);
      const packed = packBatch(EP, items, bodies);
      const requestId = await testHooks(suite.journal).recordBatch(fileId, EP, { ...packed, index: undefined }, { sent: true, bodies: JSON.stringify(bodies) });
      return { requestId, index: packed.index! };
    }

    it('is not searchable before its index is written, and is once indexBlocks wrote it', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('trail.csv', 'trail'));
      const { requestId, index } = await bareBlock(fileId, 0, 'TRAIL-1');
      expect((await suite.journal.console.search('trail-1', { limit: 50 })).total).toBe(0);
      await suite.journal.indexBlocks(fileId, [{ requestId, index }]);
      expect((await suite.journal.console.search('trail-1', { limit: 50 })).hits.map(row)).toEqual([['trail.csv', 0, 'body', 'sent'], ['trail.csv', 1, 'body', 'sent']]);
      // already indexed: nothing is missing
      expect(await suite.journal.indexMissingBlocks(fileId)).toBe(0);
    });

    it('indexes the blocks of one commit together, however many parts they fill', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('many.csv', 'many'));
      // Eight blocks of 40 rows with a reference each: ~16 parts a block, more than one statement holds on PostgreSQL.
      const blocks = [];
      for (let b = 0; b < 8; b++) {
        const items = Array.from({ length: 40 }, (_, i) => adjustment(b * 40 + i, { body: { product_code: `SKU-${b}-${i}`, quantity: 1, reference: `REF-${b}-${i}` } }));
        const bodies = items.map((i) => i.body);
        const packed = packBatch(EP, items, bodies);
        expect(packed.index!.length).toBeGreaterThan(8);
        blocks.push({ requestId: await testHooks(suite.journal).recordBatch(fileId, EP, { ...packed, index: undefined }, { sent: true, bodies: JSON.stringify(bodies) }), index: packed.index! });
      }
      expect(blocks.reduce((n, b) => n + b.index.length, 0)).toBeGreaterThan(64);
      await suite.journal.indexBlocks(fileId, blocks);
      for (const [b, i] of [[0, 0], [3, 17], [7, 39]]) {
        expect((await suite.journal.console.search(`ref-${b}-${i}`, { limit: 50 })).hits.map(row)).toEqual([['many.csv', b * 40 + i, 'body', 'sent']]);
      }
      expect(await suite.journal.indexMissingBlocks(fileId)).toBe(0);
    });

    it('a block whose index a crash lost is indexed from its stored bodies when the file resumes, and only that one', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('lost.csv', 'lost'));
      const kept = await bareBlock(fileId, 0, 'KEPT-1');
      await suite.journal.indexBlocks(fileId, [kept]);
      await bareBlock(fileId, 2, 'LOST-1');
      expect((await suite.journal.console.search('lost-1', { limit: 50 })).total).toBe(0);
      expect(await suite.journal.indexMissingBlocks(fileId)).toBe(1);
      expect((await suite.journal.console.search('lost-1', { limit: 50 })).hits.map(row)).toEqual([['lost.csv', 2, 'body', 'sent'], ['lost.csv', 3, 'body', 'sent']]);
      // found by document key too, as packBatch's index would have it
      expect((await suite.journal.console.search('sku-3', { limit: 50 })).hits.map(row)).toEqual([['lost.csv', 3, 'document key', 'sent']]);
      expect((await suite.journal.console.search('kept-1', { limit: 50 })).total).toBe(2);
      expect(await suite.journal.indexMissingBlocks(fileId)).toBe(0);
    });
  });

  describe('search across files', () => {
    /** Two files whose rows carry the order number SO-7 (any case); the second also has a row the mapping rejected. */
    async function twoFiles() {
      const order = (seq: number, number: string) => adjustment(seq, { body: { product_code: `SKU-${seq}`, quantity: 1, order: number } });
      const { fileId: first } = await suite.journal.claimFile(claimInput('first.csv', 'first'));
      const a = await testHooks(suite.journal).recordBatch(first, EP, [order(0, 'SO-7'), order(1, 'SO-7'), order(2, 'SO-7')], { sent: true });
      await suite.journal.completeRequest(a, [...okOutcomes([0, 1]), { seq: 2, status: 'error', messages: ['unknown product'] }]);
      await suite.journal.finishFile(first);
      const { fileId: second } = await suite.journal.claimFile(claimInput('second.csv', 'second'));
      await suite.journal.addItems(second, [{ seq: 2, docKey: 'so-7', lines: [4], status: 'error', messages: ['quantity is not a number'] }]);
      const b = await testHooks(suite.journal).recordBatch(second, EP, [order(0, 'so-7'), order(1, 'So-7')], { sent: true });
      await suite.journal.completeRequest(b, okOutcomes([0, 1]));
      return { first, second };
    }

    it('finds every row that carried a term, any case, a page at a time, each once, with the exact count on every page', async () => {
      await twoFiles();
      const pages = await allPages(suite, 'SO-7', 2);
      expect(pages.map((p) => [p.total, p.totalAtLeast])).toEqual(pages.map(() => [6, false]));
      expect(pages.at(-1)!.next).toBeNull();
      const hits = pages.flatMap((p) => p.hits);
      expect(hits.map(row)).toEqual([
        ['second.csv', 2, 'document key', 'error'], // rejected by the mapping: found by its document key
        ['second.csv', 0, 'body', 'ok'],
        ['second.csv', 1, 'body', 'ok'],
        ['first.csv', 0, 'body', 'ok'],
        ['first.csv', 1, 'body', 'ok'],
        ['first.csv', 2, 'body', 'error'],
      ]);
      expect(hits[3]).toMatchObject({ result: { move_id: 1000 }, lines: [2] });
      expect(hits[5]).toMatchObject({ messages: ['unknown product'], result: null });
      expect(hits[0]).toMatchObject({ messages: ['quantity is not a number'] });
      // All on one page when it is big enough; a document key and a body value of the same row: one hit.
      expect(await suite.journal.console.search('so-7', { limit: 50 })).toMatchObject({ total: 6, next: null, hits: expect.any(Array) });
      expect((await suite.journal.console.search('sku-1', { limit: 50 })).hits.map(row)).toEqual([
        ['second.csv', 1, 'document key', 'ok'], ['first.csv', 1, 'document key', 'ok'],
      ]);
      // Whole values only.
      expect(await suite.journal.console.search('SO-', { limit: 50 })).toMatchObject({ hits: [], total: 0, next: null });
    });

    it('forgets the rows of a pruned file, counts a re-driven row once, and a request released and recorded again once', async () => {
      const { second } = await twoFiles();
      const { fileId: redriven } = await finishedFile(suite.journal, 'redriven', { redriven: true });
      // The re-driven row is in `items` under its retry request, and in its block: found once, with its last outcome.
      expect(await suite.journal.console.search('SKU-2', { limit: 50 })).toMatchObject({ total: 2, totalAtLeast: false });
      expect((await suite.journal.console.search('SKU-2', { limit: 50 })).hits.map(row)).toEqual([
        ['redriven.csv', 2, 'document key', 'error'], ['first.csv', 2, 'document key', 'error'],
      ]);
      expect((await suite.journal.console.search('SKU-2', { limit: 50 })).hits.find((h) => h.fileId === redriven)).toMatchObject({ messages: ['still unknown'] });
      await suite.journal.pruneJournal({ olderThan: LATER });
      const after = await suite.journal.console.search('so-7', { limit: 50 });
      expect(after).toMatchObject({ total: 3, totalAtLeast: false, next: null });
      expect(after.hits.map((h) => h.file)).toEqual(['second.csv', 'second.csv', 'second.csv']);
      const released = await testHooks(suite.journal).recordBatch(second, EP, [adjustment(5), adjustment(6)], { sent: true });
      await suite.journal.releaseRequest(released);
      const again = await testHooks(suite.journal).recordBatch(second, EP, [adjustment(5), adjustment(6)], { sent: true });
      await suite.journal.completeRequest(again, okOutcomes([5, 6]));
      expect(await suite.journal.console.search('ADJ-5', { limit: 50 })).toMatchObject({ total: 1, hits: [{ seq: 5, status: 'ok', matched: 'body' }] });
    });
  });
}
