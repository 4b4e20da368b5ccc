import { createBlocks, type Blocks } from './core/blocks.js';
import { createConsoleQueries } from './console/console-queries.js';
import { searchRows } from './console/search.js';
import { activity } from './console/activity.js';
import type { ConsolePages, InstanceInfo, JournalAddress, JournalContract } from './contract.js';
import { createDispositions } from './inbound/dispositions.js';
import { createInbound } from './inbound/inbound.js';
import { InboundReads } from './inbound/inbound-reads.js';
import { createFence, type Fence, type InstanceLockState, type LeaseMode } from './leases/leases.js';
import { createLeases } from './leases/instances.js';
import { fileOwners } from './leases/file-owners.js';
import { createOperator } from './admin/operator.js';
import { createOutbound } from './outbound/outbound.js';
import { exportOwnership, type ExportOwnership } from './outbound/outbound-rows.js';
import { createPrune } from './admin/prune.js';
import { createReads, type StorageStats } from './admin/reads.js';
import type { SqlPort } from './core/sql.js';

/** What an engine brings to the journal's logic: its port, where it lives, and how it closes. */
export interface Engine {
  port: SqlPort;
  address: JournalAddress;
  location: string;
  schemaVersion: number;
  storage(): Promise<StorageStats>;
  close(): Promise<void>;
  /** SQLite: takes the journal for this process's instance alone until it closes (InstanceLock); see LeaseMode. */
  lockInstance?(): InstanceLockState;
}

type Methods = Omit<JournalContract, keyof import('./contract.js').JournalLifecycle | 'transaction' | 'console'>;

/** The journal's roles: each builds its own methods, and no two share a name (RoleClashes below). */
const ROLES = ['inbound', 'operator', 'outbound', 'dispositions', 'reads', 'prune', 'leases'] as const;
type Role = (typeof ROLES)[number];
type Roles = <R extends Role>(role: R) => RoleMethods[R];

/** What each role builds. */
interface RoleMethods {
  inbound: ReturnType<typeof createInbound>;
  operator: ReturnType<typeof createOperator>;
  outbound: ReturnType<typeof createOutbound>;
  dispositions: ReturnType<typeof createDispositions>;
  reads: ReturnType<typeof createReads>;
  prune: ReturnType<typeof createPrune>;
  leases: ReturnType<typeof createLeases>;
}

/** The method names two roles both define, as `role.name` (never, when every name has one role). */
type RoleClashes = { [A in Role]: { [B in Exclude<Role, A>]: `${A}.${keyof RoleMethods[A] & keyof RoleMethods[B] & string}` }[Exclude<Role, A>] }[Role];
/** Every role's methods together: exactly the contract's methods (checked both ways below). */
type AllRoleMethods = RoleMethods[Role] extends infer M ? (M extends unknown ? (x: M) => void : never) extends (x: infer I) => void ? I : never : never;

/*
 * Compile-time checks of the composition: a method name defined by two roles fails the build here (one would
 * silently replace the other at run time), and so does a contract method no role builds or a role method the
 * contract lacks.
 */
const noClash: [RoleClashes] extends [never] ? true : { clash: RoleClashes } = true;
const complete: [Exclude<keyof Methods, keyof AllRoleMethods>] extends [never] ? true : { missing: Exclude<keyof Methods, keyof AllRoleMethods> } = true;
const nothingExtra: [Exclude<keyof AllRoleMethods, keyof Methods>] extends [never] ? true : { extra: Exclude<keyof AllRoleMethods, keyof Methods> } = true;
void [noClash, complete, nothingExtra];

/**
 * The journal's logic over one SqlPort, the engine's own or one unit of work on it (`inUnit`), one role at a time:
 * each role is built on first use and kept. A unit of work calls one or two roles (a batch's commit: inbound only);
 * building all of them for every unit (some hundred closures, two objects holding every method) cost more CPU and garbage
 * than the unit's own statements on SQLite (docs/performance.md, "Settings chosen by measurement").
 */
function roles(sql: SqlPort, now: () => string, storage: () => Promise<StorageStats>, lease: LeaseMode | undefined, own: ExportOwnership, inUnit: boolean): Roles {
  let blocks: Blocks | undefined;
  let reads: InboundReads | undefined;
  let fence: Fence | undefined | null = null;
  const blocksOf = () => (blocks ??= createBlocks(sql));
  const readsOf = () => (reads ??= new InboundReads(sql, blocksOf()));
  const fenceOf = () => (fence === null ? (fence = lease && createFence(sql, lease, inUnit, now)) : fence);
  const make: { [R in Role]: () => RoleMethods[R] } = {
    inbound: () => createInbound(sql, now, blocksOf(), readsOf(), fenceOf()),
    operator: () => createOperator(sql, now, readsOf(), blocksOf(), fenceOf()),
    outbound: () => createOutbound(sql, now, own),
    dispositions: () => createDispositions(sql, fenceOf()),
    reads: () => createReads(sql, now, storage),
    prune: () => createPrune(sql, now),
    leases: () => createLeases(sql, lease, now),
  };
  const built: Partial<RoleMethods> = {};
  function role<R extends Role>(name: R): RoleMethods[R] {
    return (built[name] ??= make[name]());
  }
  return role;
}

