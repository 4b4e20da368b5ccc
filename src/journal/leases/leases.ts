import { WisbridgeError } from '../../errors.js';
import type { ClaimsAndRequests, InstanceInfo, InstanceRecord, InstancesAndLeases, TickClaim } from '../contract.js';
import { toEvent, type DuplicateClaim, type EventRow, type NewDuplicate } from '../admin/reads.js';
import { stateError } from '../core/rows.js';
import { LEASE_STATEMENTS, leaseStatements, type LeaseStatements } from './leases-sql.js';
import type { SqlDialect, SqlPort, SqlValue } from '../core/sql.js';
import type { FileStatus } from '../core/types.js';

/*
 * Several instances on one journal. A file's lease is three columns of its row: the owner (an instance id), a fencing
 * token that grows with every new owner, and an expiry by the database's clock (never an instance's: theirs differ),
 * renewed by the owner's heartbeat. Rows, not session advisory locks: a lock belongs to a connection, which a pool or
 * PgBouncer in transaction mode hands to someone else, and dies with it; a row outlives both and is checked in the
 * unit of work of every write (its row locked), so an instance that wakes after another took its file over writes
 * nothing more for it. Scheduled ticks are leased the same way, one row per (job, tick).
 */

/** A journal opened with an instance: what it leases as, and the token it holds per file. */
export interface LeaseMode {
  instance: InstanceInfo;
  /** How long a claim's lease lasts before a heartbeat renews it. */
  leaseMs: number;
  /** Tests: how far this journal's lease clock is ahead of the database's (JournalOptions.leaseClockOffsetMs). */
  clockOffsetMs?: () => number;
  /** SQLite: the engine's lock of the journal for one instance, taken when the instance registers. */
  lockInstance?: () => InstanceLockState;
  /**
   * File id → the token this journal object got when it claimed the file (or began its re-drive), or adopted at its
   * first write for a file its instance holds that it did not claim itself (a worker thread's own connection). LOST
   * once a heartbeat reported the file lost: every later write for it is refused.
   */
  tokens: Map<number, number>;
  /** Duplicate events whose re-drop this journal handles now (claimDuplicate) → their token: heartbeats renew them. */
  events: Map<number, number>;
}

const LOST = -1;

/** Whether this process holds the engine's instance lock, and the lock's file (for the refusal). */
export interface InstanceLockState {
  taken: boolean;
  lockFile: string;
}

/**
 * The lease statements of a journal: on the database's clock, or (tests) on that clock moved by the journal's offset,
 * each statement read at its use so that a test may move the clock while the journal is open.
 */
function statementsOf(dialect: SqlDialect, mode: LeaseMode | undefined): LeaseStatements {
  const offset = mode?.clockOffsetMs;
  const fixed = LEASE_STATEMENTS[dialect];
  if (offset === undefined) return fixed;
  const moved = {} as LeaseStatements;
  for (const key of Object.keys(fixed) as Array<keyof LeaseStatements>) {
    Object.defineProperty(moved, key, { enumerable: true, get: () => leaseStatements(dialect, offset())[key] });
  }
  return moved;
}
/** Instances younger than this many leases may hold leases still: a SQLite journal retires them once its lock is taken. */
const LIVE_LEASES = 3;
/** Instances silent this long leave the list, and ticks this old leave job_ticks (both only grow otherwise). */
const HISTORY_MS = 7 * 24 * 3600_000;

interface LeaseRow {
  status: FileStatus;
  lease_owner: string | null;
  lease_token: number;
}

function fileLost(fileId: number, me: string, owner: string | null): WisbridgeError {
  const holder = owner === null ? 'no instance holds it' : owner === me ? 'it was claimed again since' : `instance ${owner} holds it now`;
  return new WisbridgeError('LEASE_LOST', `file ${fileId}: instance ${me} no longer holds its lease (${holder}); nothing was written`, { details: { fileId } });
}

/** An operator's write for a file another instance works on (re-drive, resolution): refused until it is done. */
export function fileBusy(fileId: number, owner: string): WisbridgeError {
  return new WisbridgeError('LEASE_LOST', `file ${fileId} is being worked on by instance ${owner}, which holds its lease: nothing was written; `
    + 'try again once it is finished', { details: { fileId } });
}

