import { existsSync, mkdirSync, readdirSync, readlinkSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { WisbridgeError } from '../../errors.js';

/**
 * Refuses every write once the journal's path no longer names the file this connection opened: deleted (the
 * operator's "fix"), moved, or replaced by another file. SQLite in WAL mode goes on writing to an unlinked file
 * without a word, and the next start would open a fresh (or an older) journal and have forgotten every file since:
 * applied twice when dropped again. A write checks the path first: one stat, a small fraction of what a commit
 * costs (docs/performance.md, "Settings chosen by measurement").
 */
export class FileGuard {
  readonly #path: string;
  readonly #opened: Stats | undefined;

  constructor(path: string) {
    this.#path = path;
    this.#opened = path === ':memory:' ? undefined : statSync(path);
  }

  /** The file at the path now: 'same', 'gone' or 'replaced'. */
  state(): 'same' | 'gone' | 'replaced' {
    const opened = this.#opened;
    if (opened === undefined) return 'same';
    const now = statSync(this.#path, { throwIfNoEntry: false });
    if (now === undefined) return 'gone';
    return now.ino === opened.ino && now.dev === opened.dev ? 'same' : 'replaced';
  }

  /** Throws JOURNAL, with what to do, when the path names another file than the one opened, or none. */
  check(): void {
    const state = this.state();
    if (state === 'same') return;
    const what = state === 'gone' ? 'was deleted or moved' : 'was replaced by another file';
    const held = heldOpenAs(this.#path);
    const rescue = held
      ? `While the bridge still runs, copy ${held} (the file as this process holds it) to ${this.#path}, leaving ${this.#path}-wal as it is, then restart the bridge`
      : `Put the journal back at ${this.#path}, leaving ${this.#path}-wal as it is, and restart the bridge`;
    throw new WisbridgeError('JOURNAL', `the journal ${this.#path} ${what} while this process had it open: nothing more is written to it, `
      + `or a file processed now would be forgotten at the next start and could be applied twice. ${rescue}`);
  }
}

/** The bridge's working folder beside a SQLite journal (private copies of the files it works on). */
export const workingFolderOf = (journalPath: string): string => `${journalPath}.snapshots`;

/** Written in the working folder when the journal is opened: there has been a journal at this path. */
const markerOf = (journalPath: string): string => join(workingFolderOf(journalPath), 'journal-was-here');

/**
 * A journal file missing while the mark of one is in its working folder was deleted or moved: a new, empty one in
 * its place would take every file processed before as new, and apply it again when dropped again. Refused, with what
 * to do, unless the working folder goes too (the operator's way of saying "start a new journal").
 */
export function refuseForgottenJournal(path: string): void {
  if (path === ':memory:' || existsSync(path) || !existsSync(markerOf(path))) return;
  throw new WisbridgeError('JOURNAL', `the journal ${path} is missing, but ${markerOf(path)} says there was one: the journal was deleted `
    + `or moved, and a new, empty one would take every file processed before as new (and apply it again if it is dropped again). Put the journal back `
    + `(from a backup), or, to start a new journal on purpose, remove ${workingFolderOf(path)} too`);
}

/** Marks the working folder (made if need be) as the one of a journal that exists. */
export function markJournal(path: string): void {
  if (path === ':memory:' || existsSync(markerOf(path))) return;
  mkdirSync(workingFolderOf(path), { recursive: true, mode: 0o700 });
  writeFileSync(markerOf(path), 'This folder belongs to a wisbridge journal: without the journal beside it, the bridge refuses to start a new one.\n', { mode: 0o600 });
}

/** Where this process still reaches a deleted file it holds open (Linux: /proc/PID/fd/N), if it can tell. */
function heldOpenAs(path: string): string | undefined {
  const deleted = `${resolve(path)} (deleted)`;
  try {
    for (const fd of readdirSync('/proc/self/fd')) {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`) === deleted) return `/proc/${process.pid}/fd/${fd}`;
      } catch {
        /* a descriptor closed meanwhile */
      }
    }
  } catch {
    /* no /proc */
  }
  return undefined;
}
