import pg from 'pg';
import { WisbridgeError } from '../../errors.js';
import { silentLogger, type Logger } from '../../log.js';
import type { SqlPort, SqlValue } from '../core/sql.js';
import { secondsSince } from '../core/timings.js';
import { sqlState } from './connect.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Counts and sums come back as int8 or numeric, which pg hands over as strings (they may exceed 2^53); the journal's
 * ids and counts never do, and SQLite gives numbers, so this pool parses both as numbers. Set per pool, not on pg's
 * global parser, so no other pg user in the process is affected.
 */
export const journalTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => (oid === INT8_OID || oid === NUMERIC_OID) && format !== 'binary'
    ? Number
    : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** Literals, quoted names and comments, which a `?` inside of is not a parameter, or a `?`. */
const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\?/g;
const translated = new Map<string, string>();

/** The journal's `?` placeholders as PostgreSQL's `$1, $2, …`, worked out once per SQL text. */
export function numberedPlaceholders(sql: string): string {
  let text = translated.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(TOKENS, (token) => (token === '?' ? `$${++n}` : token));
    // The journal's SQL is a fixed set of texts; a bound keeps a caller building texts from growing this forever.
    if (translated.size >= 2000) translated.clear();
    translated.set(sql, text);
  }
  return text;
}

/** The statements of one port: on the pool (each on whichever connection is free) or on a unit of work's client. */
abstract class Statements implements SqlPort {
  readonly dialect = 'postgres' as const;

  /** Runs one statement; a failure becomes a WisbridgeError saying where. */
  protected abstract submit(query: pg.QueryConfig | pg.QueryArrayConfig): Promise<pg.QueryResult>;

  abstract tx<T>(fn: (sql: SqlPort) => Promise<T>): Promise<T>;

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.submit({ text: numberedPlaceholders(sql), values: params as SqlValue[] })).rows[0] as T | undefined;
  }

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.submit({ text: numberedPlaceholders(sql), values: params as SqlValue[] })).rows as T[];
  }

  async values<T extends unknown[]>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.submit({ text: numberedPlaceholders(sql), values: params as SqlValue[], rowMode: 'array' })).rows as T[];
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return (await this.submit({ text: numberedPlaceholders(sql), values: params as SqlValue[] })).rowCount ?? 0;
  }
}

/** Turns a failure of pg into the error the journal throws (connect.ts says it in an operator's words). */
export type ErrorTranslator = (error: unknown) => Error;

/** One unit of work: every statement on the one client that holds its transaction. */
class UnitOfWork extends Statements {
  #client: pg.PoolClient | undefined;
  readonly #translate: ErrorTranslator;

  constructor(client: pg.PoolClient, translate: ErrorTranslator) {
    super();
    this.#client = client;
    this.#translate = translate;
  }

