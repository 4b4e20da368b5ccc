import type Database from 'better-sqlite3';
import type { SqlPort, SqlValue } from '../core/sql.js';
import { secondsSince } from '../core/timings.js';

type Statement = Database.Statement<unknown[], unknown>;

/**
 * The SQLite SqlPort over one better-sqlite3 connection. Every call runs synchronously underneath (better-sqlite3
 * has no asynchronous API); the Promise only keeps the journal's contract engine-neutral. Statements are prepared
 * once per SQL text. A unit of work is `BEGIN IMMEDIATE … COMMIT` on this connection: while one is open, writes and
 * units of work from outside it wait until it ends, so nothing outside it lands in its transaction. Reads (statements SQLite reports
 * read-only) from outside do not wait (a read never changes what a unit of work commits, and waiting would deadlock a unit of work
 * that reads through the outer journal); they may see its rows before it commits, which PostgreSQL's reads would not.
 * A write's Promise resolves once `durable` says its commit is on disk (WalSync); the next unit of work need not wait.
 */
export class SqlitePort implements SqlPort {
  readonly dialect = 'sqlite' as const;
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Statement>();
  /** Settles when the open unit of work ends; undefined when none is open. */
  #busy: Promise<void> | undefined;
  readonly #inside: SqlPort;
  /** What a statement or a unit of work nested in the open one threw: the open one can no longer commit (SqlPort.tx). */
  #failure: { error: unknown } | undefined;

  readonly #durable: () => Promise<void>;
  readonly #translate: (error: unknown) => unknown;
  readonly #beforeWrite: () => void;
  readonly #onCommit: (seconds: number) => void;

  /**
   * `durable`: settles once what the connection committed is on disk (WalSync.durable). `translate`: SQLite's errors
   * as the journal reports them (journalFileError), applied where a statement or a unit of work leaves the port.
   * `beforeWrite`: throws when no write may be made now (FileGuard.check), before a unit of work or a write begins.
   * `onCommit`: told how long each commit held the thread (JournalTally).
   */
  constructor(db: Database.Database, durable: () => Promise<void>, options: { translate?: (error: unknown) => unknown; beforeWrite?: () => void; onCommit?: (seconds: number) => void } = {}) {
    this.#db = db;
    this.#durable = durable;
    this.#translate = options.translate ?? ((error) => error);
    this.#beforeWrite = options.beforeWrite ?? (() => undefined);
    this.#onCommit = options.onCommit ?? (() => undefined);
    const direct = this.#direct();
    this.#inside = { ...direct, tx: (fn) => this.#joined(fn) };
  }

  async get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.#query(() => this.#statement(sql), (s) => s.get(...params) as T | undefined);
  }

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.#query(() => this.#statement(sql), (s) => s.all(...params) as T[]);
  }

  async values<T extends unknown[]>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.#query(() => this.#raw(sql), (s) => s.all(...params) as T[]);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    return this.#query(() => this.#statement(sql), (s) => s.run(...params).changes);
  }

  /**
   * A statement outside a unit of work. A read runs at once; a write (`run`, or `… RETURNING` through get/all/values)
   * waits for the open unit of work, and resolves once its commit is on disk.
   */
  async #query<R>(prepare: () => Statement, execute: (statement: Statement) => R): Promise<R> {
    try {
      const statement = prepare();
      if (statement.readonly) return execute(statement);
      while (this.#busy) await this.#busy;
      this.#beforeWrite();
      const started = performance.now();
      const result = execute(statement);
      this.#onCommit(secondsSince(started));
      await this.#durable();
      return result;
    } catch (error) {
      throw this.#translate(error);
    }
  }

  async tx<T>(fn: (sql: SqlPort) => Promise<T>): Promise<T> {
    while (this.#busy) await this.#busy;
    let done!: () => void;
    this.#busy = new Promise((resolve) => (done = resolve));
    let result: T;
    try {
      this.#beforeWrite();
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        result = await fn(this.#inside);
        if (this.#failure) throw this.#failure.error;
        const started = performance.now();
        this.#db.exec('COMMIT');
        this.#onCommit(secondsSince(started));
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw error;
      }
    } catch (error) {
      throw this.#translate(error);
    } finally {
      this.#failure = undefined;
      this.#busy = undefined;
      done();
    }
    await this.#durable();
    return result;
  }

  /**
   * A unit of work inside another joins its transaction without a savepoint: inside one SQLite first copies every
   * page the nested unit changes to a statement journal (a temporary file past 64 KiB, written over and over in a
   * night of small files, the inbound flow's writes all being nested: docs/performance.md, "Settings chosen by
   * measurement"). Its writes cannot be undone alone, so when it throws the outer unit rolls back, even if it catches
   * the error (SqlPort.tx).
   */
  async #joined<T>(fn: (sql: SqlPort) => Promise<T>): Promise<T> {
    try {
      return await fn(this.#inside);
    } catch (error) {
      this.#failure ??= { error };
      throw error;
    }
  }

  /**
   * The calls a unit of work makes: straight to the connection, whose transaction it is. A statement that fails
   * fails the unit (SqlPort.tx): an `INSERT OR FAIL` keeps the rows it inserted before the failure. After a failure
   * every later statement of the unit is refused, as PostgreSQL does: some errors (SQLITE_FULL, SQLITE_IOERR) end the
   * transaction themselves, and a statement of the unit still under way (calls started together) would then be
   * committed on its own.
   */
  #direct(): Omit<SqlPort, 'tx'> {
    const inUnit = <R>(run: () => R): R => {
      if (this.#failure) throw this.#failure.error;
      try {
        return run();
      } catch (error) {
        this.#failure ??= { error };
        throw error;
      }
    };
    return {
      dialect: 'sqlite',
      get: async <T>(sql: string, params: readonly SqlValue[] = []) => inUnit(() => this.#statement(sql).get(...params) as T | undefined),
      all: async <T>(sql: string, params: readonly SqlValue[] = []) => inUnit(() => this.#statement(sql).all(...params) as T[]),
      values: async <T extends unknown[]>(sql: string, params: readonly SqlValue[] = []) => inUnit(() => this.#raw(sql).all(...params) as T[]),
      run: async (sql: string, params: readonly SqlValue[] = []) => inUnit(() => this.#statement(sql).run(...params).changes),
    };
  }

  #statement(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #raw(sql: string): Statement {
    const key = `raw:${sql}`;
    let statement = this.#statements.get(key);
    if (!statement) {
      statement = this.#db.prepare(sql).raw(true);
      this.#statements.set(key, statement);
    }
    return statement;
  }
}
