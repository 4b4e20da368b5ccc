import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openJournal, type Journal, type JournalTarget } from '../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes, tempDir, type TempDir } from '../../src/journal/test-support.js';
import { freshDatabase, type FreshDatabase } from '../support/postgres.js';
import { testHooks } from '../../src/journal/testing.js';
import { MIGRATION_STEPS } from '../../src/journal/sqlite/migrations.js';
import { PG_MIGRATION_STEPS } from '../../src/journal/postgres/migrations.js';

/**
 * A journal of the format before schema version 12 (PostgreSQL 7): a block searched through a Bloom filter
 * (block_terms) and no term index, a finished file without a result name. Made from a current journal with raw SQL
 * (the rows those versions wrote), its version set back; reopening it runs the migration.
 */
const OLD_FORMAT = [
  'DELETE FROM block_index',
  'DELETE FROM block_tokens',
  'CREATE TABLE block_terms (request_id BIGINT NOT NULL, part INTEGER NOT NULL, file_id BIGINT NOT NULL, terms TEXT NOT NULL, PRIMARY KEY (request_id, part))',
  "INSERT INTO block_terms (request_id, part, file_id, terms) SELECT request_id, 3, file_id, 'AAAAAAAAAAA=' FROM item_blocks",
  "UPDATE files SET result_name = NULL, disposed_to = 'unknown'",
];

/** The version that dropped the Bloom filters (the migration whose step is upgradeLegacyRows): it and those after it run again. */
const legacyVersion = (steps: ReadonlyMap<number, unknown>) => [...steps.keys()].at(-1)! + 1;
const setBack = (version: number) => `DELETE FROM schema_version WHERE version >= ${version}`;

/** Records a finished file of three rows in one block; resolves its id. */
async function finishedFile(journal: Journal): Promise<number> {
  const { fileId } = await journal.claimFile(claimInput('KORR_20261120.csv', 'legacy'));
  const items = [0, 1, 2].map((seq) => adjustment(seq, { body: { product_code: `SKU-${seq}`, order: 'SO-77' } }));
  const requestId = await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', items, { sent: true });
  await journal.completeRequest(requestId, okOutcomes([0, 1, 2]));
  await journal.finishFile(fileId);
  await journal.recordResultName(fileId, 'KORR_20261120.result.csv');
  await journal.recordDisposition(fileId, 'archive/KORR_20261120.csv');
  return fileId;
}

function describeUpgrade(engine: string, legacy: number, open: () => Promise<{ target: JournalTarget; exec: (sql: string) => Promise<void>; tables: () => Promise<string[]> }>) {
  describe(`a journal of the old formats, migrated (${engine})`, () => {
    it('has its old blocks found by the search through their new index, its old files their result names, and no Bloom filters', async () => {
      const { target, exec, tables } = await open();
      let journal = await openJournal(target);
      const fileId = await finishedFile(journal);
      const version = journal.schemaVersion;
      await journal.close();
      for (const statement of [...OLD_FORMAT, setBack(legacy)]) await exec(statement);
      expect(await tables()).toContain('block_terms');

      journal = await openJournal(target);
      try {
        expect(journal.schemaVersion).toBe(version);
        expect(await tables()).not.toContain('block_terms');
        expect((await journal.getFile(fileId)).resultName).toBe('KORR_20261120.result.csv');
        const page = await journal.console.search('so-77', { limit: 10 });
        expect(page.hits.map((h) => [h.file, h.seq, h.matched, h.status])).toEqual([
          ['KORR_20261120.csv', 0, 'body', 'ok'], ['KORR_20261120.csv', 1, 'body', 'ok'], ['KORR_20261120.csv', 2, 'body', 'ok'],
        ]);
        expect(page).toMatchObject({ total: 3, totalAtLeast: false });
        expect((await journal.console.search('SKU-1', { limit: 10 })).hits.map((h) => [h.seq, h.matched])).toEqual([[1, 'document key']]);
      } finally {
        await journal.close();
      }
    });
  });
}

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp?.remove());

describeUpgrade('SQLite', legacyVersion(MIGRATION_STEPS), async () => {
  const path = `${tmp.dir}/old.db`;
  const raw = (fn: (db: Database.Database) => unknown) => {
    const db = new Database(path);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    target: path,
    exec: async (sql) => void raw((db) => db.exec(sql)),
    tables: async () => raw((db) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()) as string[],
  };
});

let database: FreshDatabase | undefined;
afterAll(() => database?.drop());

describeUpgrade('PostgreSQL', legacyVersion(PG_MIGRATION_STEPS), async () => {
  database = await freshDatabase();
  const server = inject('postgres');
  const query = async (sql: string): Promise<pg.QueryResult> => {
    const client = new pg.Client({ host: server.host, port: server.port, user: server.owner.user, password: server.owner.password, database: database!.name });
    await client.connect();
    try {
      return await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    target: database.config,
    exec: async (sql) => void (await query(sql)),
    tables: async () => (await query('SELECT tablename FROM pg_tables WHERE schemaname = current_schema()')).rows.map((r: { tablename: string }) => r.tablename),
  };
});
