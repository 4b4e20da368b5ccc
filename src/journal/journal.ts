import { composeJournal } from './compose.js';
import type { JournalAddress } from './contract.js';
import type { Journal } from './interfaces.js';
import { openPostgres, type PostgresJournalInput } from './postgres/index.js';
import { openSqlite, type SqliteOptions } from './sqlite/engine.js';
import { registerRawDatabase } from './sqlite/raw.js';

/**
 * Where the journal is, as the configuration says it (`journal:`): a SQLite file's path, or a PostgreSQL server
 * (`{ url, password: { env | file }, tls, pool, schema }`, relative files resolved from `baseDir`). A JournalAddress
 * (a journal's `address`) opens the same journal again, e.g. on a worker thread.
 */
export type JournalTarget = string | (PostgresJournalInput & { baseDir?: string }) | JournalAddress;

export interface JournalOptions extends SqliteOptions {
  /** Clock for the timestamps the journal stores (tests); defaults to the system clock. */
  now?: () => Date;
  /** PostgreSQL: connections this process opens at most (a worker thread needs one or two). */
  maxConnections?: number;
}

/** Opens the journal on its engine and brings its schema up to date (refusing a newer one). */
export async function openJournal(target: JournalTarget, options: JournalOptions = {}): Promise<Journal> {
  if (typeof target === 'string' || ('engine' in target && target.engine === 'sqlite')) {
    const engine = openSqlite(typeof target === 'string' ? target : target.path, options);
    const journal = composeJournal(engine, options.now);
    registerRawDatabase(journal, engine.db);
    return journal;
  }
  const config = 'engine' in target ? (target.connection as PostgresJournalInput & { baseDir?: string }) : target;
  const { baseDir, ...input } = config;
  const pool = options.maxConnections === undefined ? input.pool : { ...input.pool, max: options.maxConnections };
  const engine = await openPostgres({ ...input, pool }, { baseDir });
  return composeJournal({
    port: engine.port,
    address: { engine: 'postgres', connection: config },
    location: engine.location,
    schemaVersion: engine.schemaVersion,
    storage: engine.storage,
    close: engine.close,
  }, options.now);
}
