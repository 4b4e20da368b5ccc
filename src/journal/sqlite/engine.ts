import { statSync } from 'node:fs';
import type { Engine } from '../compose.js';
import { openDatabase, schemaVersion, type Db } from './db.js';
import { journalFileError } from './errors.js';
import { FileGuard, markJournal, refuseForgottenJournal } from './file-guard.js';
import { InstanceLock } from './instance-lock.js';
import { SqlitePort } from './port.js';
import type { JournalTally } from '../core/timings.js';
import { WalSync } from './wal-sync.js';

export interface SqliteOptions {
  /** Page cache of this connection in KiB (default 16,000); a second connection that only appends needs little. */
  cacheKiB?: number;
  /** Checkpoint the WAL when closing (default true); a second connection leaves it to the main one. */
  checkpointOnClose?: boolean;
  /** Where the connection adds its commits and syncs (/metrics). */
  tally?: JournalTally;
}

/** The embedded engine: one SQLite file in WAL mode, each commit durable before its Promise resolves (WalSync). */
export function openSqlite(path: string, options: SqliteOptions = {}): Engine & { db: Db } {
  refuseForgottenJournal(path);
  const db = openDatabase(path);
  markJournal(path);
  if (options.cacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.round(options.cacheKiB))}`);
  const { tally } = options;
  const wal = new WalSync(`${path}-wal`, undefined, tally && ((seconds) => tally.sync(seconds)));
  const guard = new FileGuard(path);
  const lock = path === ':memory:' ? undefined : new InstanceLock(path);
  return {
    db,
    port: new SqlitePort(db, () => wal.durable(), {
      translate: (error) => journalFileError(error, path), beforeWrite: () => guard.check(), onCommit: tally && ((seconds) => tally.commit(seconds)),
    }),
    address: { engine: 'sqlite', path },
    location: path,
    schemaVersion: schemaVersion(db),
    storage: async () => ({
      location: path,
      bytes: fileBytes(path) + fileBytes(`${path}-wal`),
      freeBytes: (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number),
    }),
    lockInstance: () => ({ taken: lock?.take() ?? true, lockFile: lock?.path ?? path }),
    close: async () => {
      if (!db.open) return;
      // A journal whose file is gone or replaced keeps its log: the file put back beside it (FileGuard's advice) lacks
      // nothing. Left alone, SQLite discards a log that does not belong to the file it opens.
      if (options.checkpointOnClose !== false && guard.state() === 'same') db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      lock?.release();
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
