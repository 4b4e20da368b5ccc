import { constants, existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { WisbridgeError } from '../../errors.js';
import type { JournalTarget } from '../journal.js';
import { journalDatabaseError, poolConfig, postgresTarget, type PostgresJournalInput } from '../postgres/connect.js';
import { newerSchemaError } from '../core/rows.js';
import { SCHEMA_VERSION } from '../sqlite/migrations.js';

/**
 * Checks, without changing anything, that the journal the configuration names can be opened (`wisbridge config
 * check`, and `run` / `batch` before they start). PostgreSQL: one connection logs in and reads the schema version,
 * closed at once. SQLite: the file opens and its folder can be written (WAL files live beside it), or, before the first
 * start, the folder it will be created in can be written. Either way a schema newer than this bridge's is refused,
 * as opening it would be. Throws a WisbridgeError in an operator's words, without the password.
 */
export async function checkJournalReachable(target: JournalTarget): Promise<void> {
  if (typeof target === 'string') await checkSqlite(target);
  else if (!('engine' in target)) await checkPostgres(target);
  else if (target.engine === 'sqlite') await checkSqlite(target.path);
  else await checkPostgres(target.connection as PostgresJournalInput & { baseDir?: string });
}

async function checkPostgres({ baseDir, ...input }: PostgresJournalInput & { baseDir?: string }): Promise<void> {
  const { postgresJournalSchema } = await import('../postgres/options.js');
  const config = postgresJournalSchema.parse(input);
  const target = postgresTarget(config);
  const { pool, password } = await poolConfig(config, { baseDir });
  // Loaded here: checking a SQLite configuration never loads the PostgreSQL driver.
  const [{ default: pg }, { PG_SCHEMA_VERSION }] = await Promise.all([import('pg'), import('../postgres/migrations.js')]);
  const client = new pg.Client(pool);
  // A connection that fails after connecting (a server restart) reports through query(); this keeps it from throwing.
  client.on('error', () => undefined);
  let version: number;
  try {
    await client.connect();
    const table = await client.query<{ t: string | null }>("SELECT to_regclass('schema_version')::text AS t");
    const found = table.rows[0]?.t == null ? undefined : await client.query<{ v: string | null }>('SELECT max(version) AS v FROM schema_version');
    version = Number(found?.rows[0]?.v ?? 0);
  } catch (error) {
    throw journalDatabaseError(error, target, password());
  } finally {
    await client.end().catch(() => undefined);
  }
  refuseNewer(version, PG_SCHEMA_VERSION);
}

async function checkSqlite(path: string): Promise<void> {
  if (!existsSync(path)) {
    // The first start creates the file, and the folders leading to it.
    let folder = dirname(path);
    while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
    await writable(folder, `the journal ${path} does not exist yet, and its folder ${folder}`);
    return;
  }
  let version: number;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true });
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get();
    version = table === undefined ? 0 : (db.prepare('SELECT max(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
  } catch (error) {
    throw new WisbridgeError('JOURNAL', `cannot open the journal ${path}: ${(error as Error).message}`, { cause: error });
  } finally {
    db?.close();
  }
  await writable(path, `the journal ${path}`);
  await writable(dirname(path), `the folder of the journal ${path}`);
  refuseNewer(version, SCHEMA_VERSION);
}

async function writable(path: string, what: string): Promise<void> {
  await access(path, constants.W_OK).catch((error: unknown) => {
    throw new WisbridgeError('JOURNAL', `${what} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  });
}

function refuseNewer(version: number, known: number): void {
  if (version > known) throw newerSchemaError(version, known);
}
