import { WisbridgeError } from '../../errors.js';
import type { ClaimsAndRequests, Heartbeat, InstanceRecord, InstancesAndLeases, TickClaim, TickRef } from '../contract.js';
import { stateError } from '../core/rows.js';
import type { SqlPort, SqlValue } from '../core/sql.js';
import { claimDuplicate, recordEventDisposition, releaseFileEvent } from './duplicates.js';
import { FILE_OWNER_STATEMENTS, recordTake, type OwnerBefore } from './file-owners.js';
import { leasing, type LeaseContext } from './lease-context.js';
import { LOST, statementsOf, tickKey, type LeaseMode, type LeaseRow } from './leases.js';

/* The instances on a journal, their heartbeats, the files they take over, and scheduled ticks run once among them. */

/** Instances younger than this many leases may hold leases still: a SQLite journal retires them once its lock is taken. */
const LIVE_LEASES = 3;
/** Instances silent this long leave the list, and ticks this old leave job_ticks (both only grow otherwise). */
const HISTORY_MS = 7 * 24 * 3600_000;

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

const info = (m: LeaseMode) => [m.instance.id, m.instance.host, m.instance.pid, m.instance.version];

/** The instance stops and its leases are free at once: files, duplicates and ticks it held are taken by the next claim. */
async function retire(c: LeaseContext, t: SqlPort, id: string): Promise<void> {
  await t.run(c.q.stop, [id]);
  await t.run(c.q.releaseFiles, [id]);
  await t.run(c.q.releaseEvents, [id]);
  await t.run(c.q.releaseTicks, [id]);
}

function registerInstance(c: LeaseContext): Promise<void> {
  return c.sql.tx(async (t): Promise<void> => {
    const m = leasing(c);
    const { id } = m.instance;
    if (m.lockInstance) {
      const lock = m.lockInstance();
      const others = await t.all<{ id: string; host: string; pid: number; started_at: string }>(c.q.rivals, [id, -LIVE_LEASES * m.leaseMs]);
      if (!lock.taken) throw anotherInstance(others[0], lock.lockFile);
      // With the lock held, an instance still listed as running is a process that ended without retiring (kill -9, a
      // crash): retired here, so that its files are resumed at once.
      for (const other of others) await retire(c, t, other.id);
    }
    await t.run(c.q.forgetInstances, [id, -HISTORY_MS]);
    await t.run(c.q.register, info(m));
  });
}

/** Compares the files this journal holds with their rows: the ids of those another instance took over, sorted. */
async function lostFiles(c: LeaseContext, t: SqlPort, m: LeaseMode): Promise<number[]> {
  const me = m.instance.id;
  const lost: number[] = [];
  if (m.tokens.size === 0) return lost;
  const rows = await t.all<LeaseRow & { id: number; disposed_to: string | null }>(c.q.heldFiles, [JSON.stringify([...m.tokens.keys()])]);
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
  return lost.sort((a, b) => a - b);
}

/**
 * Renews the ticks this journal holds: the ones whose row no longer has this owner and token were taken over (or
 * finished by whoever took them), reported once and forgotten.
 */
async function renewTicks(c: LeaseContext, t: SqlPort, m: LeaseMode, leaseMs: number): Promise<TickRef[]> {
  const lost: TickRef[] = [];
  for (const [key, token] of [...m.ticks]) {
    const [job, tick] = key.split('\n') as [string, string];
    if ((await t.run(c.q.renewHeldTick, [leaseMs, job, tick, m.instance.id, token])) === 1) continue;
    // Finished or given up meanwhile (its run's own statement, beside this one): not a loss.
    if (m.ticks.get(key) !== token) continue;
    m.ticks.delete(key);
    lost.push({ job, tick });
  }
  return lost;
}

function heartbeat(c: LeaseContext, leaseMs: number): Promise<Heartbeat> {
  return c.sql.tx(async (t): Promise<Heartbeat> => {
    const m = leasing(c);
    const me = m.instance.id;
    await t.run(c.q.beat, info(m));
    const working = [...m.tokens].filter(([, token]) => token !== LOST).map(([id]) => id);
    if (working.length > 0) await t.run(c.q.renewFiles, [leaseMs, me, JSON.stringify(working)]);
    if (m.events.size > 0) await t.run(c.q.renewEvents, [leaseMs, me, JSON.stringify([...m.events.keys()])]);
    const ticks = await renewTicks(c, t, m, leaseMs);
    const lost = await lostFiles(c, t, m);
    return ticks.length === 0 ? { lost } : { lost, lostTicks: ticks };
  });
}

function takeFinishedFile(c: LeaseContext, fileId: number): Promise<{ taken: true } | { taken: false; owner: string }> {
  return c.sql.tx(async (t): Promise<{ taken: true } | { taken: false; owner: string }> => {
    const m = leasing(c);
    const me = m.instance.id;
    const before = await t.get<OwnerBefore>(FILE_OWNER_STATEMENTS.before(t.dialect), [fileId]);
    const taken = await t.get<{ lease_token: number }>(c.q.takeFinished.sql, c.q.takeFinished.params({ owner: me, leaseMs: m.leaseMs, fileId, silentMs: -m.leaseMs }));
    if (taken) {
      m.tokens.set(fileId, taken.lease_token);
      await recordTake(t, { fileId, at: c.now(), instance: me, before, token: Number(taken.lease_token), redrive: false });
      return { taken: true };
    }
    const row = await t.get<{ lease_owner: string | null }>(c.q.fileOwner, [fileId]);
    if (!row) throw stateError(`file ${fileId} is not in the journal`);
    return { taken: false, owner: row.lease_owner ?? 'an unknown instance' };
  });
}

