import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import type pg from 'pg';
import { redact, readSecret, type SecretSource } from '../../secret.js';
import { WisbridgeError } from '../../errors.js';
import type { PostgresJournalConfig } from './options.js';

export type { PostgresJournalConfig, PostgresJournalInput } from './options.js';

/** Where the journal lives, without secrets: for logs, errors and `storage()`. */
export interface PostgresTarget {
  user: string;
  host: string;
  port: number;
  database: string;
  /** `postgres://user@host:port/database`. */
  location: string;
}

export function postgresTarget(config: PostgresJournalConfig): PostgresTarget {
  const url = new URL(config.url);
  const user = decodeURIComponent(url.username);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port === '' ? 5432 : Number(url.port);
  const database = decodeURIComponent(url.pathname.slice(1));
  return { user, host, port, database, location: `postgres://${url.username}@${url.host}/${url.pathname.slice(1)}` };
}

export interface ConnectOptions {
  /** Folder that relative file references (password, TLS files) are read from; the working folder when absent. */
  baseDir?: string;
}

/** The settings of a pg pool for this configuration, secrets read; `password()` is the last one read. */
export async function poolConfig(config: PostgresJournalConfig, options: ConnectOptions = {}): Promise<{ pool: pg.PoolConfig; password: () => string | undefined }> {
  const target = postgresTarget(config);
  const path = (p: string) => (isAbsolute(p) ? p : resolve(options.baseDir ?? '.', p));
  const source: SecretSource | undefined = config.password === undefined ? undefined
    : 'env' in config.password ? { env: config.password.env } : { file: path(config.password.file) };
  const what = `password of the journal database ${target.location}`;
  // Read once now (a missing secret fails the start) and again for each new connection (a rotated file is taken).
  let last = source === undefined ? undefined : await readSecret(source, what);
  const ssl = config.tls === undefined ? false : await tlsOptions(config.tls, path);
  return {
    password: () => last,
    pool: {
      host: target.host,
      port: target.port,
      user: target.user,
      database: target.database,
      password: source === undefined ? undefined : async () => (last = await readSecret(source, what)),
      ssl,
      max: config.pool.max,
      connectionTimeoutMillis: config.pool.connect_timeout_ms,
      statement_timeout: config.pool.statement_timeout_ms,
      idle_in_transaction_session_timeout: config.pool.idle_in_transaction_timeout_ms,
      application_name: 'wisbridge',
      keepAlive: true,
      options: config.schema === undefined ? undefined : `-c search_path=${config.schema}`,
    },
  };
}

async function tlsOptions(tls: NonNullable<PostgresJournalConfig['tls']>, path: (p: string) => string): Promise<ConnectionOptions> {
  const read = async (file: string | undefined, what: string) => {
    if (file === undefined) return undefined;
    try {
      return await readFile(path(file), 'utf8');
    } catch (error) {
      throw new WisbridgeError('CONFIG_INVALID', `the journal's TLS ${what} file ${path(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
    }
  };
  return {
    rejectUnauthorized: tls.reject_unauthorized,
    ca: await read(tls.ca, 'certificate authority'),
    cert: await read(tls.cert, 'client certificate'),
    key: await read(tls.key, 'client key'),
  };
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH)/;

/**
 * A failure of the journal database in words an operator acts on: which server, and whether it is the network, the
 * login, the database's existence or TLS. A WisbridgeError passes through (a missing secret). The message never holds
 * the password: none is in the URL, and the text is redacted once more in case the server or a library quoted it.
 */
export function journalDatabaseError(error: unknown, target: PostgresTarget, password?: string): WisbridgeError {
  if (error instanceof WisbridgeError) return error;
  const e = error as { code?: string; message?: string; errors?: unknown[] };
  // A host name resolving to several addresses fails with an AggregateError: its first error says why.
  const first = (Array.isArray(e.errors) && e.errors[0] ? e.errors[0] : e) as { code?: string; message?: string };
  const code = first.code ?? e.code ?? '';
  const reason = first.message || e.message || String(error);
  const at = `the journal database ${target.location}`;
  const server = `${target.host}:${target.port}`;
  const fromServer = sqlState(first) !== undefined;
  let message: string;
  if (code === 'ECONNREFUSED') message = `cannot reach ${at}: connection refused at ${server} (is PostgreSQL running and listening there?)`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') message = `cannot reach ${at}: the host name ${target.host} is not found`;
  else if (TLS_CODES.test(code) || (!fromServer && /\bSSL\b|\bTLS\b|certificate/i.test(reason))) message = `TLS with ${at} failed: ${reason}`;
  else if (/client password must be a string|password must be a string/i.test(reason)) {
    message = `${at} asks for a password and none is configured: give password: { env: NAME } or { file: PATH }`;
  } else if (!fromServer && (['EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EPIPE'].includes(code) || /timeout|terminated/i.test(reason))) {
    message = `cannot reach ${at}: ${server} is unreachable, does not answer or dropped the connection (${reason})`;
  } else if (code === '28P01') message = `${at} refused the login of role "${target.user}": wrong password (${reason})`;
  else if (code === '28000') message = `${at} refused the login of role "${target.user}" (${reason})`;
  else if (code === '3D000') message = `the database "${target.database}" does not exist on ${server}: create it (CREATE DATABASE) or correct the URL`;
  else if (code === '53300') message = `${at} has no free connection (${reason}): lower pool.max or raise the server's max_connections`;
  else if (code === '57014') message = `${at} cancelled a statement (${reason}): see pool.statement_timeout_ms`;
  else if (['57P01', '57P02', '57P05'].includes(code)) message = `${at} ended the connection: ${reason} (a restart, or an administrator ended the session)`;
  else if (code === '57P03') message = `${at} is not accepting connections yet (${reason})`;
  else message = `${at} failed: ${reason}${fromServer ? ` (SQLSTATE ${code})` : ''}`;
  return new WisbridgeError('JOURNAL', redact(message, password), { cause: error });
}

/**
 * The SQLSTATE of an error the server sent (pg's DatabaseError carries `code` and `severity`), else undefined. Told
 * apart by shape, not by class, so that reading a configuration never loads the driver.
 */
export function sqlState(error: unknown): string | undefined {
  const e = error as { code?: unknown; severity?: unknown } | null;
  return e !== null && typeof e === 'object' && typeof e.code === 'string' && typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(e.code)
    ? e.code : undefined;
}
