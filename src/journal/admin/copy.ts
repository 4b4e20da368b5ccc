import Database from 'better-sqlite3';
import { WisbridgeError } from '../../errors.js';
import type { PostgresJournalInput } from '../postgres/index.js';
import type { SqlPort, SqlValue } from '../core/sql.js';
import { SCHEMA_VERSION } from '../sqlite/migrations.js';
import { journalFileError } from '../sqlite/errors.js';
import { SqlitePort } from '../sqlite/port.js';

/*
 * `wisbridge journal migrate`: a SQLite journal copied row for row into an empty journal on PostgreSQL. The one place
 * besides journal.ts that knows both engines: it reads through the SQLite port and writes through the PostgreSQL one.
 * Both schemas hold the same tables and columns (postgres/migrations.ts), so a row is copied as it is, ids included.
 */

export interface JournalTable {
  name: string;
  /** The primary key: rows are read in its order, a chunk at a time (keyset, never OFFSET). */
  key: readonly string[];
  /** An identity column, whose sequence is set past the highest copied value. */
  identity?: string;
}

/** Every table of the journal but schema_version, a row's references (files, requests, items, exports) before it. */
export const JOURNAL_TABLES: readonly JournalTable[] = [
  { name: 'files', key: ['id'], identity: 'id' },
  { name: 'requests', key: ['id'], identity: 'id' },
  { name: 'items', key: ['id'], identity: 'id' },
  { name: 'item_blocks', key: ['request_id'] },
  { name: 'block_index', key: ['request_id', 'part'] },
  { name: 'block_tokens', key: ['part', 'request_id'] },
  { name: 'item_history', key: ['id'], identity: 'id' },
  { name: 'file_events', key: ['id'], identity: 'id' },
  { name: 'exports', key: ['id'], identity: 'id' },
  { name: 'export_records', key: ['export_id', 'record_id'] },
  { name: 'export_controls', key: ['export_id'] },
  { name: 'export_acks', key: ['export_id'] },
  { name: 'cursors', key: ['key'] },
  { name: 'file_sequences', key: ['work_type'] },
  { name: 'control_numbers', key: ['partner', 'kind'] },
  { name: 'x12_envelopes', key: ['file_id', 'ord'] },
  { name: 'received_interchanges', key: ['sender', 'control'] },
  { name: 'operator_actions', key: ['id'], identity: 'id' },
  { name: 'alerts', key: ['id'], identity: 'id' },
  { name: 'instances', key: ['id'] },
  { name: 'job_ticks', key: ['job', 'tick'] },
  { name: 'file_owners', key: ['id'], identity: 'id' },
];

export interface TableCount {
  table: string;
  source: number;
  target: number;
}

export interface CopyReport {
  /** Rows per table on each side, in copy order. */
  tables: TableCount[];
  /** Whether every table's counts agree. When not, the copy was rolled back: the target holds nothing of it. */
  verified: boolean;
  rows: number;
  ms: number;
  /** The source's cursor keys (schedules' last runs, export cursors): few, one or two per job. */
  cursors: string[];
}

export interface CopyOptions {
  /** About how much row data one statement carries (default 4 MiB): memory stays bounded by a few chunks. */
  chunkBytes?: number;
  /** Called as each table is done. */
  onTable?: (table: string, rows: number, ms: number) => void;
}

const FIRST_CHUNK_ROWS = 32;
const MAX_CHUNK_ROWS = 20_000;
const quote = (name: string) => `"${name}"`;

/**
 * Copies every table of `source` (SQLite) into `target` (PostgreSQL) in one transaction on the target: it refuses a
 * target holding any journal row, copies table by table in key order, sets each identity sequence past the highest
 * copied id, and compares the row counts of both sides before committing. Counts that differ roll the copy back
 * (`verified: false`). The source must not change meanwhile: read it inside a snapshot (migrateJournal does).
 */