/**
 * The lease checks of a journal in lease mode, made by the journal's writes (inbound.ts, operator.ts, dispositions.ts)
 * inside their unit of work. Each costs at most one statement by primary key, and none when the write reads the file's
 * row anyway (status). Within a unit of work (`inUnit`), a file checked once stays locked to its end: later writes of
 * the unit skip the check, or wait for the one under way.
 */
export interface Fence {
  /** The file's status (undefined when there is no such file), its row locked and its lease checked: LEASE_LOST. */
  status(t: SqlPort, fileId: number): Promise<FileStatus | undefined>;
  /** Locks the file's row and checks its lease (LEASE_LOST); nothing when there is no such file. */
  hold(t: SqlPort, fileId: number): Promise<void>;
  /** hold for the files of requests, found in the same statement; nothing for a request that does not exist. */
  holdRequests(t: SqlPort, requestIds: readonly number[]): Promise<void>;
  /** Takes the file's lease (or renews this instance's own); resolves the instance holding a live one instead. */
  take(t: SqlPort, fileId: number): Promise<string | undefined>;
  /**
   * Takes the lease of the file a claim is inserting, sent with its insert (the newest processing file of the
   * checksum, under the claim's turn); resolves its id.
   */
  takeNew(t: SqlPort, checksum: string): Promise<number | undefined>;
  /** An operator's write (resolve): refused (LEASE_LOST) while another instance works on the file under a live lease. */
  unheld(t: SqlPort, fileId: number): Promise<void>;
  /** A fenced write as a unit of work: when it throws, the checks made in the unit are forgotten (its unit fails). */
  write<T>(fn: (t: SqlPort) => Promise<T>): Promise<T>;
  /**
   * The condition that makes one UPDATE of the file's row its own fenced write (` AND lease_owner = ? AND
   * lease_token = ?` and its parameters), when this journal knows its token for the file; undefined otherwise. An
   * UPDATE that changes nothing under it is to be made again the checked way (write, hold), which says why.
   */
  condition(fileId: number): { clause: string; params: SqlValue[] } | undefined;
}

export function createFence(sql: SqlPort, mode: LeaseMode, inUnit: boolean): Fence {
  const q = statementsOf(sql.dialect, mode);
  const me = mode.instance.id;
  /**
   * Files whose row this unit of work locked and checked, or is locking (writes started together: the check under
   * way), by the check's promise: a later write of the unit waits for it instead of locking the row again.
   */
  const held = new Map<number, Promise<LeaseRow | undefined>>();

  function check(fileId: number, row: LeaseRow): void {
    const token = mode.tokens.get(fileId);
    if (row.lease_owner === me && token === undefined) mode.tokens.set(fileId, row.lease_token);
    else if (row.lease_owner !== me || token !== row.lease_token) throw fileLost(fileId, me, row.lease_owner);
  }

  /** The file's row locked and checked, once a unit of work. */
  function lock(t: SqlPort, fileId: number): Promise<LeaseRow | undefined> {
    const locking = t.get<LeaseRow>(q.lockFile, [fileId]).then((row) => {
      if (row) check(fileId, row);
      return row;
    });
    if (inUnit) held.set(fileId, locking);
    return locking;
  }

  return {
    async status(t, fileId) {
      const earlier = held.get(fileId);
      if (!earlier) return (await lock(t, fileId))?.status;
      await earlier;
      return (await t.get<{ status: FileStatus }>(q.fileStatus, [fileId]))?.status;
    },
    async hold(t, fileId) {
      await (held.get(fileId) ?? lock(t, fileId));
    },
    async holdRequests(t, requestIds) {
      for (const row of await t.all<LeaseRow & { id: number }>(q.lockFilesOfRequests, [JSON.stringify(requestIds)])) {
        check(row.id, row);
        if (inUnit) held.set(row.id, Promise.resolve(row));
      }
    },
    async take(t, fileId) {
      const taken = await t.get<{ lease_token: number }>(q.take.sql, q.take.params({ owner: me, leaseMs: mode.leaseMs, fileId }));
      if (taken) {
        mode.tokens.set(fileId, taken.lease_token);
        return undefined;
      }
      return (await t.get<{ lease_owner: string | null }>(q.liveOwner, [fileId]))?.lease_owner ?? 'an unknown instance';
    },
    async takeNew(t, checksum) {
      const taken = await t.get<{ id: number; lease_token: number }>(q.takeNewest.sql, q.takeNewest.params({ owner: me, leaseMs: mode.leaseMs, checksum }));
      if (taken) mode.tokens.set(taken.id, taken.lease_token);
      return taken?.id;
    },
    async unheld(t, fileId) {
      const row = await t.get<{ lease_owner: string | null; live: number }>(q.liveOwner, [fileId]);
      if (row && row.live === 1 && row.lease_owner !== me) throw fileBusy(fileId, row.lease_owner ?? 'an unknown instance');
    },
    condition(fileId) {
      const token = mode.tokens.get(fileId);
      return token === undefined || token === LOST ? undefined : { clause: ' AND lease_owner = ? AND lease_token = ?', params: [me, token] };
    },
    write: (fn) => !inUnit ? sql.tx(fn) : sql.tx(async (t) => {
      try {
        return await fn(t);
      } catch (error) {
        held.clear();
        throw error;
      }
    }),
  };
}

