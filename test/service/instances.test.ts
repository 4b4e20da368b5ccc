import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { openJournal } from '../../src/journal/index.js';
import { processFile } from '../../src/pipeline/index.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { ManualClock } from '../../src/service/clock.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { formatStatus, statusReport } from '../../src/service/status.js';
import { CONSOLE_TOKEN, consoleClient } from '../console/support.js';
import { appliedReferences, probeWrite, setFaults, useEmulator } from '../support/emulator.js';
import { freshDatabase, type FreshDatabase } from '../support/postgres.js';
import { eventsOf, korrFile, memoryLogger, proxiedJournal, tempConfig, until, useCleanups, waitForEvent, type LogRecord } from './support.js';

/**
 * Several `wisbridge run` instances on one PostgreSQL journal and one local drop: each file is worked on
 * by one instance, each scheduled tick runs on one, status and the console list the instances, /metrics tells them
 * apart, /healthz says when the journal is out of reach. A SQLite journal serves one instance and says so.
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const root = resolve(import.meta.dirname, '../..');
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

/** A configuration on `journal` (YAML text) with the inbound job `stock`, an optional export job, short leases. */
// Two writes of a file at a time: a file taken over mid-way still has rows not sent (15 requests at 400 ms each).
const sharedConfig = (journal: string, extra = '', jobExtra = '') => `
journal: ${journal}
mappings: ${JSON.stringify(join(root, 'mappings'))}
services:
  main:
    url: ${emu.url}
    token: { env: WISBRIDGE_TEST_TOKEN }
    batch_size: 2
    requests_in_flight: 2
drops:
  wms:
    type: local
    root: drop
    settle_ms: 0
    watch_events: false
    poll_interval_ms: 50
inbound:
  - name: stock
    drop: wms
    service: main
    mappings: [inventory-adjustments]
${jobExtra}metrics: { host: 127.0.0.1, port: 0 }
instance: { lease_ms: 3000, heartbeat_ms: 500 }
${extra}`;

/** An export job every five minutes that writes a file each run (a header only when there is no work). */
const EXPORT_JOB = `exports:
  - name: nightly
    work_type: customerShipments
    drop: wms
    service: main
    mapping: customer-shipments-export
    acknowledge: never
    empty_files: true
    schedule: { cron: "*/5 * * * *", timezone: UTC }
`;


async function database(): Promise<FreshDatabase> {
  const db = await freshDatabase();
  cleanups.push(() => db.drop());
  return db;
}

