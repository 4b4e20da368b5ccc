import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WisbridgeError } from '../../errors.js';
import type { Engine } from '../compose.js';
import { openDatabase, schemaVersion, type Db } from './db.js';
import { journalFileError } from './errors.js';
import { FileGuard } from './file-guard.js';
import { SqlitePort } from './port.js';
import { WalSync } from './wal-sync.js';

export interface SqliteOptions {
  /** Page cache of this connection in KiB (default 16,000); a second connection that only appends needs little. */
  cacheKiB?: number;
  /** Checkpoint the WAL when closing (default true); a second connection leaves it to the main one. */
  checkpointOnClose?: boolean;
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
function refuseForgottenJournal(path: string): void {
  if (path === ':memory:' || existsSync(path) || !existsSync(markerOf(path))) return;
  throw new WisbridgeError('JOURNAL', `the journal ${path} is missing, but ${markerOf(path)} says there was one: the journal was deleted `
    + `or moved, and a new, empty one would take every file processed before as new (and apply it again if it is dropped again). Put the journal back `
    + `(from a backup), or, to start a new journal on purpose, remove ${workingFolderOf(path)} too`);
}

/** Marks the working folder (made if need be) as the one of a journal that exists. */
function markJournal(path: string): void {
  if (path === ':memory:' || existsSync(markerOf(path))) return;
  mkdirSync(workingFolderOf(path), { recursive: true, mode: 0o700 });
  writeFileSync(markerOf(path), 'This folder belongs to a wisbridge journal: without the journal beside it, the bridge refuses to start a new one.\n', { mode: 0o600 });
}

/** The embedded engine: one SQLite file in WAL mode, each commit durable before its Promise resolves (WalSync). */
export function openSqlite(path: string, options: SqliteOptions = {}): Engine & { db: Db } {
  refuseForgottenJournal(path);
  const db = openDatabase(path);
  markJournal(path);
  if (options.cacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.round(options.cacheKiB))}`);
  const wal = new WalSync(`${path}-wal`);
  const guard = new FileGuard(path);
  return {
    db,
    port: new SqlitePort(db, () => wal.durable(), { translate: (error) => journalFileError(error, path), beforeWrite: () => guard.check() }),
    address: { engine: 'sqlite', path },
    location: path,
    schemaVersion: schemaVersion(db),
    storage: async () => ({
      location: path,
      bytes: fileBytes(path) + fileBytes(`${path}-wal`),
      freeBytes: (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number),
    }),
    close: async () => {
      if (!db.open) return;
      // A journal whose file is gone or replaced keeps its log: the file put back beside it (FileGuard's advice) lacks
      // nothing. Left alone, SQLite discards a log that does not belong to the file it opens.
      if (options.checkpointOnClose !== false && guard.state() === 'same') db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      await wal.close();
    },
  };
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