export async function copyJournal(source: SqlPort, target: SqlPort, options: CopyOptions = {}): Promise<CopyReport> {
  const started = Date.now();
  const chunkBytes = options.chunkBytes ?? 4 * 1024 * 1024;
  await checkTables(source);
  const columns = new Map<string, string[]>();
  for (const table of JOURNAL_TABLES) columns.set(table.name, await matchingColumns(source, target, table.name));
  const counts: TableCount[] = [];
  for (const table of JOURNAL_TABLES) counts.push({ table: table.name, source: await count(source, table.name), target: 0 });
  const cursors = (await source.values<[string]>('SELECT key FROM cursors ORDER BY key')).map(([key]) => key);

  try {
    await target.tx(async (t) => {
      // A bridge started on the target meanwhile waits for the copy instead of taking ids the copy is about to use.
      await t.run(`LOCK TABLE ${JOURNAL_TABLES.map((table) => table.name).join(', ')} IN EXCLUSIVE MODE`);
      await refuseNonEmpty(t);
      for (const table of JOURNAL_TABLES) {
        const tableStarted = Date.now();
        const copied = await copyTable(source, t, table, columns.get(table.name)!, chunkBytes);
        if (table.identity !== undefined) {
          const id = quote(table.identity);
          await t.get(`SELECT setval(pg_get_serial_sequence('${table.name}', '${table.identity}'), coalesce((SELECT max(${id}) FROM ${table.name}), 0) + 1, false)`);
        }
        options.onTable?.(table.name, copied, Date.now() - tableStarted);
      }
      for (const entry of counts) entry.target = await count(t, entry.table);
      if (counts.some((entry) => entry.source !== entry.target)) throw new CountsDiffer();
    });
  } catch (error) {
    if (!(error instanceof CountsDiffer)) throw error;
    return { tables: counts, verified: false, rows: 0, ms: Date.now() - started, cursors };
  }
  return { tables: counts, verified: true, rows: counts.reduce((n, entry) => n + entry.target, 0), ms: Date.now() - started, cursors };
}

/** Thrown inside the target's transaction to roll it back; copyJournal reports it as `verified: false`. */
class CountsDiffer extends Error {}

