import { WisbridgeError } from '../errors.js';
import { createBlocks } from './blocks.js';
import { createConsoleQueries, type ConsoleQueries } from './console-queries.js';
import { openDatabase, schemaVersion } from './db.js';
import { createDispositions } from './dispositions.js';
import { createInbound } from './inbound.js';
import type { Journal } from './interfaces.js';
import { createOperator } from './operator.js';
import { createOutbound } from './outbound.js';
import { createPrune } from './prune.js';
import { createReads } from './reads.js';
import { registerRawDatabase } from './raw.js';

export interface JournalOptions {
  /** Clock for the timestamps the journal stores (tests); defaults to the system clock. */
  now?: () => Date;
  /** Page cache of this connection in KiB (default 16,000); a second connection that only appends needs little. */
  cacheKiB?: number;
  /** Checkpoint the WAL when closing (default true); a second connection leaves it to the main one. */
  checkpointOnClose?: boolean;
}

/** What the SQLite factories build: every method must belong to one of the interfaces in interfaces.ts. */
type Built = ReturnType<typeof createInbound> & ReturnType<typeof createOperator> & ReturnType<typeof createOutbound>
  & ReturnType<typeof createDispositions> & ReturnType<typeof createReads> & ReturnType<typeof createPrune>;
type Unplaced = Exclude<keyof Built, keyof Journal>;
// Fails to compile when a factory gains a method that no interface lists (place it in interfaces.ts).
const _everyMethodPlaced: [Unplaced] extends [never] ? true : Unplaced = true;

export function openJournal(path: string, options: JournalOptions = {}): Journal {
  const db = openDatabase(path);
  if (options.cacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(1, Math.round(options.cacheKiB))}`);
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
  let consoleQueries: ConsoleQueries | undefined;
  const journal: Journal = {
    ...inbound,
    ...operator,
    ...outbound,
    ...createDispositions(db),
    ...reads,
    ...prune,
    path,
    schemaVersion: schemaVersion(db),
    get console() {
      return (consoleQueries ??= createConsoleQueries(db, now));
    },
    transaction: <T>(fn: () => T): T => run.immediate(fn) as T,
    close: () => {
      if (!db.open) return;
      if (options.checkpointOnClose !== false) db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    },
  };
  registerRawDatabase(journal, db);
  return journal;
}
