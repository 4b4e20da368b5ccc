/*
 * The one seam between the journal's logic and a database engine. The journal's queries are written once, in the SQL
 * that SQLite and PostgreSQL share (positional `?` parameters, `INSERT … ON CONFLICT … RETURNING`, window functions,
 * partial indexes); an engine supplies a SqlPort that runs them, plus its own migrations. Where the two dialects
 * differ the query asks `dialect` (see sqlList below), so every rule about the journal's rows stays in one place.
 */

export type SqlDialect = 'sqlite' | 'postgres';

/** A parameter value: numbers, text, null (booleans are stored as 0 / 1 in both engines). */
export type SqlValue = string | number | null;

export interface SqlPort {
  readonly dialect: SqlDialect;
  /** The first row, or undefined. */
  get<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Every row, as objects keyed by column name. */
  all<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** Every row as an array of its column values, in select order (no object per row). */
  values<T extends unknown[] = unknown[]>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** A statement that returns no rows; resolves to how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /**
   * One unit of work: everything `fn` does through the port it is given commits together, or not at all (a throw
   * rolls back). SQLite runs the units of work of a port one after the other, PostgreSQL side by side (see takeTurn).
   * One nested in another joins it: its writes commit with the outer one's. When a statement or a nested unit inside
   * it throws, the whole unit rolls back, even if `fn` catches the error (no part of a failed write is ever
   * committed). Never await
   * anything but the given port inside `fn`: the engine holds its write lock (SQLite) or a connection (PostgreSQL)
   * until `fn` settles.
   */
  tx<T>(fn: (sql: SqlPort) => Promise<T>): Promise<T>;
}

/**
 * A list parameter: `column IN (SELECT value FROM …)` over one JSON text parameter, in the dialect's words. Kinds: how
 * the elements compare (`int` for ids, `text` for names).
 */
export function sqlList(dialect: SqlDialect, kind: 'int' | 'text'): string {
  if (dialect === 'sqlite') return 'SELECT value FROM json_each(?)';
  return kind === 'int'
    ? 'SELECT value::bigint FROM json_array_elements_text(?::json) AS value'
    : 'SELECT value FROM json_array_elements_text(?::json) AS value';
}

/** Where text `?` first occurs in a text (1-based, 0 when it does not): `instr` in SQLite, `strpos` in PostgreSQL. */
export function sqlPosition(dialect: SqlDialect, haystack: string): string {
  return dialect === 'sqlite' ? `instr(${haystack}, ?)` : `strpos(${haystack}, ?)`;
}

/** The larger of two values in one row (`max(a, b)` in SQLite, `greatest(a, b)` in PostgreSQL). */
export function sqlGreatest(dialect: SqlDialect): string {
  return dialect === 'sqlite' ? 'max' : 'greatest';
}

/** The smaller of two values in one row. */
export function sqlLeast(dialect: SqlDialect): string {
  return dialect === 'sqlite' ? 'min' : 'least';
}

/** The ISO 8601 text every journal timestamp has (`2026-03-01T08:00:00.000Z`), in SQL, from `stamp` (UTC). */
const isoText = (dialect: SqlDialect, stamp: string): string => dialect === 'sqlite'
  ? `strftime('%Y-%m-%dT%H:%M:%fZ', ${stamp})`
  : `to_char((${stamp}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The database's clock now, as the journal's ISO text: leases and heartbeats compare times of several instances, so
 * they are taken from the one clock they share, never an instance's. PostgreSQL: clock_timestamp(), which moves
 * within a transaction (now() is the transaction's start).
 */
export function sqlNowIso(dialect: SqlDialect, offsetMs = 0): string {
  return isoText(dialect, clock(dialect, offsetMs));
}

/** The database's clock plus a number of milliseconds (one `?` parameter, may be negative), as the journal's ISO text. */
export function sqlNowPlusMsIso(dialect: SqlDialect, offsetMs = 0): string {
  return isoText(dialect, dialect === 'sqlite'
    ? `${clock(dialect, offsetMs)}, (CAST(? AS REAL) / 1000) || ' seconds'`
    : `${clock(dialect, offsetMs)} + CAST(? AS BIGINT) * interval '1 millisecond'`);
}

/** The database's clock, moved by a whole number of milliseconds (a journal's lease clock offset, for tests). */
function clock(dialect: SqlDialect, offsetMs: number): string {
  if (!Number.isSafeInteger(offsetMs)) throw new RangeError(`a clock offset is a whole number of milliseconds, not ${offsetMs}`);
  if (dialect === 'sqlite') return offsetMs === 0 ? "'now'" : `'now', '${offsetMs / 1000} seconds'`;
  return offsetMs === 0 ? 'clock_timestamp()' : `(clock_timestamp() + interval '${offsetMs} milliseconds')`;
}

/**
 * Inside a unit of work: units of work that take a turn on the same `key` run one after the other from here to their
 * end, so a check followed by a write (a claim by checksum, an export's records not exported before) is not made by
 * two connections at once. PostgreSQL runs units of work side by side: a transaction-scoped advisory lock. SQLite's
 * units of work already run one at a time (BEGIN IMMEDIATE takes the write lock first).
 */
export async function takeTurn(t: SqlPort, key: string): Promise<void> {
  if (t.dialect === 'postgres') await t.run('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}
