import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { stringify } from 'yaml';
import { freshDatabase, type PostgresServer } from '../support/postgres.js';
import { throughProxy } from '../support/delay-proxy.js';
import { skewedClockEnv } from '../support/faketime.js';
import type { SftpServer } from '../support/sftp-server.js';
import { tcpProxy } from '../support/tcp-proxy.js';
import { checkRun, type ChaosEvent, type Evidence, type Verdict } from './checks.js';
import { dropOrder, generateFiles, runTag, seededRandom, type GeneratedFile, type Plan, type Random } from './generate.js';
import { BridgeProcess, ROOT, sleep, startEmulatorProcess, stopAll } from './processes.js';
import { oneShotProblems, runOneShots, type OneShotRun } from './one-shots.js';

export interface ChaosOptions {
  name: string;
  seed: number;
  /** `wisbridge run` processes at once, each with a configuration file of its own. */
  instances: number;
  /** The configuration's `instance:` section (leases, heartbeats); without it the bridge's defaults. */
  lease?: { lease_ms: number; heartbeat_ms: number };
  plan: Plan;
  server: PostgresServer;
  /** The drop all instances share: a local folder, or a folder of a real OpenSSH SFTP server. */
  sftp?: SftpServer;
  /** Files are dropped one after another over this long. */
  dropOverMs: number;
  /** kill -9 a random instance every [min, max] ms (from the first drop until the work is done); restart it [min, max] ms later. */
  kills: { everyMs: [number, number]; restartAfterMs: [number, number]; max: number };
  /**
   * SIGSTOP one instance (one working on a file) this long after the first drop, for three leases and 2 s (long enough
   * for another instance to come across its file and take it over), then SIGCONT.
   */
  pauseAtMs?: number;
  /** Restart PostgreSQL this long after the first drop. */
  pgRestartAtMs?: number;
  /**
   * The service down (every /v1 request answered 503) `atMs` after the first drop, for `forMs`; requests retry
   * meanwhile. With `pauseOne`, an instance working on a file is stopped (SIGSTOP) a second into the outage, in its
   * retries' sleep, and resumed (SIGCONT) three leases and 2 s later, after the service is back and another
   * instance took its files over: what it still held in hand must not reach the service beside the taker's sends.
   */
  outage?: { atMs: number; forMs: number; pauseOne?: boolean };
  /**
   * The instance of this slot reaches the journal through a proxy that is cut `atMs` after the first drop, for
   * `forMs` (its heartbeats and writes fail while its requests retry), then restored.
   */
  journalCut?: { slot: number; atMs: number; forMs: number };
  /** The instance of this slot runs with its wall clock `offset` off (libfaketime's syntax: `+10m`). */
  clockSkew?: { slot: number; offset: string };
  /** The service's `max_attempts` of a request (default 4): an outage scenario retries long enough to outlast it. */
  maxAttempts?: number;
  /** Run `wisbridge batch` and `wisbridge retry` beside the instances this long after the first drop (one-shots.ts). */
  oneShotsAtMs?: number;
  /** The export job runs every this many seconds (a 6-field cron). */
  exportEverySeconds: number;
  /**
   * Each export waits this long once its list is recorded and again once it is staged (failpoints `delay`, the process
   * going on meanwhile): its runs outlast the schedule's interval, so that the next tick runs on another instance beside it.
   */
  slowExportMs?: number;
  /** Bound of everything from the first drop to the last file out of the inbox. */
  deadlineMs: number;
  scale: 'small' | 'medium';
}

export interface ChaosReport extends Verdict {
  /** The folder with the configurations, logs and drop (kept when the run failed, or with WISBRIDGE_CHAOS_KEEP=1). */
  dir: string;
  events: ChaosEvent[];
  text: string;
}

const TOKEN_ENV = 'WISBRIDGE_CHAOS_TOKEN';
const EXPORT_JOB = 'so-work';
const EXPORT_PREFIX = 'SO_WORK_';

/**
 * One chaos run: an emulator, a fresh PostgreSQL database, `instances` bridges on one drop; files dropped while
 * instances are killed, paused and PostgreSQL restarted (seeded, logged); then everything stopped and checked.
 */
