import { dirname, resolve } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { WisbridgeError } from '../../errors.js';
import { newerSchemaError } from '../core/rows.js';
import type { MigrationStep } from '../core/upgrade.js';
import { MIGRATION_STEPS, MIGRATIONS, SCHEMA_VERSION } from './migrations.js';

export type Db = Database.Database;

/** How long a writer waits for another connection's write transaction before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Opens the SQLite file with the settings the journal's guarantees rest on, and brings the schema
 * to the current version. WAL lets readers (status, metrics) run beside the writer. synchronous=NORMAL leaves the
 * sync of each commit to WalSync, which resolves the commit's Promise once its log is on disk: a request recorded as
 * sent really was recorded, and the thread does not stop for the sync.
 */
export function openDatabase(path: string): Db {
  let db: Db;
  try {
    db = new Database(path);
  } catch (error) {
    throw new WisbridgeError('JOURNAL', `cannot open the journal ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const mode = walMode(db);
    if (String(mode).toLowerCase() !== 'wal') throw new Error(`journal_mode is ${String(mode)}, not wal`);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // 16 MiB: the hot path appends; a bigger cache only adds to the bridge's resident memory.
    db.pragma('cache_size = -16000');
    db.pragma('temp_store = FILE');
    keepTemporaryFilesBeside(db, path);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof WisbridgeError) throw error;
    throw new WisbridgeError('JOURNAL', `cannot prepare the journal ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * SQLite's temporary files go to the journal's folder, which must be writable anyway (the -wal and -shm files live
 * there), instead of /var/tmp or /tmp. SQLite writes one when a statement journal outgrows 64 KiB (a savepoint's, or
 * that of a statement that changes several rows and may abort half-way: the journal's units of work avoid both, see
 * SqlitePort and blocks.ts) and when a sort outgrows the page cache. A container with a read-only root file system
 * has no writable /tmp, and there each such statement would fail (SQLITE_IOERR_GETTEMPPATH, "disk I/O error"). The
 * folder is the process's (sqlite3_temp_directory, shared by every connection and thread): set by the first journal
 * the main thread opens, since changing it while another thread creates a temporary file is not safe. SQLite falls
 * back to /var/tmp and /tmp when that folder is gone or read-only.
 */
function keepTemporaryFilesBeside(db: Db, path: string): void {
  if (!isMainThread || path === ':memory:' || db.pragma('temp_store_directory', { simple: true })) return;
  db.pragma(`temp_store_directory = '${dirname(resolve(path)).replaceAll("'", "''")}'`);
}

/**
 * Switches a fresh file to WAL. The switch needs the file to itself and SQLite answers SQLITE_BUSY at once, without
 * its busy handler, while another connection opens the same fresh file (two processes starting together): retried
 * for up to busy_timeout. A file already in WAL answers at once.
 */
function walMode(db: Db): unknown {
  const giveUpAt = Date.now() + BUSY_TIMEOUT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      return db.pragma('journal_mode = WAL', { simple: true });
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > giveUpAt) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
    }
  }
}

function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
  const current = (): number =>
    (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
  // Immediate: two processes opening a fresh journal at once must not both run a migration.
  db.transaction(() => {
    const from = current();
    if (from > SCHEMA_VERSION) {
      throw newerSchemaError(from, SCHEMA_VERSION);
    }
    const insert = db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)');
    for (let version = from; version < SCHEMA_VERSION; version++) {
      db.exec(MIGRATIONS[version]);
      const step = MIGRATION_STEPS.get(version);
      if (step) runStep(db, step);
      insert.run(version + 1, new Date().toISOString());
    }
  }).immediate();
}

/** Runs a migration step inside the migration's transaction, a statement at a time. */
function runStep(db: Db, step: MigrationStep): void {
  const run = step();
  for (let next = run.next(); !next.done;) {
    const statement = db.prepare(next.value.sql);
    const rows = statement.reader ? (statement.raw().all(...next.value.params) as unknown[][]) : (statement.run(...next.value.params), []);
    next = run.next(rows);
  }
}

export function schemaVersion(db: Db): number {
  return (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
}