/** Every method of every role, built now: the journal's own binding, made once (no two roles share a name: noClash). */
const allMethods = (role: Roles): Methods => ({
  ...role('inbound'), ...role('operator'), ...role('outbound'), ...role('dispositions'), ...role('reads'), ...role('prune'), ...role('leases'),
});

const ROLES_OF = Symbol('roles');
const PORT = Symbol('port');

/**
 * The port a composed journal (or a unit of work's journal) runs on. For the test hooks only (testing.ts): what no
 * production code calls stays off the contract, yet tests read it through the same port and unit of work.
 */
export function portOf(journal: object): SqlPort {
  const port = (journal as { [PORT]?: SqlPort })[PORT];
  if (!port) throw new Error('not a journal built by composeJournal');
  return port;
}

/**
 * What a unit of work's journal inherits: each method a getter that builds its role for that unit on first use. The
 * names come from the journal's own binding (`all`), so the two offer the same methods.
 */
function unitPrototype(all: Roles): object {
  const proto = {};
  for (const name of ROLES) {
    for (const key of Object.keys(all(name))) {
      Object.defineProperty(proto, key, {
        configurable: true,
        enumerable: true,
        get(this: { [ROLES_OF]: Roles }) {
          return (this[ROLES_OF](name) as Record<string, unknown>)[key];
        },
      });
    }
  }
  return proto;
}

/** The configuration's default `instance.lease_ms`. */
export const DEFAULT_LEASE_MS = 30_000;

/** Lease mode (several instances on one journal, leases.ts): this process's instance and how long a claim's lease lasts. */
export interface LeaseOptions {
  instance: InstanceInfo;
  leaseMs: number;
  /** Tests: how far the lease clock is ahead of the database's (JournalOptions.leaseClockOffsetMs). */
  clockOffsetMs?: () => number;
}

/**
 * The whole journal over an engine: every role of the contract, the same logic and SQL for every engine. A unit of
 * work gets a journal bound to it (`transaction(async (tx) => …)`); the leases this journal holds are shared by all.
 */
export function composeJournal(engine: Engine, clock: () => Date = () => new Date(), lease?: LeaseOptions): JournalContract {
  const now = (): string => clock().toISOString();
  const mode: LeaseMode | undefined = lease && { ...lease, lockInstance: engine.lockInstance, tokens: new Map(), events: new Map(), ticks: new Map() };
  let pages: ConsolePages | undefined;
  let closed: Promise<void> | undefined;
  const exports = exportOwnership(lease?.instance.id ?? null, lease?.leaseMs ?? DEFAULT_LEASE_MS, lease?.clockOffsetMs);
  const own = roles(engine.port, now, engine.storage, mode, exports, false);
  // The same for the journal and every unit of work bound from it.
  const shared = Object.getOwnPropertyDescriptors({
    location: engine.location,
    address: engine.address,
    schemaVersion: engine.schemaVersion,
    get console(): ConsolePages {
      return (pages ??= { ...createConsoleQueries(engine.port, now, engine.storage), search: (text, options) => searchRows(engine.port, text, options),
        activity: (query) => activity(engine.port, query), fileOwners: (fileId) => fileOwners(engine.port, fileId) });
    },
    close: () => (closed ??= engine.close()),
  });
  const unitMethods = Object.defineProperties(unitPrototype(own), shared);
  const bind = (sql: SqlPort): JournalContract => {
    const transaction = { value: <T>(fn: (tx: JournalContract) => Promise<T>): Promise<T> => sql.tx((t) => fn(t === sql ? journal : bind(t))), writable: true, enumerable: true, configurable: true };
    const port = { value: sql };
    const journal = (sql === engine.port
      ? Object.defineProperties(allMethods(own), { ...shared, transaction, [PORT]: port })
      : Object.create(unitMethods, { [ROLES_OF]: { value: roles(sql, now, engine.storage, mode, exports, true) }, [PORT]: port, transaction })) as JournalContract;
    return journal;
  };
  return bind(engine.port);
}