/** The refusal of a second instance on a SQLite journal, naming the holder by the instances' list when it is there. */
function anotherInstance(holder: { host: string; pid: number; started_at: string } | undefined, lockFile: string): WisbridgeError {
  const who = holder ? `another wisbridge instance (${holder.host}, pid ${holder.pid}, started ${holder.started_at})` : `another process (it holds ${lockFile})`;
  return new WisbridgeError('JOURNAL', `${who} uses this SQLite journal: `
    + 'a SQLite journal serves one instance; stop it, or put the journal on PostgreSQL to run several (docs/operations.md)');
}

interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  version: string;
  started_at: string;
  heartbeat_at: string;
  stopped_at: string | null;
  files: number;
  jobs: number;
}

type LeaseMethods = InstancesAndLeases & Pick<ClaimsAndRequests, 'releaseFile' | 'claimDuplicate' | 'releaseFileEvent' | 'recordEventDisposition'>;

/**
 * The InstancesAndLeases role over a port, and the claims' lease ends; without a lease mode only listInstances,
 * filesToTakeOver and claimDuplicate answer (tools: status; one-shot commands), and the releases do nothing.
 */
export function createLeases(sql: SqlPort, mode: LeaseMode | undefined, now: () => string): LeaseMethods {
  const q = statementsOf(sql.dialect, mode);
  const leasing = (): LeaseMode => {
    if (!mode) throw stateError('this journal was opened without an instance: it takes no leases (openJournal\'s instance option)');
    return mode;
  };
  const info = (m: LeaseMode) => [m.instance.id, m.instance.host, m.instance.pid, m.instance.version];

  /** The instance stops and its leases are free at once: files and ticks it held are taken by the next claim. */
  const retire = async (t: SqlPort, id: string): Promise<void> => {
    await t.run(q.stop, [id]);
    await t.run(q.releaseFiles, [id]);
    await t.run(q.releaseTicks, [id]);
  };

  const registerInstance = () => sql.tx(async (t): Promise<void> => {
    const m = leasing();
    const { id } = m.instance;
    if (m.lockInstance) {
      const lock = m.lockInstance();
      const others = await t.all<{ id: string; host: string; pid: number; started_at: string }>(q.rivals, [id, -LIVE_LEASES * m.leaseMs]);
      if (!lock.taken) throw anotherInstance(others[0], lock.lockFile);
      // With the lock held, an instance still listed as running is a process that ended without retiring (kill -9, a
      // crash): retired here, so that its files are resumed at once.
      for (const other of others) await retire(t, other.id);
    }
    await t.run(q.forgetInstances, [id, -HISTORY_MS]);
    await t.run(q.register, info(m));
  });

  const heartbeat = (leaseMs: number) => sql.tx(async (t): Promise<{ lost: number[] }> => {
    const m = leasing();
    const me = m.instance.id;
    await t.run(q.beat, info(m));
    const working = [...m.tokens].filter(([, token]) => token !== LOST).map(([id]) => id);
    if (working.length > 0) await t.run(q.renewFiles, [leaseMs, me, JSON.stringify(working)]);
    if (m.events.size > 0) await t.run(q.renewEvents, [leaseMs, me, JSON.stringify([...m.events.keys()])]);
    await t.run(q.renewTicks, [leaseMs, me]);
    const lost: number[] = [];
    if (m.tokens.size === 0) return { lost };
    const rows = await t.all<LeaseRow & { id: number; disposed_to: string | null }>(q.heldFiles, [JSON.stringify([...m.tokens.keys()])]);
    const found = new Set<number>();
    for (const row of rows) {
      found.add(row.id);
      const held = m.tokens.get(row.id);
      if (held === LOST) continue;
      // A token lower than the one held is a row read before this instance's own claim of the file committed (a claim
      // sets its token inside its unit of work; on PostgreSQL this read runs beside it): not a loss. Tokens only grow.
      if (held !== undefined && row.lease_token < held) continue;
      if (row.lease_owner !== me || row.lease_token !== held) {
        lost.push(row.id);
        m.tokens.set(row.id, LOST);
      } else if (row.status !== 'processing' && row.disposed_to !== null) {
        // Finished and moved: a later write for it (a re-drive) takes or adopts a token again. Until it is moved, the
        // token stays, so that the file is reported lost should another instance take its last steps over.
        m.tokens.delete(row.id);
      }
    }
    for (const id of m.tokens.keys()) if (!found.has(id)) m.tokens.delete(id);
    return { lost: lost.sort((a, b) => a - b) };
  });

  const retireInstance = () => sql.tx((t) => retire(t, leasing().instance.id));

  const takeFinishedFile = (fileId: number) => sql.tx(async (t): Promise<{ taken: true } | { taken: false; owner: string }> => {
    const m = leasing();
    const me = m.instance.id;
    const taken = await t.get<{ lease_token: number }>(q.takeFinished.sql, q.takeFinished.params({ owner: me, leaseMs: m.leaseMs, fileId, silentMs: -m.leaseMs }));
    if (taken) {
      m.tokens.set(fileId, taken.lease_token);
      return { taken: true };
    }
    const row = await t.get<{ lease_owner: string | null }>(q.fileOwner, [fileId]);
    if (!row) throw stateError(`file ${fileId} is not in the journal`);
    return { taken: false, owner: row.lease_owner ?? 'an unknown instance' };
  });

  const releaseFile = async (fileId: number): Promise<void> => {
    if (!mode) return;
    const held = mode.tokens.get(fileId);
    // Forgotten first: heartbeats renew only the files this journal holds, so the lease runs out by itself should the
    // database not answer now (a run that failed because it is out of reach).
    mode.tokens.delete(fileId);
    if (held !== undefined && held !== LOST) await sql.run(q.releaseFile, [fileId, mode.instance.id, held]);
  };

  const filesToTakeOver = async (drop: string) => (await sql.all<{ id: number; name: string; lease_owner: string }>(q.toTakeOver, [drop]))
    .map((row) => ({ fileId: row.id, name: row.name, owner: row.lease_owner }));

  /** The event's handling is this journal's: its token kept (heartbeats renew its lease). */
  const handled = (status: 'new' | 'resume', row: EventRow & { lease_token: number }): DuplicateClaim => {
    if (mode) mode.events.set(row.id, row.lease_token);
    return { status, event: toEvent(row) };
  };

  const claimDuplicate = (d: NewDuplicate) => sql.tx(async (t): Promise<DuplicateClaim> => {
    const key = [d.drop, d.name, d.originalFileId];
    const me = mode?.instance.id ?? null;
    // An unfinished event that finishes between the insert and the take leaves room for a new one: looked at again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const fields = [d.drop, d.name, d.originalFileId, d.reason, now(), d.resultName];
      const inserted = mode
        ? await t.get<EventRow & { lease_token: number }>(q.insertLeasedDuplicate, [...fields, me, mode.leaseMs])
        : await t.get<EventRow & { lease_token: number }>(q.insertDuplicate, fields);
      if (inserted) return handled('new', inserted);
      // Another handler recorded it first. Without instances (one command at a time) its handling stopped: finished here.
      const taken = mode
        ? await t.get<EventRow & { lease_token: number }>(q.takeEvent.sql, q.takeEvent.params({ owner: mode.instance.id, leaseMs: mode.leaseMs, drop: d.drop, name: d.name, originalFileId: d.originalFileId }))
        : await t.get<EventRow & { lease_token: number }>(q.unfinishedEvent, key);
      if (taken) return handled('resume', taken);
      const live = await t.get<EventRow & { lease_owner: string | null }>(q.unfinishedEvent, key);
      if (live) return { status: 'busy', eventId: live.id, owner: live.lease_owner ?? 'an unknown instance' };
    }
    throw stateError(`the duplicate ${d.name} of file ${d.originalFileId} could not be recorded: its event kept changing`);
  });

  const releaseFileEvent = async (eventId: number, options: { unused?: boolean } = {}): Promise<void> => {
    const held = mode?.events.get(eventId);
    mode?.events.delete(eventId);
    if (options.unused) await sql.run(q.forgetEvent, [eventId, mode?.instance.id ?? null, held ?? 0]);
    else if (mode && held !== undefined) await sql.run(q.releaseEvent, [eventId, mode.instance.id, held]);
  };

  /** A re-drop's move, fenced like a file's writes when this journal handles it (claimDuplicate gave it a token). */
  const recordEventDisposition = async (eventId: number, where: string): Promise<void> => {
    const held = mode?.events.get(eventId);
    if (mode === undefined || held === undefined) {
      await sql.run(q.eventDisposedToUnfenced, [where, eventId]);
      return;
    }
    if ((await sql.run(q.eventDisposedTo, [where, eventId, mode.instance.id, held])) !== 1) {
      throw new WisbridgeError('LEASE_LOST', `the re-drop of file event ${eventId}: instance ${mode.instance.id} no longer holds its lease; its move is not recorded`);
    }
  };

  const listInstances = async (): Promise<InstanceRecord[]> => (await sql.all<InstanceRow>(q.instances)).map((row) => ({
    id: row.id, host: row.host, pid: row.pid, version: row.version, startedAt: row.started_at, heartbeatAt: row.heartbeat_at,
    stoppedAt: row.stopped_at, files: row.files, jobs: row.jobs,
  }));

  const claimTick = (job: string, tickIso: string, leaseMs: number) => sql.tx(async (t): Promise<TickClaim> => {
    const me = leasing().instance.id;
    const first = await t.get<{ token: number }>(q.insertTick, [job, tickIso, me, leaseMs]);
    if (first) {
      const at = Date.parse(tickIso);
      if (Number.isFinite(at)) await t.run(q.forgetTicks, [job, new Date(at - HISTORY_MS).toISOString()]);
      return { won: true, token: first.token };
    }
    const row = (await t.get<{ owner: string; token: number; done_at: string | null; expired: number }>(q.tick, [job, tickIso]))!;
    if (row.done_at !== null) return { won: false, owner: row.owner, done: true };
    if (row.owner === me) {
      await t.run(q.renewTick, [leaseMs, job, tickIso]);
      return { won: true, token: row.token };
    }
    if (row.expired !== 1) return { won: false, owner: row.owner, done: false };
    return { won: true, token: (await t.get<{ token: number }>(q.takeTick.sql, q.takeTick.params({ owner: me, leaseMs, job, tick: tickIso })))!.token };
  });

  const finishTick = async (job: string, tickIso: string, token: number): Promise<void> => {
    const me = leasing().instance.id;
    if ((await sql.run(q.finishTick, [job, tickIso, me, token])) === 1) return;
    const owner = (await sql.get<{ owner: string }>(q.tickOwner, [job, tickIso]))?.owner;
    throw new WisbridgeError('LEASE_LOST', `job ${job}, tick ${tickIso}: instance ${me} no longer holds it with token ${token} `
      + `(${owner === undefined ? 'it was never claimed' : `held by ${owner}`}); not marked done`);
  };

  return {
    instance: mode?.instance ?? null, registerInstance, heartbeat, retireInstance, takeFinishedFile, listInstances, claimTick, finishTick,
    releaseFile, filesToTakeOver, claimDuplicate, releaseFileEvent, recordEventDisposition,
  };
}
