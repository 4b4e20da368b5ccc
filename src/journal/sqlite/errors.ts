import { WisbridgeError } from '../../errors.js';
import { BUSY_TIMEOUT_MS } from './db.js';

/** The codes of the file, its disk or its locks, as opposed to the statement (https://sqlite.org/rescode.html). */
const ENVIRONMENT = /^SQLITE_(FULL|IOERR|READONLY|CORRUPT|NOTADB|BUSY|LOCKED|CANTOPEN|NOMEM|PERM|PROTOCOL)(_|$)/;

/**
 * A failure of the journal's file or disk under a statement or a unit of work, in words an operator acts on: which
 * file, what SQLite said with its code, and what to do (journalDatabaseError is the PostgreSQL engine's). Everything
 * else passes through unchanged: a unit's own errors, and SQLite's answers to a statement it refuses (a syntax error,
 * a constraint), which are the bridge's bugs and keep their stack.
 */
export function journalFileError(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !ENVIRONMENT.test(code)) return error;
  const said = `${(error as Error).message} (${code})`;
  const at = `the journal ${path}`;
  let message: string;
  if (code === 'SQLITE_FULL') message = `${at} cannot grow: ${said}. Free space on its disk; nothing of the failed write was recorded`;
  else if (code.startsWith('SQLITE_IOERR')) message = `${at} could not be read or written: ${said}. Check its disk (the system's log says more)`;
  else if (code.startsWith('SQLITE_READONLY')) message = `${at} is read-only for this process: ${said}. The file, its -wal and -shm files and their folder must be writable by the bridge's user`;
  else if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') message = `${at} is damaged: ${said}. Stop the bridge and restore the journal from a backup (docs/operations.md)`;
  else if (code.startsWith('SQLITE_BUSY')) message = `${at} is locked by another connection (another process using the file, or a tool holding it open; a write waits up to ${BUSY_TIMEOUT_MS / 1000} s): ${said}`;
  else if (code.startsWith('SQLITE_CANTOPEN')) message = `${at}: SQLite cannot open a file beside it: ${said}. Its folder must be writable by the bridge's user`;
  else message = `${at} failed: ${said}`;
  return new WisbridgeError('JOURNAL', message, { cause: error });
}