  protected async submit(query: pg.QueryConfig | pg.QueryArrayConfig): Promise<pg.QueryResult> {
    // Once the unit of work has ended its client serves others: a late statement must not land in their transaction.
    if (!this.#client) throw new WisbridgeError('JOURNAL', 'a statement was sent through a unit of work that has already ended');
    // After a failure PostgreSQL refuses every statement of the transaction ("current transaction is aborted"): the
    // error that counts is said again instead.
    if (this.failure) throw this.failure.error;
    try {
      return await this.#client.query(query);
    } catch (error) {
      const translated = this.#translate(error);
      this.failure ??= { error: translated };
      throw translated;
    }
  }

  /** What a statement or a unit of work nested in this one threw: this one can no longer commit (SqlPort.tx). */
  failure: { error: unknown } | undefined;

  /**
   * A unit of work nested in this one joins it as it is, without a savepoint (each would cost two round trips to the
   * server): when it throws, the whole unit fails (SqlPort.tx).
   */
  async tx<T>(fn: (sql: SqlPort) => Promise<T>): Promise<T> {
    try {
      return await fn(this);
    } catch (error) {
      this.failure ??= { error };
      throw error;
    }
  }

  end(): void {
    this.#client = undefined;
  }
}

/**
 * Runs fn inside BEGIN … COMMIT on one client of the pool (ROLLBACK when it throws), then gives the client back. A
 * client whose connection broke meanwhile (its ROLLBACK fails, or it reported an error while checked out, which pg
 * would otherwise throw as uncaught) goes back with the error, so the pool closes it instead of lending it again.
 * fn's own error reaches the caller as it is; the pool's and BEGIN's / COMMIT's pass through translate. `onCommit`:
 * told how long a COMMIT that succeeded took (JournalTally).
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, translate: ErrorTranslator = (e) => e as Error, onCommit?: (seconds: number) => void): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw translate(error);
  }
  let broken: Error | undefined;
  const onError = (error: Error) => (broken ??= error);
  client.on('error', onError);
  const control = async (statement: 'BEGIN' | 'COMMIT') => {
    try {
      await client.query(statement);
    } catch (error) {
      const translated = translate(error);
      if (statement !== 'COMMIT' || !connectionLost(error)) throw translated;
      // The server may have committed before the connection went: the caller must not take the work as undone.
      throw new WisbridgeError('JOURNAL', `the connection was lost during COMMIT: whether the unit of work was recorded is unknown (${translated.message})`, { cause: error });
    }
  };
  try {
    // Not awaited: the unit's first statement follows BEGIN on the wire (the pool's connections pipeline), a round
    // trip less a unit. BEGIN fails only with its connection, which fails the statements behind it too.
    const begun = control('BEGIN');
    begun.catch(() => undefined);
    const result = await fn(client);
    await begun;
    const started = performance.now();
    await control('COMMIT');
    onCommit?.(secondsSince(started));
    return result;
  } catch (error) {
    if (!broken) await client.query('ROLLBACK').catch(onError);
    throw error;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/** The SQLSTATE of an error the server sent; undefined for a failure of the connection itself (socket, TLS, timeout). */

/** A failure of the connection: no answer from the server, or its connection exception / operator intervention. */
function connectionLost(error: unknown): boolean {
  const code = sqlState(error);
  return code === undefined || code.startsWith('08') || code.startsWith('57P');
}

export interface PostgresPortOptions {
  logger?: Logger;
  /** Rewords a pg failure (connect.ts's journalDatabaseError); the error as it is when absent. */
  translate?: ErrorTranslator;
  /** Told how long each unit of work's COMMIT took (JournalTally). */
  onCommit?: (seconds: number) => void;
}

/**
 * The PostgreSQL SqlPort over a pg pool. Outside a unit of work every statement takes whichever pooled connection is
 * free, so statements of different callers run side by side. A unit of work checks one connection out, runs
 * BEGIN … COMMIT on it (ROLLBACK when fn throws) and gives it back; a connection whose ROLLBACK fails is broken and
 * handed back with the error, so the pool closes it instead of lending it again.
 */
export class PostgresPort extends Statements {
  readonly pool: pg.Pool;
  readonly #translate: ErrorTranslator;
  readonly #onCommit: ((seconds: number) => void) | undefined;

  constructor(pool: pg.Pool, options: PostgresPortOptions = {}) {
    super();
    this.pool = pool;
    this.#translate = options.translate ?? ((error) => error as Error);
    this.#onCommit = options.onCommit;
    const logger = options.logger ?? silentLogger;
    // An idle connection that dies (a server restart, a network cut) is reported here; unheard, it would end the process.
    pool.on('error', (error) => logger.warn({ reason: this.#translate(error).message }, 'journal: an idle PostgreSQL connection failed; the pool opens a new one when needed'));
  }

  protected async submit(query: pg.QueryConfig | pg.QueryArrayConfig): Promise<pg.QueryResult> {
    try {
      return await this.pool.query(query);
    } catch (error) {
      throw this.#translate(error);
    }
  }

  async tx<T>(fn: (sql: SqlPort) => Promise<T>): Promise<T> {
    let work: UnitOfWork | undefined;
    try {
      return await inTransaction(this.pool, async (client) => {
        const unit = (work = new UnitOfWork(client, this.#translate));
        const result = await fn(unit);
        if (unit.failure) throw unit.failure.error;
        return result;
      }, this.#translate, this.#onCommit);
    } finally {
      work?.end();
    }
  }

  /** Closes every connection once the statements under way have ended. */
  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
