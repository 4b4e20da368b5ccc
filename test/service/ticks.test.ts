import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { ManualClock } from '../../src/service/clock.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { freshDatabase, type FreshDatabase } from '../support/postgres.js';
import { baseConfig, memoryLogger, proxiedJournal, tempConfig, until, useCleanups, waitForEvent } from './support.js';

/**
 * Scheduled ticks are fenced like files: a tick another instance took over stops its run here (nothing more is
 * written), and a tick is marked done only by the run that ran it, once its finish reached the journal.
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const root = resolve(import.meta.dirname, '../..');
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const TICK = '2026-11-22T10:05:00.000Z';

/** An export job every five minutes that writes a work list each run (a header only when there is no work). */
const config = (journal: string, cron = '*/5 * * * *') => `${baseConfig(emu.url, '', journal)}exports:
  - name: nightly
    work_type: customerShipments
    drop: wms
    service: main
    mapping: customer-shipments-export
    acknowledge: never
    empty_files: true
    schedule: { cron: "${cron}", timezone: UTC }
instance: { lease_ms: 3000, heartbeat_ms: 500 }
`;

async function database(): Promise<FreshDatabase> {
  const db = await freshDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function tickRow(db: FreshDatabase, tick = TICK, schedule = 'job:nightly'): Promise<{ owner: string; token: number; done: boolean } | undefined> {
  const server = inject('postgres');
  const client = new pg.Client({ host: server.host, port: server.port, user: server.owner.user, password: server.owner.password, database: db.name });
  await client.connect();
  try {
    const { rows } = await client.query<{ owner: string; token: number; done_at: string | null }>(
      'SELECT owner, token, done_at FROM job_ticks WHERE job = $1 AND tick = $2', [schedule, tick]);
    return rows[0] && { owner: rows[0].owner, token: Number(rows[0].token), done: rows[0].done_at !== null };
  } finally {
    await client.end();
  }
}

/**
 * A bridge on a database of its own, its clock moved to TICK, the export's listing answering 20 s late: the tick's
 * run is under way and stays so until it is stopped.
 */
async function bridgeAtSlowTick(extraYaml = '') {
  const db = await database();
  const env = await tempConfig(`${config(JSON.stringify(db.config))}${extraYaml}`);
  cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
  const log = memoryLogger();
  const clock = new ManualClock(Date.parse('2026-11-22T10:01:00Z'));
  const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger: log.logger, clock });
  cleanups.push(() => bridge.stop('test'));
  await bridge.start();
  await setFaults(emu, { latency_ms: 20_000, path_prefix: '/v1/customer-shipments' });
  await clock.advanceTo(Date.parse(TICK));
  return { db, env, log, bridge, clock };
}

const workLists = (dir: string) => readdirSync(join(dir, 'drop', 'outbox')).filter((n) => n.startsWith('nightly_'));

