import { WisbridgeError } from '../errors.js';
import { composeJournal, DEFAULT_LEASE_MS, type LeaseOptions } from './compose.js';
import type { InstanceInfo, JournalAddress } from './contract.js';
import type { Journal } from './interfaces.js';
import type { PostgresJournalInput } from './postgres/index.js';
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
  /**
   * Lease mode (`wisbridge run`; a worker thread of it passes the same): claimFile leases the file to this instance and
   * every write for a file checks the lease (LEASE_LOST). Without it no lease is taken or checked (tools, tests).
   */
  instance?: InstanceInfo;
  /** How long a claim's lease lasts before a heartbeat must renew it (default 30 s, the configuration's instance.lease_ms). */
  leaseMs?: number;
  /**
   * Tests, lease mode: how many milliseconds this journal's lease clock is ahead of the database's (leases are judged
   * by the database's clock; this moves what the lease statements take as now): a lease passes at once, without
   * waiting for it. A function is asked at each statement, so a test moves the clock while the journal is open.
   */
  leaseClockOffsetMs?: number | (() => number);
}

export { DEFAULT_LEASE_MS };

function leaseOptions(options: JournalOptions): LeaseOptions | undefined {
  if (options.instance === undefined) return undefined;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) throw new WisbridgeError('CONFIG_INVALID', `a lease must last a positive whole number of milliseconds, not ${leaseMs}`);
  const offset = options.leaseClockOffsetMs;
  const clockOffsetMs = typeof offset === 'number' ? () => offset : offset;
  return { instance: options.instance, leaseMs, clockOffsetMs };
}

/** Opens the journal on its engine and brings its schema up to date (refusing a newer one). */
export async function openJournal(target: JournalTarget, options: JournalOptions = {}): Promise<Journal> {
  const lease = leaseOptions(options);
  if (typeof target === 'string' || ('engine' in target && target.engine === 'sqlite')) {
    const engine = openSqlite(typeof target === 'string' ? target : target.path, options);
    const journal = composeJournal(engine, options.now, lease);
    registerRawDatabase(journal, engine.db);
    return journal;
  }
  const config = 'engine' in target ? (target.connection as PostgresJournalInput & { baseDir?: string }) : target;
  const { baseDir, ...input } = config;
  const pool = options.maxConnections === undefined ? input.pool : { ...input.pool, max: options.maxConnections };
  // Loaded on first use: a SQLite bridge (and each of its mapping threads) never carries the PostgreSQL driver.
  const { openPostgres } = await import('./postgres/index.js');
  const engine = await openPostgres({ ...input, pool }, { baseDir, tally: options.tally });
  return composeJournal({
    port: engine.port,
    address: { engine: 'postgres', connection: config },
    location: engine.location,
    schemaVersion: engine.schemaVersion,
    storage: engine.storage,
    close: engine.close,
  }, options.now, lease);
}
