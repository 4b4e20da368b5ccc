import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { JOURNAL_TABLES, migrateJournal } from '../../src/journal/admin/copy.js';
import { openJournal, SCHEMA_VERSION, type Journal } from '../../src/journal/index.js';
import { openPostgres } from '../../src/journal/postgres/index.js';
import { adjustment, okOutcomes, tempDir } from '../../src/journal/test-support.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { freshDatabase, TEST_PG_PASSWORD_ENV, type FreshDatabase } from '../support/postgres.js';
import { ROOT, runInboundOnce, workspace, type Workspace } from '../pipeline/helpers.js';
import { testHooks } from '../../src/journal/testing.js';

/**
 * `wisbridge journal migrate`: a SQLite journal written by the real pipeline and the journal's own calls, copied into
 * a real PostgreSQL database, then used there by the pipeline and the journal as if it had always lived there.
 */
const server = inject('postgres');
const emu = useEmulator();
const EP = 'inventory.adjustments';
const databases: FreshDatabase[] = [];

async function database(): Promise<FreshDatabase> {
  const db = await freshDatabase();
  databases.push(db);
  return db;
}
afterAll(async () => {
  for (const db of databases) await db.drop();
});

/** Runs `wisbridge ARGS` in this process: its exit code and what it wrote. */
async function wisbridge(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
  try {
    return { code: await main(args), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const migrateTo = (from: string, db: FreshDatabase) => wisbridge(['journal', 'migrate', '--from', from, '--to', db.url, '--password-env', TEST_PG_PASSWORD_ENV]);

/** Every row of every table, in key order: SQLite's and PostgreSQL's must be the same values. */
async function contents(read: (sql: string) => Promise<unknown[]>): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of JOURNAL_TABLES) out[table.name] = await read(`SELECT * FROM ${table.name} ORDER BY ${table.key.join(', ')}`);
  return out;
}
const sqliteContents = (path: string) => {
  const db = new Database(path, { readonly: true });
  return contents(async (sql) => db.prepare(sql).all()).finally(() => db.close());
};

interface Source {
  ws: Workspace;
  path: string;
  korrFileId: number;
  uncertainFileId: number;
  exportId: number;
  /** Highest id per table with an identity; null for a table the source holds no row of (e.g. alerts). */
  maxIds: Record<string, number | null>;
}

/**
 * A journal holding a bit of everything: a file the pipeline finished (KORR: ok, refused and rejected rows), a file
 * with an uncertain row, one whose uncertain row was resolved (history), a pruned one, an export with acknowledgements
 * pending, more export records and cursors than one chunk, a schedule's last run, a file sequence, file events and an
 * operator action.
 */
async function buildSource(): Promise<Source> {
  const ws = workspace({ url: emu.url, token: emu.token });
  ws.drop('KORR_20261120.csv');
  const first = (await runInboundOnce(ws)).files[0]!;
  expect(first.outcome).toBe('failed');
  const path = join(ws.dir, 'journal.sqlite');
  const old = await openJournal(path, { now: () => new Date('2020-01-01T00:00:00Z') });
  const pruned = (await old.claimFile({ drop: 'wms', name: 'OLD.csv', checksum: 'old', size: 10, mapping: 'adjustments' })).fileId;
  const oldRequest = await testHooks(old).recordBatch(pruned, EP, [adjustment(0)], { sent: true });
  await old.completeRequest(oldRequest, okOutcomes([0]));
  await old.finishFile(pruned);
  await old.close();

  const journal = await openJournal(path);
  let uncertainFileId: number;
  let exportId: number;
  try {
    expect((await journal.pruneJournal({ olderThan: '2021-01-01T00:00:00Z' })).files).toBe(1);
    uncertainFileId = await withUncertainRow(journal, 'UNC.csv');
    const resolved = await withUncertainRow(journal, 'RES.csv');
    await journal.resolveUncertain({ fileId: resolved, seqs: [1] }, { resolution: 'applied', note: 'seen in the WMS', by: 'ops' });
    const records = Array.from({ length: 40 }, (_, i) => ({ id: 1001 + i, number: `SO-${1001 + i}` }));
    exportId = await journal.beginExport({ workType: 'customerShipments', fileName: 'SO_WORK_1.csv', policy: 'on-export', records });
    await journal.markExportWritten(exportId);
    await journal.recordAcknowledgements(exportId, [{ id: 1001, status: 'acknowledged' }]);
    await journal.setCursor('schedule:nightly', '2026-11-21T02:00:00.000Z');
    for (let i = 0; i < 35; i++) await journal.setCursor(`products:job-${String(i).padStart(2, '0')}`, JSON.stringify({ max: i }));
    await journal.nextFileSequence('customerShipments');
    await journal.nextControlNumber('acme', 'interchange', 3);
    await journal.recordFileEvent({ drop: 'wms', name: 'EMPTY.csv', kind: 'rejected', reason: 'empty file' });
    await journal.console.recordAction({ action: 'resolve', fileId: resolved, target: 'seq 1', actor: 'ops', via: 'console', detail: null, outcome: 'ok' });
  } finally {
    await journal.close();
  }
  const db = new Database(path, { readonly: true });
  const maxIds = Object.fromEntries(JOURNAL_TABLES.filter((t) => t.identity).map((t) => [t.name, (db.prepare(`SELECT max(id) AS m FROM ${t.name}`).get() as { m: number | null }).m]));
  db.close();
  return { ws, path, korrFileId: first.fileId!, uncertainFileId, exportId, maxIds };
}

/** A finished file: seq 0 ok, 1 uncertain, 2 refused. */
async function withUncertainRow(journal: Journal, name: string): Promise<number> {
  const { fileId } = await journal.claimFile({ drop: 'wms', name, checksum: `sum-${name}`, size: 100, mapping: 'adjustments' });
  const requestId = await testHooks(journal).recordBatch(fileId, EP, [0, 1, 2].map((seq) => adjustment(seq)), { sent: true });
  await journal.completeRequest(requestId, [...okOutcomes([0]), { seq: 1, status: 'uncertain', hint: 'look for ADJ-1' }, { seq: 2, status: 'error', messages: ['unknown product'] }]);
  expect(await journal.finishFile(fileId)).toBe('failed');
  return fileId;
}

/** Points the workspace's configuration at the PostgreSQL database. */
function useDatabase(ws: Workspace, db: FreshDatabase): void {
  const yaml = readFileSync(ws.configFile, 'utf8').replace(/^journal: .*$/m, `journal: { url: "${db.url}", password: { env: ${TEST_PG_PASSWORD_ENV} } }`);
  writeFileSync(ws.configFile, yaml);
}

describe('wisbridge journal migrate', () => {
  let source: Source;
  let db: FreshDatabase;
  let moved: { code: number; stdout: string; stderr: string };
  let pg: Journal;

  beforeAll(async () => {
    source = await buildSource();
    db = await database();
    moved = await migrateTo(source.path, db);
    pg = await openJournal(db.config);
  });
  afterAll(async () => {
    await pg?.close();
  });

  it('copies every row of every table as it is, prints the counts of both sides and verifies them', async () => {
    expect(moved.code, moved.stderr).toBe(0);
    const before = await sqliteContents(source.path);
    const engine = await openPostgres(db.config);
    try {
      expect(await contents((sql) => engine.port.all(sql))).toEqual(before);
    } finally {
      await engine.close();
    }
    for (const table of JOURNAL_TABLES) {
      const n = before[table.name]!.length;
      expect(moved.stdout).toMatch(new RegExp(`^${table.name} +${n} +${n}$`, 'm'));
    }
    expect(before.export_records).toHaveLength(40);
    expect(moved.stdout).toMatch(/^verified: every table holds as many rows as the source; \d+ row\(s\) copied/m);
    expect(moved.stdout).toMatch(/^schedules' last runs \(copied in cursors\): nightly$/m);
    expect(moved.stdout).toContain(`to:   ${db.url} (PostgreSQL`);
    // Progress first, then the summary, both on stdout; no bare version numbers that read as a downgrade.
    expect(moved.stdout).toMatch(/^copied items: \d+ row\(s\)/m);
    expect(moved.stdout.indexOf('copied items:')).toBeLessThan(moved.stdout.indexOf('from: '));
    expect(moved.stdout).toMatch(/^from: .* \(SQLite journal, SQLite schema \d+, current\)$/m);
    expect(moved.stdout).toMatch(/^to: {3}.* \(PostgreSQL journal, PostgreSQL schema \d+, current; /m);
  });

  it('a file finished on SQLite and dropped again is a duplicate on PostgreSQL, through the pipeline: nothing is sent again', async () => {
    const sent = (await adminState(emu, ['adjustments'])).adjustments.length;
    useDatabase(source.ws, db);
    source.ws.drop('KORR_20261120.csv');
    const again = (await runInboundOnce(source.ws)).files[0]!;
    expect(again.outcome).toBe('duplicate');
    expect(source.ws.result(again.resultFile!)[0]!.message).toMatch(/^duplicate: the same content was already processed as KORR_20261120\.csv/);
    expect((await adminState(emu, ['adjustments'])).adjustments).toHaveLength(sent);
    expect((await pg.recentFileEvents(5))[0]).toMatchObject({ kind: 'duplicate', name: 'KORR_20261120.csv', originalFileId: source.korrFileId });
    // The pruned file's checksum came along: still a duplicate.
    expect(await pg.claimFile({ drop: 'wms', name: 'OLD-again.csv', checksum: 'old', size: 10, mapping: 'adjustments' })).toMatchObject({ status: 'duplicate' });
  });

  it('an uncertain row is still uncertain and can be resolved there', async () => {
    const [row] = await pg.uncertainItems(source.uncertainFileId);
    expect(row).toMatchObject({ seq: 1, status: 'uncertain', hint: 'look for ADJ-1' });
    const outcome = await pg.resolveUncertain({ fileId: source.uncertainFileId, seqs: [1] }, { resolution: 'not-applied', note: 'not in the WMS', by: 'ops' });
    expect(outcome).toEqual({ resolved: 1, files: [{ fileId: source.uncertainFileId, status: 'failed' }] });
    expect(await pg.uncertainItems(source.uncertainFileId)).toEqual([]);
    expect(await pg.fileSummary(source.uncertainFileId)).toMatchObject({ ok: 1, error: 2, uncertain: 0 });
    expect((await pg.getFile(source.uncertainFileId)).status).toBe('failed');
  });

  it('a pending acknowledgement is still pending', async () => {
    const pending = await pg.pendingAcknowledgements('customerShipments');
    expect(pending.map((r) => r.id)).toEqual(Array.from({ length: 39 }, (_, i) => 1002 + i));
    expect(await pg.exportsDueForAcknowledgement('customerShipments')).toEqual([source.exportId]);
    expect(await pg.getCursor('schedule:nightly')).toBe('2026-11-21T02:00:00.000Z');
  });

  it('new ids after the move come after the copied ones, in every table with an identity', async () => {
    const { fileId } = await pg.claimFile({ drop: 'wms', name: 'NEW.csv', checksum: 'new', size: 10, mapping: 'adjustments' });
    await pg.addItems(fileId, [{ seq: 5, lines: [7], docKey: 'bad', status: 'error', messages: ['no SKU'] }]);
    const requestId = await testHooks(pg).recordBatch(fileId, EP, [adjustment(0)], { sent: true });
    const exportId = await pg.beginExport({ workType: 'customerShipments', fileName: 'SO_WORK_2.csv', records: [{ id: 5001, number: 'SO-5001' }] });
    const event = await pg.recordFileEvent({ drop: 'wms', name: 'EMPTY2.csv', kind: 'rejected', reason: 'empty file' });
    const action = await pg.console.recordAction({ action: 'retry', fileId, target: null, actor: 'ops', via: 'console', detail: null, outcome: 'ok' });
    expect(fileId).toBeGreaterThan(source.maxIds.files!);
    expect(requestId).toBeGreaterThan(source.maxIds.requests!);
    expect(exportId).toBeGreaterThan(source.maxIds.exports!);
    expect(event.eventId).toBeGreaterThan(source.maxIds.file_events!);
    expect(action).toBeGreaterThan(source.maxIds.operator_actions!);
    expect((await pg.failedItems(fileId))[0]!.itemId).toBeGreaterThan(source.maxIds.items!);
    const engine = await openPostgres(db.config);
    try {
      for (const table of JOURNAL_TABLES.filter((t) => t.identity)) {
        const next = await engine.port.get<{ n: number }>(`SELECT nextval(pg_get_serial_sequence('${table.name}', 'id')) AS n`);
        const copied = source.maxIds[table.name];
        // A table empty on the source has no id to come after: its sequence starts afresh at 1.
        if (copied === null) expect(next!.n, table.name).toBe(1);
        else expect(next!.n, table.name).toBeGreaterThan(copied!);
      }
    } finally {
      await engine.close();
    }
  });

  it('refuses a target that already holds a journal row, with exit 2, and writes nothing', async () => {
    const target = await database();
    const other = await openJournal(target.config);
    await other.setCursor('schedule:other', '2026-01-01T00:00:00.000Z');
    await other.close();
    const r = await migrateTo(source.path, target);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the target journal is not empty \(rows in cursors\).*nothing was written/);
    const engine = await openPostgres(target.config);
    try {
      expect(await contents((sql) => engine.port.all(sql))).toEqual({ ...Object.fromEntries(JOURNAL_TABLES.map((t) => [t.name, []])), cursors: [expect.objectContaining({ key: 'schedule:other' })] });
    } finally {
      await engine.close();
    }
  });

  it('counts that differ after the copy fail with exit 2 and roll the whole copy back', async () => {
    const target = await database();
    const engine = await openPostgres(target.config);
    try {
      // A trigger that silently drops one operator action: the copy reports success row by row, the counts do not.
      await engine.port.run("CREATE FUNCTION skip_row() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END'");
      await engine.port.run('CREATE TRIGGER lose_one BEFORE INSERT ON operator_actions FOR EACH ROW EXECUTE FUNCTION skip_row()');
      const r = await migrateTo(source.path, target);
      expect(r.code).toBe(2);
      expect(r.stdout).toMatch(/^operator_actions +1 +0 +DIFFERS$/m);
      expect(r.stderr).toMatch(/row counts of the copy differ.*rolled back/);
      for (const table of JOURNAL_TABLES) expect(await engine.port.get(`SELECT 1 AS one FROM ${table.name} LIMIT 1`), table.name).toBeUndefined();
    } finally {
      await engine.close();
    }
  });

  it('takes the target from the journal: of --config, and refuses a configuration whose journal is a SQLite file', async () => {
    const target = await database();
    const configFile = join(source.ws.dir, 'to-postgres.yaml');
    const yaml = readFileSync(source.ws.configFile, 'utf8').replace(/^journal: .*$/m, `journal: { url: "${target.url}", password: { env: ${TEST_PG_PASSWORD_ENV} } }`);
    writeFileSync(configFile, yaml);
    const r = await wisbridge(['journal', 'migrate', '--from', source.path, '--config', configFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`to:   ${target.url} (PostgreSQL`);
    writeFileSync(configFile, yaml.replace(/^journal: .*$/m, 'journal: other.sqlite'));
    const sqlite = await wisbridge(['journal', 'migrate', '--from', source.path, '--config', configFile]);
    expect(sqlite.code).toBe(2);
    expect(sqlite.stderr).toMatch(/is a SQLite file, not a PostgreSQL database/);
  });

  it('refuses a source whose schema version is not this bridge\'s', async () => {
    const tmp = tempDir();
    try {
      for (const [version, words] of [[SCHEMA_VERSION + 1, 'newer'], [SCHEMA_VERSION - 1, 'older']] as const) {
        const copy = join(tmp.dir, `v${version}.sqlite`);
        copyFileSync(source.path, copy);
        const raw = new Database(copy);
        raw.prepare('DELETE FROM schema_version WHERE version > ?').run(version);
        if (version > SCHEMA_VERSION) raw.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(version, new Date().toISOString());
        raw.close();
        const target = await database();
        const r = await migrateTo(copy, target);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`has schema version ${version}, ${words} than this bridge's (${SCHEMA_VERSION})`);
      }
    } finally {
      tmp.remove();
    }
  });

  it('runs through bin/wisbridge.js with the password from a file, and never prints it', async () => {
    const target = await database();
    const secret = join(source.ws.dir, 'pg-password');
    writeFileSync(secret, `${server.owner.password}\n`, { mode: 0o600 });
    const env = { ...process.env, [TEST_PG_PASSWORD_ENV]: '' };
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/wisbridge.js'), 'journal', 'migrate', '--from', source.path, '--to', target.url, '--password-file', secret],
      { cwd: ROOT, env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^files +\d+ +\d+$/m);
    expect(r.stdout).toMatch(/^verified: /m);
    expect(r.stdout + r.stderr).not.toContain(server.owner.password);

    const inUrl = target.url.replace(`${server.owner.user}@`, `${server.owner.user}:${server.owner.password}@`);
    const refused = spawnSync(process.execPath, [join(ROOT, 'bin/wisbridge.js'), 'journal', 'migrate', '--from', source.path, '--to', inUrl], { cwd: ROOT, env, encoding: 'utf8' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/--to holds a password/);
    expect(refused.stdout + refused.stderr).not.toContain(server.owner.password);
  });
});

describe('the tables journal migrate copies', () => {
  it('are every table of the SQLite schema and of the PostgreSQL schema, with the same columns', async () => {
    const tmp = tempDir();
    const db = await database();
    const sqlite = await openJournal(tmp.path);
    const engine = await openPostgres(db.config);
    try {
      const raw = new Database(tmp.path, { readonly: true });
      const sqliteTables = (raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
      const columns = (table: string) => (raw.prepare('SELECT name FROM pragma_table_info(?) ORDER BY name').all(table) as Array<{ name: string }>).map((r) => r.name);
      const pgTables = (await engine.port.all<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name")).map((r) => r.name);
      const expected = [...JOURNAL_TABLES.map((t) => t.name), 'schema_version'].sort();
      expect(sqliteTables).toEqual(expected);
      expect(pgTables).toEqual(expected);
      for (const table of JOURNAL_TABLES) {
        const pgColumns = (await engine.port.all<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY column_name', [table.name])).map((r) => r.name);
        expect(pgColumns, table.name).toEqual(columns(table.name));
      }
      raw.close();
    } finally {
      await sqlite.close();
      await engine.close();
      tmp.remove();
    }
  });

  it('pages through every table a chunk at a time (numeric, composite and text keys) without losing or repeating a row', async () => {
    const source = await buildSource();
    const db = await database();
    const tables: string[] = [];
    // 200 bytes: after a first chunk of a few dozen rows, one row per statement.
    const report = await migrateJournal(source.path, db.config, { chunkBytes: 200, onTable: (table) => tables.push(table) });
    expect(report.verified).toBe(true);
    expect(tables).toEqual(JOURNAL_TABLES.map((t) => t.name));
    const engine = await openPostgres(db.config);
    try {
      expect(await contents((sql) => engine.port.all(sql))).toEqual(await sqliteContents(source.path));
    } finally {
      await engine.close();
    }
  });
});
