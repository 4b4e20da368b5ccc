import { WisbridgeError } from '../errors.js';
import { createBlocks } from './blocks.js';
import { openDatabase, schemaVersion, type Db } from './db.js';
import { createDispositions } from './dispositions.js';
import { createInbound } from './inbound.js';
import { createOperator } from './operator.js';
import { createOutbound } from './outbound.js';
import { createPrune } from './prune.js';
import { createReads } from './reads.js';

export interface JournalOptions {
  /** Clock for the timestamps the journal stores (tests); defaults to the system clock. */
  now?: () => Date;
}

export type Journal = ReturnType<typeof createInbound> & ReturnType<typeof createOperator> & ReturnType<typeof createOutbound>
  & ReturnType<typeof createDispositions> & ReturnType<typeof createReads> & ReturnType<typeof createPrune> & {
  readonly path: string;
  readonly schemaVersion: number;
  /**
   * Runs fn in one IMMEDIATE transaction, so several journal calls share one commit (one fsync),
   * e.g. addItems + recordRequest per batch. fn must be synchronous: never await inside.
   */
  transaction<T>(fn: () => T): T;
  /** Checkpoints the WAL into the database file and closes the connection. Idempotent. */
  close(): void;
  /** The underlying connection, for read-only diagnostics. */
  readonly db: Db;
};

export function openJournal(path: string, options: JournalOptions = {}): Journal {
  const db = openDatabase(path);
  const clock = options.now ?? (() => new Date());
  const now = (): string => clock().toISOString();
  const blocks = createBlocks(db);
  const inbound = createInbound(db, now, blocks);
  const operator = createOperator(db, now, inbound, blocks);
  const outbound = createOutbound(db, now);
  const reads = createReads(db, now, path);
  const prune = createPrune(db, now, inbound.fileSummary);
  const run = db.transaction((fn: () => unknown) => {
    const result = fn();
    if (result instanceof Promise) throw new WisbridgeError('JOURNAL', 'a journal transaction must not be async');
    return result;
  });
  return {
    ...inbound,
    ...operator,
    ...outbound,
    ...createDispositions(db),
    ...reads,
    ...prune,
    path,
    schemaVersion: schemaVersion(db),
    db,
    transaction: <T>(fn: () => T): T => run.immediate(fn) as T,
    close: () => {
      if (!db.open) return;
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
}
