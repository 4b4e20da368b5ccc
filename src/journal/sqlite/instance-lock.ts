import Database from 'better-sqlite3';
import { WisbridgeError } from '../../errors.js';
import type { Db } from './db.js';

/** The file beside a SQLite journal whose lock says which process runs the bridge on it. */
export const instanceLockOf = (journalPath: string): string => `${journalPath}.lock`;

/**
 * A SQLite journal serves one `wisbridge run`: the process that registers its instance holds an exclusive lock on
 * `JOURNAL.lock` until it closes the journal. The lock is SQLite's own (a POSIX record lock on a small database of
 * its own, taken with `locking_mode=EXCLUSIVE` and kept after the first transaction): the kernel drops it when the
 * process ends, however it ends (kill -9 included), so a dead holder never blocks the next start, and a live one, paused or
 * not, on this host or sharing the file from another, is never taken for dead. A second connection of the same
 * process (a worker thread, a second journal object) is refused too: SQLite tracks the locks of one file across the
 * process's connections. A POSIX lock is lost when the process closes any descriptor of the file, so nothing else
 * opens it; and the connection must stay reachable, or its finalizer would close it and let the lock go.
 */
export class InstanceLock {
  readonly #path: string;
  #db: Db | undefined;

  constructor(journalPath: string) {
    this.#path = instanceLockOf(journalPath);
  }

  get path(): string {
    return this.#path;
  }

  /** Takes the lock, or keeps it when this object holds it: false when another connection (another process) holds it. */
  take(): boolean {
    if (this.#db) return true;
    let db: Db;
    try {
      db = new Database(this.#path);
    } catch (error) {
      throw new WisbridgeError('JOURNAL', `cannot open ${this.#path}, the lock of the journal beside it: ${(error as Error).message}`, { cause: error });
    }
    try {
      // No wait: a holder keeps the lock for its life, and a refusal must come at once.
      db.pragma('busy_timeout = 0');
      db.pragma('locking_mode = EXCLUSIVE');
      // The lock file holds nothing worth a rollback journal beside it.
      db.pragma('journal_mode = MEMORY');
      db.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (error) {
      db.close();
      if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) return false;
      throw new WisbridgeError('JOURNAL', `cannot lock ${this.#path}, the lock of the journal beside it: ${(error as Error).message}`, { cause: error });
    }
    this.#db = db;
    return true;
  }

  /** Lets the lock go (the journal's close). */
  release(): void {
    this.#db?.close();
    this.#db = undefined;
  }
}
