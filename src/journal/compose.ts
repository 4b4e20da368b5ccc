import { createBlocks } from './blocks.js';
import { createConsoleQueries } from './console-queries.js';
import { searchRows } from './search.js';
import { activity } from './activity.js';
import type { ConsolePages, InstanceInfo, JournalAddress, JournalContract } from './contract.js';
import { createDispositions } from './dispositions.js';
import { createInbound } from './inbound.js';
import { createFence, createLeases, type LeaseMode } from './leases.js';
import { createOperator } from './operator.js';
import { createOutbound } from './outbound.js';
import { createPrune } from './prune.js';
import { createReads, type StorageStats } from './reads.js';
import type { SqlPort } from './sql.js';

/** What an engine brings to the journal's logic: its port, where it lives, and how it closes. */
export interface Engine {
  port: SqlPort;
  address: JournalAddress;
  location: string;
  schemaVersion: number;
  storage(): Promise<StorageStats>;
  close(): Promise<void>;
}

type Methods = Omit<JournalContract, keyof import('./contract.js').JournalLifecycle | 'transaction' | 'console'>;

/** The journal's logic over one SqlPort: the engine's own, or one unit of work on it (`inUnit`). */
function methods(sql: SqlPort, now: () => string, storage: () => Promise<StorageStats>, lease: LeaseMode | undefined, inUnit: boolean): Methods {
  const blocks = createBlocks(sql);
  const fence = lease && createFence(sql, lease, inUnit);
  const inbound = createInbound(sql, now, blocks, fence);
  // Inside a unit of work the operator and prune read files' summaries through its port: the outer one would wait.
  const inboundOn = (t: SqlPort) => (t === sql ? inbound : createInbound(t, now, createBlocks(t)));
  return {
    ...inbound,
    ...createOperator(sql, now, inboundOn, blocks, fence),
    ...createOutbound(sql, now),
    ...createDispositions(sql, fence),
    ...createReads(sql, now, storage),
    ...createPrune(sql, now, inboundOn),
    ...createLeases(sql, lease, now),
  };
}

/** Lease mode (several instances on one journal, leases.ts): this process's instance and how long a claim's lease lasts. */
export interface LeaseOptions {
  instance: InstanceInfo;
  leaseMs: number;
}

/**
 * The whole journal over an engine: every role of the contract, the same logic and SQL for every engine. A unit of
 * work gets a journal bound to it (`transaction(async (tx) => …)`); the leases this journal holds are shared by all.
 */
export function composeJournal(engine: Engine, clock: () => Date = () => new Date(), lease?: LeaseOptions): JournalContract {
  const now = (): string => clock().toISOString();
  const mode: LeaseMode | undefined = lease && { ...lease, tokens: new Map(), events: new Map() };
  let pages: ConsolePages | undefined;
  let closed: Promise<void> | undefined;
  const bind = (sql: SqlPort): JournalContract => {
    const journal: JournalContract = {
      ...methods(sql, now, engine.storage, mode, sql !== engine.port),
      location: engine.location,
      address: engine.address,
      schemaVersion: engine.schemaVersion,
      get console() {
        return (pages ??= { ...createConsoleQueries(engine.port, now, engine.storage), search: (text, options) => searchRows(engine.port, text, options.limit),
          activity: (query) => activity(engine.port, query) });
      },
      transaction: <T>(fn: (tx: JournalContract) => Promise<T>): Promise<T> => sql.tx((t) => fn(t === sql ? journal : bind(t))),
      close: () => (closed ??= engine.close()),
    };
    return journal;
  };
  return bind(engine.port);
}
