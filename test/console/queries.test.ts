import { describe, expect, it } from 'vitest';
import { consoleSql, fileEventListSql, fileListSql, type RowView, type SqlQuery } from '../../src/journal/console/console-queries.js';
import type { Journal } from '../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes, rawDatabase, useTestJournal } from '../../src/journal/test-support.js';
import { testHooks } from '../../src/journal/testing.js';

let journal: Journal;
useTestJournal((j) => { journal = j; });

const MOVE = 'inventory.moves';
const move = (seq: number) => ({ seq, endpoint: MOVE, docKey: `MV-${seq}`, lines: [seq + 2], body: { product_code: 'SKU-1', quantity: 1, from: 'A', to: 'B' } });

/**
 * A file of 40 items: adjustments in blocks of 5 (seqs 0-29 even... interleaved with moves), one block with an error
 * and an uncertain item, mapping-rejected and skipped rows in items, and one block still in flight.
 */
async function mixedFile(): Promise<number> {
  const { fileId } = await journal.claimFile(claimInput('mixed.csv', 'mixed'));
  const evens = Array.from({ length: 15 }, (_, i) => i * 2);
  const odds = Array.from({ length: 10 }, (_, i) => i * 2 + 1);
  for (let i = 0; i < evens.length; i += 5) {
    const seqs = evens.slice(i, i + 5);
    const id = await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', seqs.map((s) => adjustment(s)), { sent: true });
    const outcomes = okOutcomes(seqs);
    if (i === 5) {
      outcomes[1] = { seq: seqs[1], status: 'error', messages: ['insufficient stock'] };
      outcomes[3] = { seq: seqs[3], status: 'uncertain', messages: ['connection reset'], hint: 'look for the move' };
    }
    await journal.completeRequest(id, outcomes);
  }
  for (let i = 0; i < odds.length; i += 5) {
    const seqs = odds.slice(i, i + 5);
    const id = await testHooks(journal).recordBatch(fileId, MOVE, seqs.map(move), { sent: true });
    if (i === 0) await journal.completeRequest(id, okOutcomes(seqs));
  }
  await journal.addItems(fileId, [
    { seq: 30, lines: [32], status: 'error', messages: ['not a number'] },
    { seq: 31, lines: [33], status: 'skipped', messages: ['blank row'] },
    { seq: 33, lines: [35], status: 'error', messages: ['unknown SKU'] },
  ]);
  return fileId;
}

async function allPages(fileId: number, status: RowView['status'] | undefined, limit: number): Promise<RowView[]> {
  const queries = journal.console;
  const rows: RowView[] = [];
  let after: number | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await queries.fileRows(fileId, { status, after, limit });
    rows.push(...page.rows);
    if (page.next === null) return rows;
    after = page.next;
  }
  throw new Error('paging did not end');
}