/** The source holds exactly the tables this bridge copies: a table added to the schema and not here fails loudly. */
async function checkTables(source: SqlPort): Promise<void> {
  const names = (await source.values<[string]>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_version' ORDER BY name"))
    .map(([name]) => name);
  const known = new Set(JOURNAL_TABLES.map((table) => table.name));
  const unknown = names.filter((name) => !known.has(name));
  const missing = [...known].filter((name) => !names.includes(name));
  if (unknown.length > 0 || missing.length > 0) {
    throw new WisbridgeError('JOURNAL', `the source journal's tables are not the ones this bridge copies (${[
      ...unknown.map((name) => `${name} not copied`), ...missing.map((name) => `${name} missing`)].join(', ')})`);
  }
}

/** The table's columns, in the source's order; the two sides must have the same ones. */
async function matchingColumns(source: SqlPort, target: SqlPort, table: string): Promise<string[]> {
  const ours = (await source.values<[string]>('SELECT name FROM pragma_table_info(?) ORDER BY cid', [table])).map(([name]) => name);
  const theirs = new Set((await target.values<[string]>(
    'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?', [table])).map(([name]) => name));
  const missing = ours.filter((name) => !theirs.has(name));
  const extra = [...theirs].filter((name) => !ours.includes(name));
  if (missing.length > 0 || extra.length > 0) {
    throw new WisbridgeError('JOURNAL', `the target's table ${table} does not match the source's (${[
      ...missing.map((name) => `${name} missing`), ...extra.map((name) => `${name} not in the source`)].join(', ')})`);
  }
  return ours;
}

async function count(sql: SqlPort, table: string): Promise<number> {
  return (await sql.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n ?? 0;
}

async function refuseNonEmpty(target: SqlPort): Promise<void> {
  const holding: string[] = [];
  for (const table of JOURNAL_TABLES) {
    if (await target.get(`SELECT 1 AS one FROM ${table.name} LIMIT 1`)) holding.push(table.name);
  }
  if (holding.length > 0) {
    throw new WisbridgeError('JOURNAL', `the target journal is not empty (rows in ${holding.join(', ')}): `
      + 'journal migrate copies into an empty journal only, so that no id or checksum is mixed with another journal\'s; '
      + 'nothing was written. Give a new database (or schema), or drop the tables of this one if its rows are not needed');
  }
}

/**
 * One table, a chunk at a time: keyset reads on the source, one INSERT of the chunk's rows as a JSON array on the
 * target (one parameter, whatever the chunk's size). The chunk's row count follows the rows' size, so a table of big
 * rows (item_blocks' bodies) and one of small rows both make statements of about chunkBytes.
 */
async function copyTable(source: SqlPort, target: SqlPort, table: JournalTable, columns: readonly string[], chunkBytes: number): Promise<number> {
  const list = columns.map(quote).join(', ');
  const order = table.key.map(quote).join(', ');
  const first = `SELECT ${list} FROM ${table.name} ORDER BY ${order} LIMIT ?`;
  const next = `SELECT ${list} FROM ${table.name} WHERE (${order}) > (${table.key.map(() => '?').join(', ')}) ORDER BY ${order} LIMIT ?`;
  const insert = `INSERT INTO ${table.name} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table.name}, CAST(? AS JSON))`;
  let limit = FIRST_CHUNK_ROWS;
  let after: SqlValue[] | undefined;
  let copied = 0;
  // The next chunk is read while the server inserts the previous one: two chunks in memory at most.
  let inserting: Promise<unknown> = Promise.resolve();
  try {
    for (;;) {
      const rows = await source.all<Record<string, SqlValue>>(after ? next : first, after ? [...after, limit] : [limit]);
      if (rows.length === 0) break;
      const json = JSON.stringify(rows);
      await inserting;
      inserting = target.run(insert, [json]);
      // Heard now, thrown by the next await: a failure while the next chunk is read is not an unhandled rejection.
      inserting.catch(() => undefined);
      copied += rows.length;
      if (rows.length < limit) break;
      const last = rows[rows.length - 1]!;
      after = table.key.map((column) => last[column] ?? null);
      limit = Math.max(1, Math.min(MAX_CHUNK_ROWS, Math.floor((limit * chunkBytes) / json.length)));
    }
  } catch (error) {
    // A read failed: the insert under way settles before the transaction ends, and its own failure is not left unheard.
    await inserting.catch(() => undefined);
    throw error;
  }
  await inserting;
  return copied;
}

/** Where `journal migrate` copies to: a PostgreSQL journal's configuration (relative files resolved from baseDir). */
export type MigrationTarget = PostgresJournalInput & { baseDir?: string };

export interface MigrationReport extends CopyReport {
  from: string;
  /** `postgres://user@host:port/database`: no secret. */
  to: string;
  schemaVersion: number;
  targetSchemaVersion: number;
}

/**
 * Copies the SQLite journal at `from` into the PostgreSQL journal `to` (created or brought to this bridge's schema
 * first). The source is opened read-only and read inside one snapshot; its schema must be this bridge's own version
 * (an older journal is brought up to date by opening it with this bridge once; a newer one by the bridge that wrote it).
 */
export async function migrateJournal(from: string, to: MigrationTarget, options: CopyOptions = {}): Promise<MigrationReport> {
  const db = openSource(from);
  try {
    db.exec('BEGIN');
    const schemaVersion = sourceVersion(db, from);
    const { baseDir, ...config } = to;
    // pg is loaded for a migration only (as openJournal loads it for a PostgreSQL journal): every start would pay its
    // load otherwise (docs/performance.md, "Settings chosen by measurement").
    const { openPostgres } = await import('../postgres/index.js');
    const target = await openPostgres(config, { baseDir });
    try {
      const report = await copyJournal(new SqlitePort(db, READ_ONLY, { translate: (error) => journalFileError(error, from) }), target.port, options);
      return { ...report, from, to: target.location, schemaVersion, targetSchemaVersion: target.schemaVersion };
    } finally {
      await target.close();
    }
  } finally {
    db.close();
  }
}

/** The source is opened read-only: nothing it commits needs syncing. */
const READ_ONLY = async (): Promise<void> => undefined;

function openSource(path: string): Database.Database {
  try {
    return new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new WisbridgeError('JOURNAL', `cannot open the journal ${path}: ${(error as Error).message}`, { cause: error });
  }
}

function sourceVersion(db: Database.Database, path: string): number {
  let version: number;
  try {
    version = (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
  } catch (error) {
    throw new WisbridgeError('JOURNAL', `${path} is not a wisbridge journal (${(error as Error).message})`, { cause: error });
  }
  if (version < SCHEMA_VERSION) {
    throw new WisbridgeError('JOURNAL', `the journal ${path} has schema version ${version}, older than this bridge's (${SCHEMA_VERSION}): `
      + 'run this wisbridge on it once (e.g. journal stats with journal: naming it) to bring it up to date, then migrate it');
  }
  if (version > SCHEMA_VERSION) {
    throw new WisbridgeError('JOURNAL', `the journal ${path} has schema version ${version}, newer than this bridge's (${SCHEMA_VERSION}): `
      + 'migrate it with the wisbridge version that wrote it');
  }
  return version;
}
