import { WisbridgeError } from '../../errors.js';
import type { InstanceInfo } from '../contract.js';
import { LEASE_STATEMENTS, leaseStatements, type LeaseStatements } from './leases-sql.js';
import { FILE_OWNER_STATEMENTS, recordTake, type FileOwnerReason, type OwnerBefore } from './file-owners.js';
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

/** Whether this process holds the engine's instance lock, and the lock's file (for the refusal). */
export interface InstanceLockState {
  taken: boolean;
  lockFile: string;
}

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
  /**
   * Ticks this journal claimed and has not finished or given up (tickKey) → their token: heartbeats renew only these,
   * so that a tick whose run ended is not kept busy by a live owner.
   */
  ticks: Map<string, number>;
}

/** A held tick's key in LeaseMode.ticks. */
export const tickKey = (job: string, tick: string): string => `${job}\n${tick}`;

export const LOST = -1;

/**
 * The lease statements of a journal: on the database's clock, or (tests) on that clock moved by the journal's offset,
 * each statement read at its use so that a test may move the clock while the journal is open.
 */
export function statementsOf(dialect: SqlDialect, mode: LeaseMode | undefined): LeaseStatements {
  const offset = mode?.clockOffsetMs;
  const fixed = LEASE_STATEMENTS[dialect];
  if (offset === undefined) return fixed;
  const moved = {} as LeaseStatements;
  for (const key of Object.keys(fixed) as Array<keyof LeaseStatements>) {
    Object.defineProperty(moved, key, { enumerable: true, get: () => leaseStatements(dialect, offset())[key] });
  }
  return moved;
}
export interface LeaseRow {
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

/** An instance holding a file: working on it, or finishing it (its result file and move still to come). */
export interface LeaseHolder {
  owner: string;
  finishing: boolean;
}

async function holderOn(t: SqlPort, q: LeaseStatements, fileId: number): Promise<LeaseHolder | undefined> {
  const row = await t.get<{ lease_owner: string; finishing: number }>(q.holder, [fileId]);
  return row && { owner: row.lease_owner, finishing: row.finishing === 1 };
}

/** The instance holding the file, for a journal without an instance (one-shot tools): by the database's clock. */
export const liveHolder = (t: SqlPort, fileId: number): Promise<LeaseHolder | undefined> => holderOn(t, LEASE_STATEMENTS[t.dialect], fileId);

/**
 * An operator's write (re-drive, resolution) of a file an instance holds: refused. A finished file is refused even to
 * its own instance until its move is recorded: its result file, written last, would replace the operator's.
 */
export function heldError(fileId: number, holder: LeaseHolder): WisbridgeError {
  if (!holder.finishing) return fileBusy(fileId, holder.owner);
  return new WisbridgeError('LEASE_LOST', `file ${fileId} is being finished by instance ${holder.owner} (its result file written and the file `
    + 'moved out of the inbox): nothing was written; try again once it is moved', { details: { fileId } });
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
  /**
   * Takes the file's lease (or renews this instance's own): resolves whom from (the owner before, null when it had
   * none), why (file-owners.ts; none when it was this instance's own) and the fencing token taken; or `busy`, the
   * instance holding a live lease on it. A take from another owner is recorded in the file's history.
   */
  take(t: SqlPort, fileId: number): Promise<LeaseTake>;
  /**
   * Takes the lease of the file a claim is inserting, sent with its insert (the newest processing file of the
   * checksum, under the claim's turn), and records the claim in the file's history; resolves its id.
   */
  takeNew(t: SqlPort, checksum: string): Promise<number | undefined>;
  /** An operator's write (resolve): refused (LEASE_LOST) while another instance works on the file under a live lease. */
  unheld(t: SqlPort, fileId: number): Promise<void>;
  /** The instance holding the file (heldError), by this journal's lease clock; undefined when none does. */
  holder(t: SqlPort, fileId: number): Promise<LeaseHolder | undefined>;
  /** A fenced write as a unit of work: when it throws, the checks made in the unit are forgotten (its unit fails). */
  write<T>(fn: (t: SqlPort) => Promise<T>): Promise<T>;
  /**
   * The condition that makes one UPDATE of the file's row its own fenced write (` AND lease_owner = ? AND
   * lease_token = ?` and its parameters), when this journal knows its token for the file; undefined otherwise. An
   * UPDATE that changes nothing under it is to be made again the checked way (write, hold), which says why.
   */
  condition(fileId: number): { clause: string; params: SqlValue[] } | undefined;
}

export type LeaseTake = { busy: string } | { from: string | null; token: number; reason?: FileOwnerReason };

export function createFence(sql: SqlPort, mode: LeaseMode, inUnit: boolean, now: () => string): Fence {
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
      // The owner before, read under the row's lock (PostgreSQL) so that the take below is from that owner.
      const before = await t.get<OwnerBefore>(FILE_OWNER_STATEMENTS.before(t.dialect), [fileId]);
      const taken = await t.get<{ lease_token: number }>(q.take.sql, q.take.params({ owner: me, leaseMs: mode.leaseMs, fileId }));
      if (taken) {
        mode.tokens.set(fileId, taken.lease_token);
        const token = Number(taken.lease_token);
        // A take of a concluded file is a re-drive's (beginRedrive): only processing files are resumed.
        const reason = await recordTake(t, { fileId, at: now(), instance: me, before, token, redrive: before !== undefined && before.status !== 'processing' });
        return { from: before?.lease_owner ?? null, token: taken.lease_token, ...(reason ? { reason } : {}) };
      }
      return { busy: (await t.get<{ lease_owner: string | null }>(q.liveOwner, [fileId]))?.lease_owner ?? 'an unknown instance' };
    },
    async takeNew(t, checksum) {
      // Sent together (one round trip on a pipelining connection): the server records the take after making it.
      const [taken] = await Promise.all([
        t.get<{ id: number; lease_token: number }>(q.takeNewest.sql, q.takeNewest.params({ owner: me, leaseMs: mode.leaseMs, checksum })),
        t.run(FILE_OWNER_STATEMENTS.recordNew, [now(), checksum, me]),
      ]);
      if (taken) mode.tokens.set(taken.id, taken.lease_token);
      return taken?.id;
    },
    async unheld(t, fileId) {
      const row = await t.get<{ lease_owner: string | null; live: number }>(q.liveOwner, [fileId]);
      if (row && row.live === 1 && row.lease_owner !== me) throw fileBusy(fileId, row.lease_owner ?? 'an unknown instance');
    },
    holder: (t, fileId) => holderOn(t, q, fileId),
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