describe('console queries: one file\'s rows in keyset pages', () => {
  it('pages through items and blocks in seq order, each row once, with the status the journal gives it', async () => {
    const fileId = await mixedFile();
    const expected = (await testHooks(journal).itemsInRange(fileId, 0, 1000)).map((i) => `${i.seq}:${i.status}`);
    expect(expected).toHaveLength(28);
    for (const limit of [1, 3, 7, 100]) {
      expect((await allPages(fileId, undefined, limit)).map((r) => `${r.seq}:${r.status}`), `limit ${limit}`).toEqual(expected);
    }
    for (const status of ['ok', 'error', 'uncertain', 'skipped', 'sent'] as const) {
      const want = expected.filter((e) => e.endsWith(`:${status}`));
      expect(want.length, status).toBeGreaterThan(0);
      expect((await allPages(fileId, status, 2)).map((r) => `${r.seq}:${r.status}`), status).toEqual(want);
    }
    const rows = await allPages(fileId, undefined, 100);
    expect(rows.find((r) => r.seq === 0)).toMatchObject({ docKey: 'SKU-0', lines: [2], result: { move_id: 1000 }, itemId: null });
    expect(rows.find((r) => r.seq === 16)).toMatchObject({ status: 'uncertain', hint: 'look for the move', messages: ['connection reset'], itemId: expect.any(Number) });
  });

  it('lists files newest first with filters and keyset pages, and records operator actions', async () => {
    const queries = journal.console;
    for (let i = 0; i < 7; i++) {
      const { fileId } = await journal.claimFile({ ...claimInput(`F_${i}.csv`, `c${i}`), drop: i % 2 ? 'b' : 'a' });
      await journal.addItems(fileId, [adjustment(0)]);
      if (i % 3 === 0) await journal.rejectFile(fileId, 'bad header');
    }
    const names = (list: Array<{ name: string }>) => list.map((f) => f.name);
    expect(names(await testHooks(journal).consoleFiles({ limit: 3 }))).toEqual(['F_6.csv', 'F_5.csv', 'F_4.csv']);
    const second = await testHooks(journal).consoleFiles({ limit: 3, before: (await testHooks(journal).consoleFiles({ limit: 3 }))[2].fileId });
    expect(names(second)).toEqual(['F_3.csv', 'F_2.csv', 'F_1.csv']);
    expect(names(await testHooks(journal).consoleFiles({ limit: 10, status: 'rejected' }))).toEqual(['F_6.csv', 'F_3.csv', 'F_0.csv']);
    expect(names(await testHooks(journal).consoleFiles({ limit: 10, drop: 'b', status: 'processing' }))).toEqual(['F_5.csv', 'F_1.csv']);
    expect(names(await testHooks(journal).consoleFiles({ limit: 10, name: 'f_4' }))).toEqual(['F_4.csv']);
    expect(names(await testHooks(journal).consoleFiles({ limit: 10, name: 'f%4' }))).toEqual([]); // a wildcard in the name matches only itself
    expect(names(await testHooks(journal).consoleFiles({ limit: 10, mappings: ['other'] }))).toEqual([]);
    expect(await testHooks(journal).consoleFiles({ limit: 10, from: '2100-01-01T00:00:00Z' })).toEqual([]);

    const id = await queries.recordAction({ action: 'redrive', fileId: 1, target: null, actor: 'ops', via: 'console', detail: 'x', outcome: 'ok' });
    expect(await queries.listActions({ limit: 5 })).toEqual([expect.objectContaining({ id, action: 'redrive', actor: 'ops', at: expect.stringMatching(/^\d{4}-/) })]);
    expect(await queries.listActions({ fileId: 2, limit: 5 })).toEqual([]);
    expect(await queries.stats(journal.location)).toMatchObject({ bytes: expect.any(Number), oldestEntry: expect.stringMatching(/^2026-03-01T/) });
  });

  it('every page query is an index search (EXPLAIN QUERY PLAN), never a scan of items, blocks or files', () => {
    const plan = (query: string | SqlQuery) => {
      const { sql, params } = typeof query === 'string' ? { sql: query, params: Array.from(query.matchAll(/\?/g), () => 1) } : query;
      const rows = rawDatabase(journal).prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params);
      return (rows as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
    };
    const noScan = (text: string) => expect(text).not.toMatch(/SCAN (items|item_blocks|files|b|r)\b(?! USING)/);
    const CONSOLE_SQL = consoleSql('sqlite');
    for (const [name, sql] of Object.entries(CONSOLE_SQL)) {
      const text = plan(sql);
      noScan(text);
      expect(text, name).toMatch(/SEARCH/);
    }
    expect(plan(CONSOLE_SQL.blocksAfter)).toContain('USING INDEX item_blocks_first_seq');
    expect(plan(CONSOLE_SQL.items)).toContain('USING INDEX items_file_seq');
    expect(plan(fileListSql('sqlite', { status: 'failed', before: 10, limit: 1 }))).toContain('USING INDEX files_status_id');
    expect(plan(fileListSql('sqlite', { drop: 'a', before: 10, limit: 1 }))).toContain('USING INDEX files_drop_id');
    // Newest first without a filter walks the primary key backwards and stops after one page.
    expect(plan(fileListSql('sqlite', { before: 10, limit: 1 }))).toMatch(/SEARCH files USING INTEGER PRIMARY KEY/);
    expect(plan(fileListSql('sqlite', { from: '2026-01-01', to: '2026-01-02', limit: 1 }))).toContain('files_claimed');
    // The file events of the list: their primary key backwards, the original file by its key.
    const events = plan(fileEventListSql('sqlite', { beforeEvent: 10, name: 'x', limit: 1 }));
    expect(events).toMatch(/SEARCH e USING INTEGER PRIMARY KEY/);
    expect(events).toMatch(/SEARCH o USING INTEGER PRIMARY KEY/);
  });
});