describe('a scheduled tick another instance took over', () => {
  it('stops its run on the instance that lost it: no work list written there, the tick not marked done by it; the taker runs it and marks it done', async () => {
    // The listing answers long after the takeover: the run can only end early by being stopped.
    const { db, env, log, bridge } = await bridgeAtSlowTick();
    await until(async () => (await tickRow(db))?.owner === bridge.instance.id, 'the tick claimed by the bridge');
    await waitForEvent(log, 'job.run.started');

    // Another instance takes the tick over: its lease clock is ahead by more than a lease, so the bridge's lease
    // looks run out to it, as after a pause of the bridge longer than the lease.
    const thief = await openJournal(db.config, { instance: { id: 'thief-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 600_000, leaseClockOffsetMs: 60_000 });
    cleanups.push(() => thief.close());
    await thief.registerInstance();
    expect(await thief.claimTick('job:nightly', TICK, 600_000)).toEqual({ won: true, token: 2 });

    const lost = await waitForEvent(log, 'tick.lease-lost');
    expect(lost).toMatchObject({ level: 40, schedule: 'job:nightly', tick: TICK });
    const last = await until(() => bridge.lastRun('nightly'), 'the run stopped');
    expect(last).toMatchObject({ trigger: 'schedule', result: 'aborted', error: expect.stringContaining('LEASE_LOST') });
    // Nothing was written by the instance that lost the tick, and it did not mark the tick done.
    expect(workLists(env.dir)).toEqual([]);
    expect(await tickRow(db)).toEqual({ owner: 'thief-1', token: 2, done: false });
    expect(log.records.some((r) => r.msg === 'could not record the scheduled tick as run: another instance took it over')).toBe(false);
    expect(await bridge.metrics.text()).toContain(`wisbridge_tick_leases_lost_total{schedule="job:nightly",instance="${bridge.instance.id}"} 1`);
    // The bridge's heartbeats leave the taker's lease alone: still the taker's, which marks it done once it ran it.
    await bridge.leases.beat();
    expect(await thief.claimTick('job:nightly', TICK, 600_000)).toEqual({ won: true, token: 2 });
    await thief.finishTick('job:nightly', TICK, 2);
    expect(await tickRow(db)).toEqual({ owner: 'thief-1', token: 2, done: true });
  });
});

describe('a retention tick another instance took over', () => {
  it('stops waiting for the busy jobs and prunes nothing here; the tick stays the taker\'s', async () => {
    // The export lists slowly; the retention tick a minute later, claimed, waits for it (prune follows the runs).
    const RETENTION_TICK = '2026-11-22T10:06:00.000Z';
    const { db, log, bridge, clock } = await bridgeAtSlowTick('retention: { journal_days: 1, cron: "6 10 * * *", timezone: UTC }\n');
    await waitForEvent(log, 'job.run.started');
    await clock.advanceTo(Date.parse(RETENTION_TICK));
    await until(async () => (await tickRow(db, RETENTION_TICK, 'retention'))?.owner === bridge.instance.id, 'the retention tick claimed by the bridge');

    // Another instance whose lease clock is ahead by more than a lease: the bridge's lease looks run out to it, as
    // after a pause of the bridge longer than the lease.
    const thief = await openJournal(db.config, { instance: { id: 'thief-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 600_000, leaseClockOffsetMs: 60_000 });
    cleanups.push(() => thief.close());
    await thief.registerInstance();
    expect(await thief.claimTick('retention', RETENTION_TICK, 600_000)).toEqual({ won: true, token: 2 });

    expect(await waitForEvent(log, 'tick.lease-lost')).toMatchObject({ schedule: 'retention', tick: RETENTION_TICK });
    // The run ends while the export still lists: it stopped at the takeover, not when the jobs went idle.
    expect(await waitForEvent(log, 'tick.run-stopped')).toMatchObject({ schedule: 'retention', tick: RETENTION_TICK });
    expect(bridge.jobViews().find((j) => j.name === 'nightly')?.running).toBe(true);
    expect(bridge.lastRetention).toBeUndefined();
    expect(await tickRow(db, RETENTION_TICK, 'retention')).toEqual({ owner: 'thief-1', token: 2, done: false });
    expect(await bridge.metrics.text()).toContain(`wisbridge_tick_leases_lost_total{schedule="retention",instance="${bridge.instance.id}"} 1`);
  });
});

describe('a scheduled tick whose finish did not reach the journal', () => {
  it('is tried again while the tick is held: marked done once the journal answers, so that no other instance runs it again', async () => {
    const db = await database();
    const server = inject('postgres');
    const { proxy, journal } = await proxiedJournal(db, server.port, cleanups);
    const env = await tempConfig(config(journal));
    cleanups.push(env.cleanup);
    const log = memoryLogger();
    const clock = new ManualClock(Date.parse('2026-11-22T10:01:00Z'));
    // The journal goes out of reach as the run ends, before its tick is marked done.
    const runners = { ...flowRunners, exportRun: async (...args: Parameters<typeof flowRunners.exportRun>) => {
      const summary = await flowRunners.exportRun(...args);
      proxy.cut();
      return summary;
    } };
    const bridge = new BridgeService(env.loaded, { runners, logger: log.logger, clock });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await clock.advanceTo(Date.parse(TICK));
    await waitForEvent(log, 'tick.finish-retried');
    expect(workLists(env.dir)).toHaveLength(1);

    proxy.restore();
    const late = await waitForEvent(log, 'tick.finished-late');
    expect(late).toMatchObject({ schedule: 'job:nightly', tick: TICK, attempts: expect.any(Number) });
    expect(await tickRow(db)).toEqual({ owner: bridge.instance.id, token: 1, done: true });
    // Done for every other instance: none runs it again, whether this one lives on or stops.
    const other = await openJournal(db.config, { instance: { id: 'other-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 600_000 });
    cleanups.push(() => other.close());
    await bridge.stop('test');
    expect(await other.claimTick('job:nightly', TICK, 600_000)).toEqual({ won: false, owner: bridge.instance.id, done: true });
    expect(workLists(env.dir)).toHaveLength(1);
  });
});

describe('a `wisbridge run` paused past its tick\'s lease', () => {
  it('writes nothing more once it resumes: the work list it had recorded never reaches the outbox, the tick stays the taker\'s', async () => {
    const db = await database();
    // Every two seconds: the first tick's export stops at the failpoint, with its work list recorded, not written.
    const env = await tempConfig(config(JSON.stringify(db.config), '*/2 * * * * *'));
    cleanups.push(env.cleanup);
    const pauses = mkdtempSync(join(tmpdir(), 'wisbridge-pause-'));
    const pauseFile = join(pauses, 'paused');
    const child = spawn(process.execPath, [join(root, 'bin/wisbridge.js'), 'run', '--config', env.file], {
      cwd: env.dir, env: { ...process.env, WISBRIDGE_FAILPOINTS: `export.after-record=pause(${pauseFile})` }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    cleanups.push(() => {
      child.kill('SIGKILL');
      rmSync(pauses, { recursive: true, force: true });
    });
    await until(() => existsSync(pauseFile) || /"level":50/.test(out) || child.exitCode !== null, 'the run paused after recording its work list', 100);
    expect(out).not.toMatch(/"level":50/);
    expect(existsSync(pauseFile)).toBe(true);
    const journal = await openJournal(db.config);
    cleanups.push(() => journal.close());
    const [recorded] = await journal.unwrittenExports('customerShipments');
    expect(recorded).toBeDefined();

    // Another instance takes the tick over once its lease ran out while the process is stalled.
    const server = inject('postgres');
    const client = new pg.Client({ host: server.host, port: server.port, user: server.owner.user, password: server.owner.password, database: db.name });
    await client.connect();
    const { rows } = await client.query<{ tick: string }>("SELECT tick FROM job_ticks WHERE job = 'job:nightly' AND done_at IS NULL");
    await client.end();
    expect(rows).toHaveLength(1);
    const tick = rows[0]!.tick;
    const thief = await openJournal(db.config, { instance: { id: 'thief-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 600_000 });
    cleanups.push(() => thief.close());
    await thief.registerInstance();
    expect(await until(async () => {
      const claim = await thief.claimTick('job:nightly', tick, 600_000);
      return claim.won ? claim : undefined;
    }, 'the tick taken over', 200)).toEqual({ won: true, token: 2 });

    rmSync(pauseFile);
    await until(() => out.includes('"event":"tick.lease-lost"'), 'the resumed process told its tick was lost');
    await until(async () => !(await journal.unwrittenExports('customerShipments')).some((e) => e.exportId === recorded!.exportId), 'the recorded work list settled');
    expect(existsSync(join(env.dir, 'drop', 'outbox', recorded!.fileName))).toBe(false);
    expect(await tickRow(db, tick)).toEqual({ owner: 'thief-1', token: 2, done: false });
  });
});