/** Two bridges on one configuration file (one journal, one drop), each its own instance. */
async function twoBridges(yaml: string, clocks?: [ManualClock, ManualClock], prepare?: (dir: string) => void) {
  const env = await tempConfig(yaml, { load: false });
  cleanups.push(env.cleanup);
  prepare?.(env.dir);
  const bridges = await Promise.all([0, 1].map(async (i) => {
    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(await loadConfig(env.file), { runners: flowRunners, logger, clock: clocks?.[i], watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    return { bridge, records };
  }));
  return { env, bridges, inbox: join(env.dir, 'drop', 'inbox'), outbox: join(env.dir, 'drop', 'outbox'), archive: join(env.dir, 'drop', 'archive') };
}

describe('several instances on one PostgreSQL journal', () => {
  it('two services on one drop: 20 files, each processed once by one instance, one result file each; status, console and /metrics show both', async () => {
    const db = await database();
    const { bridges, inbox, outbox, archive } = await twoBridges(sharedConfig(JSON.stringify(db.config), 'console: { auth: { bearer_token: { file: console-token } } }\n'), undefined, (dir) => writeFileSync(join(dir, 'console-token'), `${CONSOLE_TOKEN}\n`));
    const [a, b] = bridges;
    await Promise.all([a.bridge.start(), b.bridge.start()]);
    expect(a.bridge.instance.id).not.toBe(b.bridge.instance.id);

    const files = 20;
    const rowsPerFile = 6;
    for (let f = 1; f <= files; f++) {
      const rows = Array.from({ length: rowsPerFile }, (_, r) => ['SKU-00001', 1, `TWO-${f}-${r + 1}`] as [string, number, string]);
      writeFileSync(join(inbox, `KORR_two_${String(f).padStart(2, '0')}.csv`), korrFile(rows));
    }
    await until(() => readdirSync(archive).length === files && readdirSync(inbox).length === 0, 'every file archived');
    await until(() => readdirSync(outbox).filter((n) => n.endsWith('.result.csv')).length >= files, 'every result file');

    const problems = [...a.records, ...b.records].filter((r) => r.level >= 40);
    expect(problems).toEqual([]);
    const applied = await appliedReferences(emu, 'TWO-');
    expect(applied.size).toBe(files * rowsPerFile);
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
    const results = readdirSync(outbox).filter((n) => n.endsWith('.result.csv')).sort();
    expect(results).toEqual(Array.from({ length: files }, (_, i) => `KORR_two_${String(i + 1).padStart(2, '0')}.result.csv`));
    for (const name of results) {
      const lines = readFileSync(join(outbox, name), 'utf8').trim().split('\r\n').slice(1);
      expect(lines.map((l) => l.split(',')[2]), name).toEqual(Array(rowsPerFile).fill('ok'));
    }
    // Each file was processed by one instance: between them, every file once.
    const processed = (records: LogRecord[]) => eventsOf(records, 'file.processed').map((r) => r.file as string);
    await until(() => processed(a.records).length + processed(b.records).length >= files, 'every file logged as processed');
    const byA = processed(a.records);
    const byB = processed(b.records);
    expect([...byA, ...byB].sort()).toEqual(results.map((n) => n.replace('.result.csv', '.csv')));

    // status lists both instances, and which instance held each file.
    const journal = await openJournal(db.config);
    cleanups.push(() => journal.close());
    const report = await statusReport(journal, { limit: 50, rows: 10, leaseMs: 3000 });
    expect(report.instances.map((i) => i.id).sort()).toEqual([a.bridge.instance.id, b.bridge.instance.id].sort());
    for (const i of report.instances) expect(i).toMatchObject({ host: a.bridge.instance.host, pid: process.pid, stoppedAt: null });
    const owners = new Map(report.files.map((f) => [f.name, f.instance]));
    for (const name of byA) expect(owners.get(name)).toBe(a.bridge.instance.id);
    for (const name of byB) expect(owners.get(name)).toBe(b.bridge.instance.id);
    const text = formatStatus(report);
    expect(text).toContain('instances (2)');
    expect(text).toContain(a.bridge.instance.id);
    expect(text).toContain(b.bridge.instance.id);

    // /metrics: every series carries the instance's label.
    for (const { bridge } of bridges) {
      const metrics = await (await fetch(`${bridge.url}/metrics`)).text();
      const series = metrics.split('\n').filter((l) => l && !l.startsWith('#'));
      expect(series.length).toBeGreaterThan(20);
      expect(series.filter((l) => !l.includes(`instance="${bridge.instance.id}"`))).toEqual([]);
      const health = await (await fetch(`${bridge.url}/healthz`)).json();
      expect(health).toMatchObject({ status: 'ok', instance: bridge.instance.id, journal: { reachable: true } });
    }

    // The console's overview lists them too, and a file's page says which instance processed it.
    const overview = await consoleClient(a.bridge.url!).get('/console');
    expect(overview.status).toBe(200);
    const table = /<table id="instances">[\s\S]*?<\/table>/.exec(overview.text)![0];
    expect(table).toContain(`data-instance="${a.bridge.instance.id}"`);
    expect(table).toContain(`data-instance="${b.bridge.instance.id}"`);
    expect(table).toContain('(this one)');
    const someFile = report.files.find((f) => f.instance === b.bridge.instance.id)!;
    const filePage = await consoleClient(a.bridge.url!).get(`/console/files/${someFile.fileId}`);
    expect(filePage.text).toContain(`processed by instance ${b.bridge.instance.id}`);

    // A graceful stop retires the instance: status says when.
    await b.bridge.stop('test');
    const after = await statusReport(journal, { limit: 1, rows: 0, leaseMs: 3000 });
    expect(after.instances.find((i) => i.id === b.bridge.instance.id)?.stoppedAt).toEqual(expect.any(String));
    expect(after.instances.find((i) => i.id === a.bridge.instance.id)?.stoppedAt).toBeNull();
  });

  it('a scheduled export tick fires on both services but runs on one: one work-list file, the other counts the tick as run elsewhere', async () => {
    const db = await database();
    const start = Date.parse('2026-11-22T10:01:00Z');
    const clocks: [ManualClock, ManualClock] = [new ManualClock(start), new ManualClock(start)];
    const { bridges, outbox } = await twoBridges(sharedConfig(JSON.stringify(db.config), EXPORT_JOB), clocks);
    await Promise.all(bridges.map(({ bridge }) => bridge.start()));
    const tick = Date.parse('2026-11-22T10:05:00Z');
    await Promise.all(clocks.map((clock) => clock.advanceTo(tick)));
    const elsewhere = async (bridge: BridgeService) =>
      (await bridge.metrics.ticksElsewhere.get()).values.find((v) => v.labels.schedule === 'job:nightly')?.value ?? 0;
    await until(async () => bridges.some(({ bridge }) => bridge.lastRun('nightly')) && (await elsewhere(bridges[0].bridge)) + (await elsewhere(bridges[1].bridge)) === 1, 'one run, one tick elsewhere');
    const [winner, loser] = bridges[0].bridge.lastRun('nightly') ? bridges : [bridges[1], bridges[0]];
    expect(winner.bridge.lastRun('nightly')).toMatchObject({ trigger: 'schedule', result: 'ok' });
    expect(loser.bridge.lastRun('nightly')).toBeUndefined();
    const workLists = () => readdirSync(outbox).filter((n) => n.startsWith('nightly_'));
    expect(workLists()).toHaveLength(1);
    expect(loser.records.find((r) => r.msg === 'scheduled tick claimed by another instance: it runs there'))
      .toMatchObject({ level: 20, schedule: 'job:nightly', tick: '2026-11-22T10:05:00.000Z', owner: winner.bridge.instance.id });
    const metrics = await loser.bridge.metrics.text();
    expect(metrics).toContain(`wisbridge_scheduled_ticks_elsewhere_total{schedule="job:nightly",instance="${loser.bridge.instance.id}"} 1`);

    // The next tick: again once.
    await Promise.all(clocks.map((clock) => clock.advanceTo(Date.parse('2026-11-22T10:10:00Z'))));
    await until(async () => (await elsewhere(bridges[0].bridge)) + (await elsewhere(bridges[1].bridge)) === 2, 'the second tick elsewhere');
    await until(() => workLists().length === 2, 'the second work list');
    // Each tick was decided by both instances (one ran it, the other counted it elsewhere): no third list can come.
    expect(workLists()).toHaveLength(2);
  });

  it('a tick whose instance died mid-run (claimed, never finished, its lease run out) is taken over and run by another instance', async () => {
    const db = await database();
    const start = Date.parse('2026-11-22T10:01:00Z');
    const clock = new ManualClock(start);
    const env = await tempConfig(sharedConfig(JSON.stringify(db.config), EXPORT_JOB));
    cleanups.push(env.cleanup);
    const { logger } = memoryLogger();
    let passed = 0;
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, clock, leaseClockOffsetMs: () => passed });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    // An instance claims the 10:05 tick and dies before it finishes it: nobody renews its lease of one second.
    const dead = await openJournal(db.config, { instance: { id: 'dead-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 1000 });
    cleanups.push(() => dead.close());
    await dead.registerInstance();
    const tick = '2026-11-22T10:05:00.000Z';
    const claim = await dead.claimTick('job:nightly', tick, 1000);
    expect(claim).toEqual({ won: true, token: 1 });

    await clock.advanceTo(Date.parse(tick));
    const elsewhere = async () => (await bridge.metrics.ticksElsewhere.get()).values.find((v) => v.labels.schedule === 'job:nightly')?.value ?? 0;
    await until(async () => (await elsewhere()) === 1, 'the tick seen claimed');
    expect(bridge.lastRun('nightly')).toBeUndefined();
    // Once that lease has run out (the bridge's lease clock moved past it), the next look (a lease later) takes the tick over and runs it.
    passed = 1100;
    await clock.advance(3000);
    await until(() => bridge.lastRun('nightly'), 'the tick run after the takeover');
    expect(bridge.lastRun('nightly')).toMatchObject({ trigger: 'schedule', result: 'ok' });
    expect(readdirSync(join(env.dir, 'drop', 'outbox')).filter((n) => n.startsWith('nightly_'))).toHaveLength(1);
    // The dead instance's token is stale: it could not mark the tick done, had it woken up.
    await expect(dead.finishTick('job:nightly', tick, 1)).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(await dead.claimTick('job:nightly', tick, 1000)).toEqual({ won: false, owner: bridge.instance.id, done: true });
  });

  it('/healthz is degraded while the journal cannot be reached, and the instance claims nothing then; ok again once it answers, and the file is processed once', async () => {
    const db = await database();
    const server = inject('postgres');
    const { proxy, journal } = await proxiedJournal(db, server.port, cleanups);
    const env = await tempConfig(sharedConfig(journal));
    cleanups.push(env.cleanup);
    const log = memoryLogger();
    const { logger, records } = log;
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    const health = async () => {
      const res = await fetch(`${bridge.url}/healthz`);
      return { code: res.status, body: await res.json() };
    };
    expect(await health()).toMatchObject({ code: 200, body: { status: 'ok', journal: { reachable: true } } });

    proxy.cut();
    await until(async () => (await health()).code === 503, '/healthz degraded');
    expect((await health()).body).toMatchObject({ status: 'degraded', journal: { reachable: false, since: expect.any(String), error: expect.any(String) } });
    expect(await (await fetch(`${bridge.url}/metrics`)).text()).toMatch(new RegExp(`^wisbridge_journal_up\\{instance="${bridge.instance.id}"\\} 0$`, 'm'));
    // Past lease_ms - heartbeat_ms without a heartbeat, the instance stops claiming and sending.
    await until(() => !bridge.leases.fresh, 'the instance holds back');
    const inbox = join(env.dir, 'drop', 'inbox');
    writeFileSync(join(inbox, 'KORR_outage.csv'), korrFile([['SKU-00001', 1, 'OUT-1'], ['SKU-00002', 1, 'OUT-2'], ['SKU-00001', 2, 'OUT-3']]));
    // Seen during the outage, and claimed only once the journal answers again (below).
    await waitForEvent(log, 'file.ready', (r) => r.file === 'KORR_outage.csv');
    expect((await appliedReferences(emu, 'OUT-')).size).toBe(0);
    expect(existsSync(join(inbox, 'KORR_outage.csv'))).toBe(true);

    proxy.restore();
    await until(async () => (await health()).code === 200, '/healthz ok again');
    const answers = await waitForEvent(log, 'journal.answers-again');
    const claim = await waitForEvent(log, 'file.claimed', (r) => r.file === 'KORR_outage.csv');
    expect(records.indexOf(claim)).toBeGreaterThan(records.indexOf(answers));
    const outbox = join(env.dir, 'drop', 'outbox');
    await until(() => existsSync(join(outbox, 'KORR_outage.result.csv')), 'the file processed after the outage');
    const applied = await appliedReferences(emu, 'OUT-');
    expect([...applied.entries()].sort()).toEqual([['OUT-1', 1], ['OUT-2', 1], ['OUT-3', 1]]);
  });
});

describe('a file whose lease another instance took over', () => {
  it.each([['the main thread', ''], ['a worker thread', 'mapping_threads: { from_bytes: 1 }\n']])('mapped and recorded on %s: stops at once on the instance that lost it (its request in flight aborted, no result file, no move); taken back once that lease expires, it is finished: every row applied once or uncertain', async (_where, threads) => {
    const db = await database();
    const env = await tempConfig(sharedConfig(JSON.stringify(db.config), threads));
    cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
    const log = memoryLogger();
    const { logger, records } = log;
    let passed = 0;
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200, leaseClockOffsetMs: () => passed });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await setFaults(emu, { latency_ms: 400, path_prefix: '/v1/inventory/adjustments' });
    const rows = 30;
    const inbox = join(env.dir, 'drop', 'inbox');
    const outbox = join(env.dir, 'drop', 'outbox');
    writeFileSync(join(inbox, 'KORR_taken.csv'), korrFile(Array.from({ length: rows }, (_, i) => ['SKU-00001', 1, `TAKEN-${i + 1}`] as [string, number, string])));
    const claimed = await waitForEvent(log, 'file.claimed', (r) => r.file === 'KORR_taken.csv');
    await until(async () => (await appliedReferences(emu, 'TAKEN-')).size >= 4, 'some rows applied');
    expect(records.some((r) => r.msg === 'the file is mapped and recorded on its own thread')).toBe(threads !== '');

    // Another instance takes the file over (its lease made to look expired, as after a pause longer than the lease).
    // Its lease outlasts the test unless the bridge's lease clock is moved past it.
    const thiefLeaseMs = 600_000;
    const thief = await openJournal(db.config, { instance: { id: 'thief-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: thiefLeaseMs });
    cleanups.push(() => thief.close());
    await thief.registerInstance();
    const file = await thief.getFile(claimed.fileId as number);
    // The bridge's heartbeat may renew the lease between the two statements (a slow machine widens the window): then
    // the file is busy, and it is made to look expired again.
    let taken = { status: 'busy' } as Awaited<ReturnType<typeof thief.claimFile>>;
    for (let attempt = 0; attempt < 20 && taken.status === 'busy'; attempt++) {
      await ownerQuery(db, `UPDATE files SET lease_until = '2000-01-01T00:00:00.000Z' WHERE id = ${file.fileId}`);
      taken = await thief.claimFile({ drop: file.drop, name: file.name, checksum: file.checksum, size: file.size, mapping: file.mapping });
    }
    // The takeover says from whom, and the fencing token it took: one more than the bridge's.
    expect(taken).toMatchObject({ status: 'resume', fileId: file.fileId, from: bridge.instance.id, token: 2 });

    const lost = await waitForEvent(log, 'file.lease-lost', (r) => r.fileId === file.fileId);
    expect(lost).toMatchObject({ level: 40, file: 'KORR_taken.csv', fileId: file.fileId });
    const appliedWhenLost = (await appliedReferences(emu, 'TAKEN-')).size;
    expect(appliedWhenLost).toBeLessThan(rows);
    expect(existsSync(join(inbox, 'KORR_taken.csv'))).toBe(true);
    expect(existsSync(join(outbox, 'KORR_taken.result.csv'))).toBe(false);
    expect(await bridge.metrics.text()).toContain(`wisbridge_file_leases_lost_total{instance="${bridge.instance.id}"} 1`);
    // Nothing more goes out for the file from the instance that lost it (the other instance's lease keeps it from
    // claiming the file again): once a later write is answered, every request of the stopped run was applied or dropped.
    await probeWrite(emu, 'PROBE-TAKEN');
    expect((await appliedReferences(emu, 'TAKEN-')).size).toBe(appliedWhenLost);

    // The thief never renews its lease: once it runs out (the bridge's lease clock moved past it), the bridge takes the
    // file back, reconciles what was in flight, finishes it.
    await setFaults(emu, {});
    passed = thiefLeaseMs;
    await until(() => existsSync(join(outbox, 'KORR_taken.result.csv')), 'the file finished after the takeover');
    // Claimed new, then resumed here once, after the thief's lease ran out. A second resume here meant a heartbeat that
    // read the file's row before the resume's claim committed had stopped the resumed run (test/journal/leases.test.ts).
    expect(eventsOf(records, 'file.claimed').filter((r) => r.file === 'KORR_taken.csv').map((r) => [r.claim, r.from, r.leaseToken]))
      .toEqual([['new', undefined, undefined], ['resume', 'thief-1', 3]]);
    const applied = await appliedReferences(emu, 'TAKEN-');
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
    const result = readFileSync(join(outbox, 'KORR_taken.result.csv'), 'utf8').trim().split('\r\n').slice(1).map((l) => l.split(','));
    expect(result).toHaveLength(rows);
    for (const [line, , status] of result) {
      const reference = `TAKEN-${Number(line) - 1}`;
      if (status === 'ok') expect(applied.get(reference), reference).toBe(1);
      else expect(status, reference).toBe('uncertain');
    }
    // A move is link then unlink: the archive holds the file an instant before the inbox lets it go.
    await until(() => readdirSync(inbox).length === 0, 'the file moved out of the inbox');
    expect(readdirSync(join(env.dir, 'drop', 'archive'))).toEqual(['KORR_taken.csv']);
  });
});

describe('a SQLite journal serves one instance', () => {
  it('a second wisbridge run on the same SQLite journal exits 2 with the reason, no stack; the first runs on', async () => {
    const env = await tempConfig(sharedConfig('journal.sqlite'), { load: false });
    cleanups.push(env.cleanup);
    const first = spawn(process.execPath, [join(root, 'bin/wisbridge.js'), 'run', '--config', env.file], {
      cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token },
    });
    const exited = new Promise<number | null>((done) => first.on('exit', (code) => done(code)));
    cleanups.push(() => {
      if (first.exitCode === null && first.signalCode === null) first.kill('SIGKILL');
    });
    let log = '';
    first.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    await until(() => log.includes('"event":"bridge.running"'), 'the first instance running');

    const second = spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), 'run', '--config', env.file], {
      cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token }, timeout: 30_000,
    });
    expect(second.status).toBe(2);
    // One line of its own among the JSON log lines (they are written asynchronously: it may come before or after them).
    expect(second.stderr).toMatch(/^wisbridge run: JOURNAL: another wisbridge instance \(\S+, pid \d+, started \S+\) uses this SQLite journal: a SQLite journal serves one instance; stop it, or put the journal on PostgreSQL to run several \(docs\/operations\.md\)$/m);
    expect(second.stderr).not.toMatch(/^\s+at /m);
    expect(second.stderr).not.toContain('"bridge running"');
    // Its log reads as a refusal: the reason, then no word of finishing requests it never had.
    expect(second.stderr).toContain('"msg":"start-up failed"');
    expect(second.stderr).not.toContain('finishing the requests in flight');

    // The first one was not disturbed: it still processes files, and stops cleanly.
    writeFileSync(join(env.dir, 'drop', 'inbox', 'KORR_single.csv'), korrFile([['SKU-00001', 1, 'ONE-1']]));
    await until(() => existsSync(join(env.dir, 'drop', 'outbox', 'KORR_single.result.csv')), 'the first instance still working');
    first.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('an instance killed between finishing a file and moving it', () => {
  it('another instance finishes the file once that lease ran out: one result file under the recorded name, one archived copy, every row applied once, no LEASE_LOST', async () => {
    const db = await database();
    const env = await tempConfig(sharedConfig(JSON.stringify(db.config)));
    cleanups.push(env.cleanup);
    const [inbox, outbox, archive] = ['inbox', 'outbox', 'archive'].map((folder) => join(env.dir, 'drop', folder)) as [string, string, string];
    writeFileSync(join(inbox, 'KORR_dead.csv'), korrFile([['SKU-00001', 1, 'DEAD-1'], ['SKU-00002', 1, 'DEAD-2'], ['SKU-00001', 2, 'DEAD-3']]));
    // The first instance processes the file, writes its result file and is killed (SIGKILL) right before the move.
    const first = startRun(env.file, { WISBRIDGE_FAILPOINTS: 'drop.before-move=kill' });
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const journal = await openJournal(db.config);
    cleanups.push(() => journal.close());
    const left = (await journal.latestFileNamed('KORR_dead.csv'))!;
    expect(left).toMatchObject({ status: 'done', resultName: 'KORR_dead.result.csv', disposedTo: null, lease: { owner: expect.stringMatching(new RegExp(`-${first.pid}-`)), token: 1 } });
    expect([readdirSync(inbox), readdirSync(outbox), readdirSync(archive)]).toEqual([['KORR_dead.csv'], ['KORR_dead.result.csv'], []]);

    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await until(async () => (await journal.getFile(left.fileId)).disposedTo !== null, 'the move finished by the other instance');
    expect(await journal.getFile(left.fileId)).toMatchObject({ disposedTo: 'archive/KORR_dead.csv', lease: { owner: bridge.instance.id, token: 2 } });
    expect((await journal.console.fileOwners(left.fileId)).map((o) => [o.instance, o.from, o.token, o.reason]))
      .toEqual([[left.lease!.owner, null, 1, 'claim'], [bridge.instance.id, left.lease!.owner, 2, 'lost']]);
    expect([readdirSync(inbox), readdirSync(outbox), readdirSync(archive)]).toEqual([[], ['KORR_dead.result.csv'], ['KORR_dead.csv']]);
    const result = readFileSync(join(outbox, 'KORR_dead.result.csv'), 'utf8').trim().split('\r\n').slice(1).map((l) => l.split(',')[2]);
    expect(result).toEqual(['ok', 'ok', 'ok']);
    expect([...(await appliedReferences(emu, 'DEAD-')).entries()].sort()).toEqual([['DEAD-1', 1], ['DEAD-2', 1], ['DEAD-3', 1]]);
    expect(records.filter((r) => r.level >= 40 || JSON.stringify(r).includes('LEASE_LOST'))).toEqual([]);
  });
});

describe('a SQLite journal after kill -9', () => {
  it('a new instance registers at once: the killed process (same host, its pid gone) is no rival and is marked stopped', async () => {
    const env = await tempConfig(sharedConfig('journal.sqlite'));
    cleanups.push(env.cleanup);
    const first = startRun(env.file);
    await first.running();
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const { logger } = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    const journal = await openJournal(env.loaded.journal);
    cleanups.push(() => journal.close());
    const instances = await journal.listInstances();
    expect(instances.map((i) => ({ pid: i.pid, stopped: i.stoppedAt !== null }))).toEqual([{ pid: first.pid, stopped: true }, { pid: process.pid, stopped: false }]);
    writeFileSync(join(env.dir, 'drop', 'inbox', 'KORR_after_kill.csv'), korrFile([['SKU-00001', 1, 'AFTER-KILL-1']]));
    await until(() => existsSync(join(env.dir, 'drop', 'outbox', 'KORR_after_kill.result.csv')), 'the new instance working');
  });
});

describe('one instance at a time, and soon', () => {
  it('a re-drop read by two instances at once is handled by one: one duplicate event, one result file, one archived copy, no error', async () => {
    const db = await database();
    const env = await tempConfig(sharedConfig(JSON.stringify(db.config)));
    cleanups.push(env.cleanup);
    const [a, b] = ['redrop-a', 'redrop-b'].map((id) => {
      const runtime = createRuntime(env.loaded, { logger: memoryLogger().logger, journalOptions: { instance: { id, host: 'test', pid: process.pid, version: 'test' }, leaseMs: 3000 } });
      cleanups.push(() => runtime.close());
      return runtime;
    }) as [ReturnType<typeof createRuntime>, ReturnType<typeof createRuntime>];
    const job = env.loaded.config.inbound[0]!;
    const [inbox, outbox, archive] = ['inbox', 'outbox', 'archive'].map((folder) => join(env.dir, 'drop', folder)) as [string, string, string];
    const content = korrFile([['SKU-00001', 1, 'REDROP-1'], ['SKU-00002', 1, 'REDROP-2']]);
    writeFileSync(join(inbox, 'KORR_first.csv'), content);
    expect((await processFile(a, job, 'KORR_first.csv')).outcome).toBe('done');

    // Both instances ready to go (journal, mappings, drop, client), so that they read the re-drop at once.
    await Promise.all([b.journal(), b.mappings(), b.drop(job.drop), b.client(job.service)]);
    writeFileSync(join(inbox, 'KORR_again.csv'), content);
    const reports = await Promise.all([processFile(a, job, 'KORR_again.csv'), processFile(b, job, 'KORR_again.csv')]);
    // The other one found the duplicate in hand (busy), or already moved (vanished).
    const outcomes = reports.map((r) => r.outcome);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(1);
    expect(outcomes.filter((o) => o !== 'duplicate')).toEqual([expect.stringMatching(/^(busy|vanished)$/)]);
    expect([readdirSync(inbox), readdirSync(outbox).sort(), readdirSync(archive).sort()])
      .toEqual([[], ['KORR_again.result.csv', 'KORR_first.result.csv'], ['KORR_again.csv', 'KORR_first.csv']]);
    const journal = await a.journal();
    expect((await journal.fileEventsNamed('KORR_again.csv', 10)).map((e) => [e.kind, e.resultName, e.disposedTo]))
      .toEqual([['duplicate', 'KORR_again.result.csv', 'archive/KORR_again.csv']]);
    const result = readFileSync(join(outbox, 'KORR_again.result.csv'), 'utf8').trim().split('\r\n').slice(1).map((l) => l.split(',')[2]);
    expect(result).toEqual(['skipped', 'skipped']);
    expect([...(await appliedReferences(emu, 'REDROP-')).values()]).toEqual([1, 1]);
  });

  it('a run that fails (the service refuses the token) gives the file\'s lease up: another instance may take it at once, not after the retry pause', async () => {
    const db = await database();
    const env = await tempConfig(sharedConfig(JSON.stringify(db.config)));
    cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
    const log = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger: log.logger, watchRetryMs: 60_000 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await setFaults(emu, { error_rate: 1, error_status: 401, path_prefix: '/v1/inventory/adjustments' });
    writeFileSync(join(env.dir, 'drop', 'inbox', 'KORR_refused.csv'), korrFile([['SKU-00001', 1, 'REFUSED-1'], ['SKU-00002', 1, 'REFUSED-2']]));
    const claimed = await waitForEvent(log, 'file.claimed', (r) => r.file === 'KORR_refused.csv');
    await waitForEvent(log, 'job.run.failed');
    // The instance heartbeats meanwhile, and waits a minute before it looks at the inbox again: a heartbeat now renews
    // the leases it holds, not the one it gave up.
    await bridge.leases.beat();
    await bridge.leases.beat();
    const other = await openJournal(db.config, { instance: { id: 'other-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 3000 });
    cleanups.push(() => other.close());
    const file = await other.getFile(claimed.fileId as number);
    expect(file).toMatchObject({ status: 'processing', lease: { owner: bridge.instance.id, token: 1, until: null } });
    expect(await other.claimFile({ drop: file.drop, name: file.name, checksum: file.checksum, size: file.size, mapping: file.mapping }))
      .toMatchObject({ status: 'resume', fileId: file.fileId });
    expect((await other.getFile(file.fileId)).lease).toMatchObject({ owner: 'other-1', token: 2 });
  });

  it('a file whose instance died is taken over before the backlog in front of it in the inbox, once its lease ran out', async () => {
    const db = await database();
    // One file at a time: the backlog in front of the orphan is then long (8 files of about 450 ms each).
    const env = await tempConfig(sharedConfig(JSON.stringify(db.config), '', '    files_in_flight: 1\n'));
    cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
    const [inbox, outbox] = ['inbox', 'outbox'].map((folder) => join(env.dir, 'drop', folder)) as [string, string];
    const backlog = 8;
    for (let f = 1; f <= backlog; f++) {
      writeFileSync(join(inbox, `KORR_backlog_${f}.csv`), korrFile(Array.from({ length: 6 }, (_, r) => ['SKU-00001', 1, `BACKLOG-${f}-${r + 1}`] as [string, number, string])));
    }
    // Last in name order: an instance claimed it and died (nobody renews its lease of one second).
    const bytes = Buffer.from(korrFile([['SKU-00001', 1, 'ORPHAN-1'], ['SKU-00002', 1, 'ORPHAN-2']]));
    writeFileSync(join(inbox, 'KORR_zz_orphan.csv'), bytes);
    const dead = await openJournal(db.config, { instance: { id: 'dead-2', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 1000 });
    cleanups.push(() => dead.close());
    const checksum = createHash('sha256').update(bytes).digest('hex');
    expect(await dead.claimFile({ drop: 'wms', name: 'KORR_zz_orphan.csv', checksum, size: bytes.length, mapping: 'inventory-adjustments' })).toMatchObject({ status: 'new' });

    // Each file of the backlog takes three requests of 150 ms at least.
    await setFaults(emu, { latency_ms: 150, path_prefix: '/v1/inventory/adjustments' });
    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await until(() => existsSync(join(outbox, 'KORR_zz_orphan.result.csv')), 'the orphan finished');
    const claims = eventsOf(records, 'file.claimed').map((r) => [r.file, r.claim]);
    const at = claims.findIndex(([file]) => file === 'KORR_zz_orphan.csv');
    expect(claims[at]).toEqual(['KORR_zz_orphan.csv', 'resume']);
    expect(eventsOf(records, 'file.claimed')[at]).toMatchObject({ from: 'dead-2', leaseToken: 2 });
    expect(at).toBeLessThanOrEqual(backlog / 2);
    expect(records.find((r) => r.msg === 'a file nobody works on any more: queued before the files waiting'))
      .toMatchObject({ file: 'KORR_zz_orphan.csv', owner: 'dead-2' });
    const orphanId = records.find((r) => r.msg === 'processing file' && r.file === 'KORR_zz_orphan.csv')!.fileId as number;
    expect(bridge.offers.takeOverOffers.get(orphanId)).toBe(1);
    expect([...(await appliedReferences(emu, 'ORPHAN-')).values()]).toEqual([1, 1]);
  });

  it('a file taken over runs in its job\'s file queue: of an ordered mapping, after the earlier name waiting beside it, never before or beside it', async () => {
    const db = await database();
    // inventory-adjustments made `ordered: true`: its files one at a time, in name order.
    const mappings = mkdtempSync(join(tmpdir(), 'wisbridge-ordered-'));
    cleanups.push(() => rmSync(mappings, { recursive: true, force: true }));
    const mapping = join(mappings, 'inventory-adjustments.yaml');
    copyFileSync(join(root, 'mappings', 'inventory-adjustments.yaml'), mapping);
    writeFileSync(mapping, readFileSync(mapping, 'utf8').replace(/^document: /m, 'ordered: true\ndocument: '));
    const yaml = sharedConfig(JSON.stringify(db.config), '', '    files_in_flight: 2\n').replace(JSON.stringify(join(root, 'mappings')), JSON.stringify(mappings));
    const env = await tempConfig(yaml);
    cleanups.push(env.cleanup);
    const inbox = join(env.dir, 'drop', 'inbox');
    writeFileSync(join(inbox, 'KORR_ord_1.csv'), korrFile([['SKU-00001', 1, 'ORD-1-1'], ['SKU-00002', 1, 'ORD-1-2']]));
    // The later name: an instance claimed it and died (nobody renews its lease of one second).
    const bytes = Buffer.from(korrFile([['SKU-00001', 1, 'ORD-2-1'], ['SKU-00002', 1, 'ORD-2-2']]));
    writeFileSync(join(inbox, 'KORR_ord_2.csv'), bytes);
    const dead = await openJournal(db.config, { instance: { id: 'dead-3', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 1000 });
    cleanups.push(() => dead.close());
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const orphan = await dead.claimFile({ drop: 'wms', name: 'KORR_ord_2.csv', checksum, size: bytes.length, mapping: 'inventory-adjustments' });
    expect(orphan).toMatchObject({ status: 'new' });
    await until(async () => (await dead.filesToTakeOver('wms')).length === 1, 'the dead instance\'s lease ran out');

    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await until(() => records.filter((r) => r.msg === 'file processed').length === 2, 'both files processed');
    const events = records.filter((r) => r.msg === 'processing file' || r.msg === 'file processed')
      .map((r) => `${r.msg === 'processing file' ? `start (${String(r.claim)})` : 'end'} ${String(r.file)}`);
    expect(events).toEqual(['start (new) KORR_ord_1.csv', 'end KORR_ord_1.csv', 'start (resume) KORR_ord_2.csv', 'end KORR_ord_2.csv']);
    // It was put into the queue as nobody's (before KORR_ord_1 started), and still waited for it.
    expect(bridge.offers.takeOverOffers.get(orphan.fileId)).toBe(1);
    expect([...(await appliedReferences(emu, 'ORD-')).values()]).toEqual([1, 1, 1, 1]);
  });

  it('a file nobody works on that this job cannot take is put into the queue once a lease, and new files go on meanwhile (no livelock)', async () => {
    const db = await database();
    const env = await tempConfig(sharedConfig(JSON.stringify(db.config), '', '    files_in_flight: 1\n'));
    cleanups.push(env.cleanup);
    const [inbox, outbox] = ['inbox', 'outbox'].map((folder) => join(env.dir, 'drop', folder)) as [string, string];
    // Another job's file (the stock job reads only KORR_ files), claimed by an instance that died: this job's run
    // leaves it alone, so it stays a file nobody works on.
    const bytes = Buffer.from('NUMBER\r\nSO-1\r\n');
    writeFileSync(join(inbox, 'ACK_SO_orphan.csv'), bytes);
    const dead = await openJournal(db.config, { instance: { id: 'dead-4', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: 1000 });
    cleanups.push(() => dead.close());
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const orphan = await dead.claimFile({ drop: 'wms', name: 'ACK_SO_orphan.csv', checksum, size: bytes.length, mapping: 'customer-shipment-acknowledge' });
    await until(async () => (await dead.filesToTakeOver('wms')).length === 1, 'the dead instance\'s lease ran out');

    // The service's clock stands still: no lease passes for it until the test moves it.
    const clock = new ManualClock(Date.now());
    const { logger } = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, clock, watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    const news = 5;
    for (let f = 1; f <= news; f++) writeFileSync(join(inbox, `KORR_new_${f}.csv`), korrFile([['SKU-00001', 1, `NEW-${f}`]]));
    await until(() => Array.from({ length: news }, (_, f) => `KORR_new_${f + 1}.result.csv`).every((n) => existsSync(join(outbox, n))), 'every new file processed');
    // Put once, not before each of the five new files.
    expect(bridge.offers.takeOverOffers.get(orphan.fileId)).toBe(1);

    // A lease later it is put once more, and the next new file still goes through.
    await clock.advance(3000);
    writeFileSync(join(inbox, 'KORR_new_late.csv'), korrFile([['SKU-00001', 1, 'NEW-late']]));
    // Its result file is written before it leaves the inbox: wait for both.
    await until(() => existsSync(join(outbox, 'KORR_new_late.result.csv')) && !existsSync(join(inbox, 'KORR_new_late.csv')), 'the late file processed');
    expect(bridge.offers.takeOverOffers.get(orphan.fileId)).toBe(2);
    expect(readdirSync(inbox)).toEqual(['ACK_SO_orphan.csv']);
    expect((await dead.getFile(orphan.fileId)).status).toBe('processing');
  });
});

/** `wisbridge run` on a configuration file, as a child process: resolves `running` once it logs so, `exited` with its end. */
function startRun(configFile: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [join(root, 'bin/wisbridge.js'), 'run', '--config', configFile], {
    cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token, ...env },
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  return { child, pid: child.pid!, exited, running: () => until(() => log.includes('"event":"bridge.running"'), 'the child instance running') };
}

/** One statement on the test's database as its owner (what no journal call does: moving a lease back in time). */
async function ownerQuery(db: FreshDatabase, statement: string): Promise<void> {
  const server = inject('postgres');
  const client = new pg.Client({ host: server.host, port: server.port, user: server.owner.user, password: server.owner.password, database: db.name });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