export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const dir = mkdtempSync(join(tmpdir(), `wisbridge-chaos-${o.name}-`));
  const events: ChaosEvent[] = [];
  const t0 = Date.now();
  const event = (e: Omit<ChaosEvent, 'at'>) => events.push({ at: Date.now(), ...e });
  const random = seededRandom(o.seed);
  const processes: BridgeProcess[] = [];
  const db = await freshDatabase(o.server);
  const journalClient = () => new pg.Client({ host: o.server.host, port: o.server.port, user: o.server.owner.user, password: o.server.owner.password, database: db.name });
  let emulator: Awaited<ReturnType<typeof startEmulatorProcess>> | undefined;
  let failed = true;
  const cleanups: Array<() => Promise<void>> = [];
  try {
    emulator = await startEmulatorProcess({ scale: o.scale, seed: 1, logFile: join(dir, 'emulator.log') });
    // ---- the drop ----
    const dropRoot = o.sftp ? join(o.sftp.root, `chaos-${process.pid}-${o.seed}`) : join(dir, 'drop');
    const folders = { inbox: join(dropRoot, 'inbox'), outbox: join(dropRoot, 'outbox'), archive: join(dropRoot, 'archive'), error: join(dropRoot, 'error') };
    const owned = (path: string) => {
      if (o.sftp && process.getuid?.() === 0) chownSync(path, o.sftp.uid, o.sftp.gid);
    };
    mkdirSync(dropRoot, { recursive: true });
    owned(dropRoot);
    for (const folder of Object.values(folders)) {
      mkdirSync(folder, { recursive: true });
      owned(folder);
    }

    // ---- the service: every pending shipment acknowledged first, so the export job's work is the shipments the
    // ship files leave behind (defer_unshipped) while the run goes on ----
    const state = await admin(emulator.url, 'GET', 'state?only=products,customer_shipments,supplier_shipments');
    const pending = (state.customer_shipments as any[]).filter((s) => s.warehouse_id === 1 && s.list_status === 'pending').map((s) => ({ id: s.id as number }));
    for (let i = 0; i < pending.length; i += 500) {
      const res = await fetch(`${emulator.url}/v1/customer-shipments/acknowledge.json`, {
        method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${emulator.token}` }, body: JSON.stringify({ shipments: pending.slice(i, i + 500) }),
      });
      if (res.status >= 300) throw new Error(`acknowledging the seed's shipments: ${res.status} ${await res.text()}`);
    }
    const files = generateFiles(o.seed, o.plan, state);
    const order = dropOrder(files, random);

    // ---- the bridges ----
    const slow = o.slowExportMs === undefined ? {} : { WISBRIDGE_FAILPOINTS: `export.after-record=delay(${o.slowExportMs});export.after-stage=delay(${o.slowExportMs})` };
    const env = { ...process.env, [TOKEN_ENV]: emulator.token, WISBRIDGE_LOG_LEVEL: 'info', ...slow };
    const skewedEnv = o.clockSkew ? { ...env, ...(await skewedClockEnv(o.clockSkew.offset)) } : env;
    const journalProxy = o.journalCut ? await tcpProxy(o.server.port) : undefined;
    if (journalProxy) cleanups.push(() => journalProxy.close());
    const configFiles: string[] = [];
    for (let slot = 1; slot <= o.instances; slot++) {
      const home = join(dir, `i${slot}`);
      mkdirSync(home);
      const drop = o.sftp
        ? {
          type: 'sftp', host: o.sftp.host, port: o.sftp.port, username: o.sftp.username, private_key_path: writeKey(home, o.sftp.privateKey),
          host_key_fingerprint: o.sftp.hostKeyFingerprint, root: dropRoot, settle_ms: 300, poll_interval_ms: 500, idle_close_ms: 0,
        }
        : { type: 'local', root: dropRoot, settle_ms: 300, poll_interval_ms: 500, fsync: false };
      const journal = journalProxy && o.journalCut?.slot === slot ? { ...db.config, url: throughProxy(db.url, o.server, journalProxy) } : db.config;
      const config = {
        journal,
        mappings: join(ROOT, 'mappings'),
        services: { wis: { url: emulator.url, token: { env: TOKEN_ENV }, batch_size: 100, requests_in_flight: 2, request_timeout_ms: 15_000, max_attempts: o.maxAttempts ?? 4 } },
        drops: { wms: drop },
        inbound: [{ name: 'wms-in', drop: 'wms', service: 'wis', watch: true }],
        exports: [{
          name: EXPORT_JOB, work_type: 'customerShipments', drop: 'wms', service: 'wis', mapping: 'customer-shipments-export',
          schedule: { cron: `*/${o.exportEverySeconds} * * * * *` }, empty_files: true, cancellations: false, file_name: `${EXPORT_PREFIX}{timestamp}_{seq}.csv`,
        }],
        log: { level: 'info' },
        shutdown_timeout_ms: 8000,
        ...(o.lease ? { instance: o.lease } : {}),
      };
      configFiles.push(join(home, 'wisbridge.yaml'));
      writeFileSync(configFiles.at(-1)!, stringify(config));
    }
    const generations = new Map<number, number>();
    const start = (slot: number) => {
      const generation = (generations.get(slot) ?? 0) + 1;
      generations.set(slot, generation);
      const p = new BridgeProcess(slot, generation, configFiles[slot - 1]!, join(dir, `i${slot}.${generation}.log`), o.clockSkew?.slot === slot ? skewedEnv : env);
      processes.push(p);
      event({ kind: 'start', label: p.label, pid: p.pid });
      return p;
    };
    const current = new Map<number, BridgeProcess>();
    for (let slot = 1; slot <= o.instances; slot++) current.set(slot, start(slot));
    for (const p of current.values()) {
      const ready = await p.waitForLog((r) => r.event === 'bridge.running', 90_000);
      if (!ready) throw new Error(`${p.label} ${p.running ? 'did not start within 90 s' : 'exited at start'}:\n${p.tail()}`);
    }
    const calmService = { latency_ms: 10, path_prefix: '/v1/' };
    await admin(emulator.url, 'PUT', 'faults', calmService);

    // ---- files into the inbox while the chaos goes on ----
    const chaosStart = Date.now();
    let dropped = 0;
    const dropping = (async () => {
      for (const file of order) {
        dropFile(folders.inbox, file, owned);
        dropped++;
        await sleep(o.dropOverMs / order.length);
      }
      event({ kind: 'drop', detail: `${order.length} files dropped` });
    })();

    let chaosOver = false;
    const paused = new Set<BridgeProcess>();
    const candidates = () => [...current.values()].filter((p) => p.running && !paused.has(p));
    // A victim among the instances working on a file, waiting up to `busyMs` for one; then any instance that is up.
    const drawVictim = async (busyMs: number): Promise<BridgeProcess | undefined> => {
      for (let waited = 0; waited < busyMs + 5000 && !chaosOver; waited += 200) {
        const victim = pickVictim(candidates(), random, waited < busyMs);
        if (victim) return victim;
        await sleep(200);
      }
      return undefined;
    };
    const killing = (async () => {
      for (let kills = 0; kills < o.kills.max;) {
        await sleep(random.int(...o.kills.everyMs));
        const victim = await drawVictim(5000);
        if (chaosOver) return;
        if (!victim) continue;
        victim.signal('SIGKILL');
        kills++;
        event({ kind: 'kill', label: victim.label, pid: victim.pid, detail: inProgress(victim) });
        await victim.exited;
        await sleep(random.int(...o.kills.restartAfterMs));
        current.set(victim.slot, start(victim.slot));
      }
    })();
    const pausing = (async () => {
      if (o.pauseAtMs === undefined) return;
      await sleep(o.pauseAtMs);
      const victim = await drawVictim(10_000);
      if (!victim || chaosOver) return;
      paused.add(victim);
      victim.signal('SIGSTOP');
      event({ kind: 'sigstop', label: victim.label, pid: victim.pid, detail: inProgress(victim) });
      await sleep(3 * (o.lease?.lease_ms ?? 30_000) + 2000);
      victim.signal('SIGCONT');
      event({ kind: 'sigcont', label: victim.label, pid: victim.pid });
      paused.delete(victim);
    })();
    const serviceOutage = (async () => {
      if (o.outage === undefined) return;
      const outage = o.outage;
      await sleep(outage.atMs);
      if (chaosOver) return;
      await admin(emulator!.url, 'PUT', 'faults', { ...calmService, error_rate: 1, error_status: 503 });
      event({ kind: 'outage', detail: `the service answers 503 for ${outage.forMs} ms` });
      const pause = (async () => {
        if (!outage.pauseOne) return;
        await sleep(1000);
        const victim = pickVictim(candidates(), random, true);
        if (!victim || chaosOver) return;
        paused.add(victim);
        victim.signal('SIGSTOP');
        event({ kind: 'sigstop', label: victim.label, pid: victim.pid, detail: `in the outage, ${inProgress(victim)}` });
        await sleep(3 * (o.lease?.lease_ms ?? 30_000) + 2000);
        victim.signal('SIGCONT');
        event({ kind: 'sigcont', label: victim.label, pid: victim.pid });
        paused.delete(victim);
      })();
      await sleep(outage.forMs);
      await admin(emulator!.url, 'PUT', 'faults', calmService);
      event({ kind: 'service-back' });
      await pause;
    })();
    const cuttingJournal = (async () => {
      if (o.journalCut === undefined || journalProxy === undefined) return;
      await sleep(o.journalCut.atMs);
      if (chaosOver) return;
      journalProxy.cut();
      event({ kind: 'journal-cut', label: current.get(o.journalCut.slot)?.label, detail: `for ${o.journalCut.forMs} ms` });
      await sleep(o.journalCut.forMs);
      journalProxy.restore();
      event({ kind: 'journal-back', label: current.get(o.journalCut.slot)?.label });
    })();
    const restartingPg = (async () => {
      if (o.pgRestartAtMs === undefined) return;
      await sleep(o.pgRestartAtMs);
      if (chaosOver) return;
      event({ kind: 'pg-restart' });
      await o.server.restart();
      event({ kind: 'pg-back' });
    })();

    const oneShots = (async (): Promise<OneShotRun[]> => {
      if (o.oneShotsAtMs === undefined) return [];
      await sleep(o.oneShotsAtMs);
      if (chaosOver) return [];
      const runs = await runOneShots(configFiles[0]!, 'wms-in', env, journalClient, join(dir, 'one-shots.log'));
      event({ kind: 'one-shot', detail: runs.map((r) => `${r.command} ${r.signal ?? `exit ${r.code}`}`).join(', ') });
      return runs;
    })();

    // ---- until every file has left the inbox and the journal has nothing in progress, or the deadline ----
    const deadline = chaosStart + o.deadlineMs;
    const drained = async () => dropped === order.length && inboxEmpty(folders.inbox) && (await processingFiles(journalClient)) === 0;
    while (Date.now() < deadline && !(await drained())) await sleep(500);
    chaosOver = true;
    event({ kind: 'chaos-end', detail: `${Math.round((Date.now() - chaosStart) / 1000)} s after the first drop` });
    const [oneShotRuns] = await Promise.all([oneShots, dropping, pausing, restartingPg, serviceOutage, cuttingJournal]);
    await killing;
    // Every slot running again, none paused; then the rest of the work, within what is left of the deadline (at
    // least 30 s after the chaos, so that a takeover and a last export tick have time).
    for (const [slot, p] of current) if (!p.running) current.set(slot, start(slot));
    const calm = Math.max(deadline, Date.now() + 30_000);
    while (Date.now() < calm && !(await drained())) await sleep(500);
    // One export tick after the last ship file, so that every deferred shipment is on a work list.
    await sleep(o.exportEverySeconds * 1000 + 1500);
    event({ kind: 'drained', detail: (await drained()) ? 'all files out of the inbox' : 'deadline reached with work left' });
    const stops = await stopAll(processes, 15_000);
    event({ kind: 'stop', detail: stops.map((s) => `${s.label} ${s.forced ? 'SIGKILL after 15 s' : `exit ${s.exit.code ?? s.exit.signal}`}`).join(', ') });

    // ---- the evidence ----
    const final = await admin(emulator.url, 'GET', 'state?only=adjustments,counts,customer_shipments,supplier_shipments');
    const client = journalClient();
    await client.connect();
    let journal: Evidence['journal'];
    try {
      const rows = async (sql: string) => (await client.query(sql)).rows;
      const has = async (table: string) => (await client.query('SELECT to_regclass($1) AS t', [table])).rows[0].t !== null;
      journal = {
        files: await rows('SELECT * FROM files ORDER BY id'),
        exports: await rows('SELECT * FROM exports ORDER BY id'),
        exportRecords: await rows('SELECT export_id, record_id, ack_status FROM export_records'),
        fileEvents: await rows('SELECT * FROM file_events ORDER BY id'),
        openRequests: await rows(`SELECT r.id, r.status, f.name FROM requests r JOIN files f ON f.id = r.file_id WHERE r.status IN ('pending', 'sent')`),
        instances: (await has('instances')) ? await rows('SELECT * FROM instances') : undefined,
        jobTicks: (await has('job_ticks')) ? await rows('SELECT * FROM job_ticks ORDER BY tick') : undefined,
      };
    } finally {
      await client.end();
    }
    const list = (folder: string) => (existsSync(folder) ? readdirSync(folder).sort() : []);
    const evidence: Evidence = {
      tag: runTag(o.seed), files, exportPrefix: EXPORT_PREFIX, exportJob: EXPORT_JOB, processes, events, journal,
      folders: { inbox: list(folders.inbox), outbox: list(folders.outbox), archive: list(folders.archive), error: list(folders.error) },
      read: (folder, name) => readFileSync(join(folders[folder], name)),
      emulator: final,
    };
    const checked = checkRun(evidence);
    const verdict = { ...checked, problems: [...checked.problems, ...oneShotProblems(oneShotRuns)] };
    const count = (kind: ChaosEvent['kind']) => events.filter((e) => e.kind === kind).length;
    const figures = {
      files: `${files.length} (${countKinds(files)})`,
      'input rows': files.filter((f) => f.kind !== 'duplicate').reduce((n, f) => n + f.rows, 0),
      instances: `${o.instances} configured, ${processes.length} processes started`,
      kills: count('kill'),
      SIGSTOPs: count('sigstop'),
      'service outages': count('outage'),
      'journal cuts': count('journal-cut'),
      ...(o.clockSkew ? { 'clock skew': `i${o.clockSkew.slot} ${o.clockSkew.offset}` } : {}),
      'PostgreSQL restarts': count('pg-restart'),
      ...verdict.figures,
      elapsed: `${((Date.now() - t0) / 1000).toFixed(1)} s (chaos ${((events.find((e) => e.kind === 'chaos-end')!.at - chaosStart) / 1000).toFixed(1)} s)`,
    };
    const text = [
      `chaos ${o.name} (seed ${o.seed}, folder ${dir})`,
      ...Object.entries(figures).map(([k, v]) => `  ${k}: ${v}`),
      '  events:',
      ...events.map((e) => `    +${((e.at - chaosStart) / 1000).toFixed(1).padStart(6)} s ${e.kind}${e.label ? ` ${e.label}` : ''}${e.pid ? ` (pid ${e.pid})` : ''}${e.detail ? `: ${e.detail}` : ''}`),
      ...(verdict.problems.length > 0 ? ['  problems:', ...verdict.problems.map((p) => `    ${p}`)] : []),
    ].join('\n');
    failed = verdict.problems.length > 0;
    writeFileSync(join(dir, 'report.txt'), `${text}\n`);
    return { ...verdict, figures, dir, events, text };
  } finally {
    await stopAll(processes, 5000);
    for (const cleanup of cleanups) await cleanup();
    await emulator?.stop();
    await db.drop().catch(() => undefined);
    if (!failed && process.env.WISBRIDGE_CHAOS_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
  }
}

/** The files a process works on: claimed (`processing file`) and not finished, rejected or lost since. */
function filesInProgress(p: BridgeProcess): string[] {
  const open = new Set<string>();
  for (const r of p.logs) {
    if (r.msg === 'processing file') open.add(r.file);
    else if (typeof r.msg === 'string' && /^(file processed|file rejected|lease lost)/.test(r.msg)) open.delete(r.file);
    else if (r.msg === 'job run failed') open.clear(); // the watcher's run of its file ended
  }
  return [...open];
}

function inProgress(p: BridgeProcess): string {
  const files = filesInProgress(p);
  return `${p.instanceId ?? 'instance not registered yet'}; ${files.length === 0 ? 'no file in progress' : `working on ${files.join(', ')}`}`;
}

/**
 * A random instance, one that works on a file when there is one (a kill or a pause then has something to break);
 * with `busyOnly` none when none works on a file.
 */
function pickVictim(candidates: BridgeProcess[], random: Random, busyOnly = false): BridgeProcess | undefined {
  const busy = candidates.filter((p) => filesInProgress(p).length > 0);
  const pool = busy.length > 0 || busyOnly ? busy : candidates;
  return pool.length === 0 ? undefined : random.pick(pool);
}

/** Written under a dot-name first (never picked up), then renamed: the file appears whole. */
function dropFile(inbox: string, file: GeneratedFile, owned: (path: string) => void): void {
  const temporary = join(inbox, `.${file.name}.part`);
  writeFileSync(temporary, file.bytes);
  owned(temporary);
  renameSync(temporary, join(inbox, file.name));
}

function inboxEmpty(inbox: string): boolean {
  return readdirSync(inbox).every((name) => name.startsWith('.'));
}

/** Files the journal holds as processing; -1 while the journal cannot be reached (PostgreSQL restarting). */
async function processingFiles(client: () => pg.Client): Promise<number> {
  const c = client();
  try {
    await c.connect();
    return Number((await c.query(`SELECT count(*) AS n FROM files WHERE status = 'processing'`)).rows[0].n);
  } catch {
    return -1;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function admin(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}/_admin/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (res.status !== 200) throw new Error(`emulator admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

function writeKey(home: string, key: string): string {
  const path = join(home, 'client_key');
  writeFileSync(path, key, { mode: 0o600 });
  return path;
}

function countKinds(files: GeneratedFile[]): string {
  const counts = new Map<string, number>();
  for (const f of files) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
}