async function releaseFile(c: LeaseContext, fileId: number): Promise<void> {
  const { mode } = c;
  if (!mode) return;
  const held = mode.tokens.get(fileId);
  // Forgotten first: heartbeats renew only the files this journal holds, so the lease runs out by itself should the
  // database not answer now (a run that failed because it is out of reach).
  mode.tokens.delete(fileId);
  if (held !== undefined && held !== LOST) await c.sql.run(c.q.releaseFile, [fileId, mode.instance.id, held]);
}

type Untaken = Array<{ fileId: number; name: string; owner: string }>;

async function untaken(c: LeaseContext, sql: string, params: readonly SqlValue[]): Promise<Untaken> {
  return (await c.sql.all<{ id: number; name: string; lease_owner: string }>(sql, params)).map((row) => ({ fileId: row.id, name: row.name, owner: row.lease_owner }));
}

async function listInstances(c: LeaseContext): Promise<InstanceRecord[]> {
  return (await c.sql.all<InstanceRow>(c.q.instances)).map((row) => ({
    id: row.id, host: row.host, pid: row.pid, version: row.version, startedAt: row.started_at, heartbeatAt: row.heartbeat_at,
    stoppedAt: row.stopped_at, files: row.files, jobs: row.jobs,
  }));
}

async function claimTick(c: LeaseContext, job: string, tickIso: string, leaseMs: number): Promise<TickClaim> {
  const { q } = c;
  const m = leasing(c);
  const claim = await c.sql.tx(async (t): Promise<TickClaim> => {
    const me = m.instance.id;
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
  // Held once the claim committed: a heartbeat that read the row before would not find it this journal's.
  if (claim.won) m.ticks.set(tickKey(job, tickIso), claim.token);
  return claim;
}

async function finishTick(c: LeaseContext, job: string, tickIso: string, token: number): Promise<void> {
  const m = leasing(c);
  const me = m.instance.id;
  const key = tickKey(job, tickIso);
  // Forgotten only once the journal answered: a finish that did not reach it is tried again with the tick still held.
  const finished = (await c.sql.run(c.q.finishTick, [job, tickIso, me, token])) === 1;
  if (m.ticks.get(key) === token) m.ticks.delete(key);
  if (finished) return;
  const owner = (await c.sql.get<{ owner: string }>(c.q.tickOwner, [job, tickIso]))?.owner;
  throw new WisbridgeError('LEASE_LOST', `job ${job}, tick ${tickIso}: instance ${me} no longer holds it with token ${token} `
    + `(${owner === undefined ? 'it was never claimed' : `held by ${owner}`}); not marked done`);
}

async function releaseTick(c: LeaseContext, job: string, tickIso: string, token: number): Promise<void> {
  const m = leasing(c);
  const key = tickKey(job, tickIso);
  // Forgotten first: the heartbeat no longer renews it, so its lease runs out by itself should the journal not answer now.
  if (m.ticks.get(key) === token) m.ticks.delete(key);
  await c.sql.run(c.q.releaseTick, [job, tickIso, m.instance.id, token]);
}

type LeaseMethods = InstancesAndLeases & Pick<ClaimsAndRequests, 'releaseFile' | 'claimDuplicate' | 'releaseFileEvent' | 'recordEventDisposition'>;

/**
 * The InstancesAndLeases role over a port, and the claims' lease ends; without a lease mode only listInstances,
 * filesToTakeOver and claimDuplicate answer (tools: status; one-shot commands), and the releases do nothing.
 */
export function createLeases(sql: SqlPort, mode: LeaseMode | undefined, now: () => string): LeaseMethods {
  const c: LeaseContext = { sql, mode, now, q: statementsOf(sql.dialect, mode) };
  return {
    instance: mode?.instance ?? null,
    registerInstance: () => registerInstance(c),
    heartbeat: (leaseMs) => heartbeat(c, leaseMs),
    retireInstance: () => sql.tx((t) => retire(c, t, leasing(c).instance.id)),
    takeFinishedFile: (fileId) => takeFinishedFile(c, fileId),
    listInstances: () => listInstances(c),
    forgetInstance: async (id, heartbeatAt) => (await sql.run('DELETE FROM instances WHERE id = ? AND heartbeat_at = ?', [id, heartbeatAt])) > 0,
    claimTick: (job, tickIso, leaseMs) => claimTick(c, job, tickIso, leaseMs),
    finishTick: (job, tickIso, token) => finishTick(c, job, tickIso, token),
    releaseTick: (job, tickIso, token) => releaseTick(c, job, tickIso, token),
    releaseFile: (fileId) => releaseFile(c, fileId),
    filesToTakeOver: (drop) => untaken(c, c.q.toTakeOver, [drop]),
    redrivesToTakeUp: () => untaken(c, c.q.redrivesToTakeUp, []),
    claimDuplicate: (d) => claimDuplicate(c, d),
    releaseFileEvent: (eventId, options = {}) => releaseFileEvent(c, eventId, options),
    recordEventDisposition: (eventId, where) => recordEventDisposition(c, eventId, where),
  };
}
