// 1,000,000 adjustments through the whole inbound pipeline (drop → mapping → journal → client → result file →
// archive) against the emulator on loopback, the emulator in its own process so its memory is not counted; in the
// same invocation the yardstick bench/inbound-baseline.ts (csv-parse → batches → POST, no guarantees) applies the
// same file against an emulator of its own, twice: in batches of 100 and in the bridge's batches. Prints, for each:
// elapsed time, rows/s, CPU per row and per emulator item, peak RSS; for the bridge also the time its journal commits
// (fsync, synchronous=FULL) kept it waiting.
// `--journal postgres` runs the bridge on a PostgreSQL journal instead (a server of its own, started here with
// test/support/postgres.ts: fsync and synchronous_commit on, a fresh database), `--journal both` runs it on each
// (SQLite first) and prints both and their ratio, with the server's CPU and the time the bridge waited for COMMIT.
// npx tsx bench/inbound.ts [rows] [batch] [--journal sqlite|postgres|both]     BENCH_BASELINE=0 skips the baseline.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { NODE_OPTIONS } from '../src/runtime/node-options.js';
// @ts-expect-error plain JavaScript module without types
import { runsBuild } from '../bin/build-state.js';
// @ts-expect-error plain JavaScript module (bench/export-pass.mjs uses it without a TypeScript loader)
import { procCpu } from './measure.mjs';
import { freshDatabase, startPostgres, type PostgresServer } from '../test/support/postgres.js';

type Engine = 'sqlite' | 'postgres';
const journalFlag = process.argv.indexOf('--journal');
const journalArg = journalFlag < 0 ? 'sqlite' : process.argv[journalFlag + 1];
if (journalArg !== 'sqlite' && journalArg !== 'postgres' && journalArg !== 'both') throw new Error(`--journal takes sqlite, postgres or both, not ${journalArg}`);
const ENGINES: Engine[] = journalArg === 'both' ? ['sqlite', 'postgres'] : [journalArg];
const positional = process.argv.slice(2).filter((_, i, all) => all[i] !== '--journal' && all[i - 1] !== '--journal');
const ROWS = Number(positional[0] ?? 1_000_000);
const BATCH = Number(positional[1] ?? 1000);
// BENCH_IN_FLIGHT: services.<name>.requests_in_flight of the bridge (default 2, the bridge's), and the yardstick's window.
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 2);
// Two yardsticks, each with the bridge's window: `baseline100`, the script as the goal words it (csv-parse → batches
// of 100 → POST), and `baseline`, the same script with the bridge's batch size (stricter: a tenth of the requests).
// BENCH_BASELINE=0 skips both, BENCH_BASELINE100=0 the first.
const YARDSTICKS = [
  ...(process.env.BENCH_BASELINE100 === '0' ? [] : [{ label: 'baseline100', batch: 100 }]),
  { label: 'baseline', batch: BATCH },
];
const root = new URL('..', import.meta.url).pathname;
const loadAtStart = loadavg();

const emulatorProfile = process.env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${join(process.env.BENCH_PROFILE, 'emulator')}`] : [];
/** A fresh emulator in its own process (the baseline and the bridge each get one: the same empty state). */
async function startEmulator(): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(process.execPath, [...emulatorProfile, join(root, 'bin/wisbridge.js'), 'emulator', '--port', '0', '--today', '2026-11-22'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (d) => {
      text += d;
      const m = /listening on (http:\/\/\S+)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
  const token = ((await (await fetch(`${url}/_admin/tokens`, { method: 'POST', body: JSON.stringify({ warehouses: [1], expires_in: 7200 }), headers: { 'content-type': 'application/json' } })).json()) as { token: string }).token;
  return { child, url, token };
}

/** CPU seconds of a process so far; undefined once it has exited. */
const cpuSeconds = (pid: number | undefined): number | undefined => {
  const seconds = procCpu(`/proc/${pid}/stat`) as number;
  return Number.isNaN(seconds) ? undefined : seconds;
};

interface Run { code: number; stdout: string; elapsed: number; cpu: number; mainCpu: number; emulatorCpu: number; peak: number; pid?: number; threads: Map<string, number> }

/** The last CPU figure of every thread of a process (threads that ended keep their last sample). */
function sampleThreads(pid: number | undefined, threads: Run['threads']): void {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const cpu = procCpu(`/proc/${pid}/task/${tid}/stat`) as number;
      if (!Number.isNaN(cpu)) threads.set(tid, cpu);
    }
  } catch {
    // the process has exited
  }
}

/** CPU seconds of the busiest threads other than the main one (Node names them all `node`: worker threads, V8's helpers, libuv's pool). */
function busiestThreads(threads: Run['threads'], mainTid: number | undefined): string {
  return [...threads].filter(([tid, cpu]) => Number(tid) !== mainTid && cpu >= 0.05).map(([, cpu]) => cpu).sort((a, b) => b - a).slice(0, 4).map((s) => `${s.toFixed(1)} s`).join(', ');
}

async function measure(args: string[], emulator: ChildProcess, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  const emulatorBefore = cpuSeconds(emulator.pid) ?? 0;
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  const run: Run = { code: 0, stdout: '', elapsed: 0, cpu: 0, mainCpu: 0, emulatorCpu: 0, peak: 0, threads: new Map() };
  run.pid = child.pid;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      run.peak = Math.max(run.peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
    } catch {
      // the process has exited
    }
    sampleThreads(child.pid, run.threads);
    run.cpu = cpuSeconds(child.pid) ?? run.cpu;
    run.mainCpu = procCpu(`/proc/${child.pid}/task/${child.pid}/stat`) || run.mainCpu;
    run.emulatorCpu = (cpuSeconds(emulator.pid) ?? emulatorBefore + run.emulatorCpu) - emulatorBefore;
  };
  const sampler = setInterval(sample, 100);
  [run.code] = (await once(child, 'exit')) as [number];
  run.elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  sample(); // the emulator's last figure
  emulator.kill('SIGTERM');
  await once(emulator, 'exit');
  run.stdout = stdout;
  return run;
}

const dir = mkdtempSync(join(tmpdir(), 'wb-bench-inbound-'));

// Plain goods of the small seed (not lot- nor serial-tracked), positive quantities: every row applies.
const skus = Array.from({ length: 200 }, (_, i) => i + 1).filter((n) => n % 10 !== 3 && n % 25 !== 7).map((n) => `SKU-${String(n).padStart(5, '0')}`);
// Written once; each bridge run gets a copy in a drop of its own (the bridge archives it).
const file = join(dir, 'ADJ_BENCH.csv');
const out = createWriteStream(file);
out.write('SKU,QTY,REASON,REF,COMPANY\n');
let chunk = '';
for (let i = 0; i < ROWS; i++) {
  chunk += `${skus[i % skus.length]},${1 + (i % 5)},bench,B-${i},ACME\n`;
  if (chunk.length > 1 << 16) {
    if (!out.write(chunk)) await once(out, 'drain');
    chunk = '';
  }
}
out.end(chunk);
await once(out, 'finish');
const size = statSync(file).size;

// The yardsticks first, each against an emulator of its own.
const baselines: Array<{ label: string; batch: number; run: Run }> = [];
if (process.env.BENCH_BASELINE !== '0') {
  for (const { label, batch } of YARDSTICKS) {
    const emulator = await startEmulator();
    writeFileSync(join(dir, 'baseline-token'), emulator.token);
    const run = await measure(['--import', 'tsx', join(root, 'bench/inbound-baseline.ts'), emulator.url, join(dir, 'baseline-token'), file, String(batch), String(IN_FLIGHT)], emulator.child);
    baselines.push({ label, batch, run });
  }
}

// The bridge runs as `wisbridge batch` in its own process with the Node options of production (NODE_OPTIONS in
// src/runtime/node-options.ts: heap caps). BENCH_HEAP_MB / BENCH_SEMI_MB override them ('0': V8's default).
const flag = (name: string, env: string | undefined) => {
  const given = env ?? NODE_OPTIONS.find((o) => o.startsWith(`--${name}=`))!.split('=')[1];
  return given === '0' ? [] : [`--${name}=${given}`];
};
const heapFlags = [...flag('max-old-space-size', process.env.BENCH_HEAP_MB), ...flag('max-semi-space-size', process.env.BENCH_SEMI_MB)];
// What bin/wisbridge.js runs, decided when the bridge starts.
const bridgeCode = process.env.BENCH_BIN ?? ((runsBuild() as boolean) ? 'dist/ (compiled by npm run build)' : 'src/ through tsx (dist/ missing or older than src/: npm run build)');
const bridgeFlags = process.env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
// BENCH_NODE_FLAGS: more flags for the bridge, e.g. --trace-gc (the bridge's stdout then goes to
// $TMPDIR/wb-bench-inbound-bridge.out). BENCH_BIN: another entry than bin/wisbridge.js.
bridgeFlags.push(...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean));
// commit-probe.mjs times the journal's commits in every thread of the bridge (BENCH_COMMIT_DIR; BENCH_JOURNAL says
// which engine's); alloc-probe.mjs samples the main thread's allocations (BENCH_ALLOC=FILE).
const probe = ['--import', new URL('./commit-probe.mjs', import.meta.url).href];
if (process.env.BENCH_ALLOC) probe.push('--import', new URL('./alloc-probe.mjs', import.meta.url).href);

/** Fields 14–17 of a /proc stat file (utime, stime and the same of the children it has waited for), in seconds. */
function statTimes(pid: number | string): { own: number; reaped: number; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ').map(Number);
    return { own: (f[11] + f[12]) / 100, reaped: (f[13] + f[14]) / 100, ppid: f[1] };
  } catch {
    return undefined; // gone
  }
}

/**
 * CPU seconds of a PostgreSQL server so far: the postmaster's own, its children's that ended (a backend's CPU is
 * added to the postmaster's when it reaps it) and those still running (WAL writer, checkpointer, open backends).
 */
function serverCpu(postmaster: number): { cpu: number; children: number } {
  const main = statTimes(postmaster);
  let cpu = main ? main.own + main.reaped : 0;
  let children = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const t = statTimes(pid);
    if (t?.ppid === postmaster) {
      cpu += t.own + t.reaped;
      children++;
    }
  }
  return { cpu, children };
}

interface Totals { commits: number; ms: number }
interface BridgeRun { engine: Engine; run: Run; load: number[]; commits: Totals; onMain: Totals; server?: { version: number; cpu: number } }

/** `wisbridge batch` on the file, in a drop and against an emulator of its own, on a fresh journal of the engine. */
async function runBridge(engine: Engine): Promise<BridgeRun> {
  const work = join(dir, engine);
  for (const f of ['inbox', 'outbox', 'archive', 'error', 'mappings', 'commits']) mkdirSync(join(work, f), { recursive: true });
  copyFileSync(file, join(work, 'inbox', 'ADJ_BENCH.csv'));
  let server: PostgresServer | undefined;
  let journal = 'journal: journal.sqlite';
  if (engine === 'postgres') {
    server = await startPostgres();
    const db = await freshDatabase(server); // sets the password's variable in this process: the bridge inherits it
    journal = `journal:\n  url: ${db.url}\n  password: { env: ${db.password.env} }`;
  }
  try {
    const emulator = await startEmulator();
    writeFileSync(join(work, 'token'), emulator.token);
    writeFileSync(join(work, 'mappings', 'adjustments.yaml'), [
      'document: inventory.adjustments', 'files: "ADJ_*.csv"',
      'request:', '  fields:', '    product_code: SKU', '    quantity: { column: QTY, type: number }', '    reason: REASON', '    reference: REF', '    company_code: COMPANY', '',
    ].join('\n'));
    writeFileSync(join(work, 'wisbridge.yaml'), [
      journal, 'mappings: mappings',
      `services:\n  wis:\n    url: ${emulator.url}\n    token: { file: token }\n    batch_size: ${BATCH}\n    requests_in_flight: ${IN_FLIGHT}\n    request_timeout_ms: 60000`,
      `drops:\n  wms:\n    type: local\n    root: ${work}\n    settle_ms: 0\n    watch_events: false`,
      'inbound:\n  - { name: bench, drop: wms, service: wis }', 'log: { level: warn }', '',
    ].join('\n'));
    const postmaster = server && Number(readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const before = postmaster ? serverCpu(postmaster) : undefined;
    const load = loadavg();
    const run = await measure([...bridgeFlags, ...heapFlags, ...probe, process.env.BENCH_BIN ?? join(root, 'bin/wisbridge.js'), 'batch', '--config', join(work, 'wisbridge.yaml')],
      emulator.child, { ...process.env, BENCH_COMMIT_DIR: join(work, 'commits'), BENCH_JOURNAL: engine });
    let serverUsed: BridgeRun['server'];
    if (postmaster && before && server) {
      // The bridge's backends end when it does; their CPU counts once the postmaster has reaped them.
      for (let waited = 0; serverCpu(postmaster).children > before.children && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      serverUsed = { version: server.version, cpu: serverCpu(postmaster).cpu - before.cpu };
    }
    const probed = readdirSync(join(work, 'commits')).map((f) => JSON.parse(readFileSync(join(work, 'commits', f), 'utf8')) as { thread: number } & Totals);
    const sum = (list: typeof probed) => list.reduce((a, t) => ({ commits: a.commits + t.commits, ms: a.ms + t.ms }), { commits: 0, ms: 0 });
    return { engine, run, load, commits: sum(probed), onMain: sum(probed.filter((t) => t.thread === 0)), server: serverUsed };
  } finally {
    await server?.stop();
  }
}

const bridges: BridgeRun[] = [];
for (const engine of ENGINES) bridges.push(await runBridge(engine));

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const us = (seconds: number) => `${((seconds / ROWS) * 1e6).toFixed(1)} µs`;
const loads = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');
const figures = (label: string, run: Run) => [
  `${label} elapsed ${run.elapsed.toFixed(2)} s end to end, ${Math.round(ROWS / run.elapsed).toLocaleString('en')} rows/s`,
  `${label} CPU     ${run.cpu.toFixed(1)} s = ${us(run.cpu)} a row (main thread ${run.mainCpu.toFixed(1)} s, other threads ${(run.cpu - run.mainCpu).toFixed(1)} s; busiest: ${busiestThreads(run.threads, run.pid)}); emulator ${run.emulatorCpu.toFixed(1)} s = ${us(run.emulatorCpu)} an item (sampled every 100 ms)`,
  `${label} peak RSS ${mb(run.peak)} (VmHWM, all threads; emulator separate)`,
].join('\n');
/** `bridge` is the bridge on SQLite (the name bench/inbound-runs.ts reads), `postgres` on PostgreSQL. */
const nameOf = (engine: Engine) => (engine === 'sqlite' ? 'bridge' : 'postgres');
console.log(`file            ${ROWS.toLocaleString('en')} rows, ${(size / 1e6).toFixed(1)} MB, batch size ${BATCH}, requests in flight ${IN_FLIGHT}, bridge node options ${heapFlags.join(' ') || 'none'}`);
console.log(`bridge code     ${bridgeCode}`);
for (const { engine, run, load, commits, onMain, server } of bridges) {
  const name = nameOf(engine).padEnd(11);
  if (process.env.BENCH_NODE_FLAGS) {
    const output = join(tmpdir(), `wb-bench-inbound-${nameOf(engine)}.out`);
    writeFileSync(output, run.stdout);
    console.log(`${name} output in ${output}`);
  }
  const row = run.stdout.split('\n').find((l) => l.startsWith('bench '))?.split(/\s{2,}/) ?? [];
  const [, , outcome, ok, error, , uncertain, requests] = row;
  const journal = server
    ? `PostgreSQL ${server.version} on loopback, a server of its own (fsync on, synchronous_commit=on)`
    : 'SQLite (WAL, synchronous=FULL)';
  console.log(`${name} journal ${journal}; machine load ${loads(load)} at its start`);
  console.log(`${name} outcome exit ${run.code}, ${outcome}  ok ${ok}  error ${error}  uncertain ${uncertain}; requests sent ${requests}`);
  console.log(figures(name, run));
  if (server) console.log(`${name} server CPU ${server.cpu.toFixed(1)} s = ${us(server.cpu)} a row (postmaster and its processes: backends, WAL writer, checkpointer); bridge + server ${(run.cpu + server.cpu).toFixed(1)} s`);
  const what = server ? 'COMMIT statements (round trip + WAL flush, synchronous_commit=on' : 'journal commits (WAL write + fsync, synchronous=FULL';
  console.log(`${name} commit wait ${(commits.ms / 1000).toFixed(2)} s in ${commits.commits} ${what}; ${(commits.ms / Math.max(1, commits.commits)).toFixed(2)} ms each), of which ${(onMain.ms / 1000).toFixed(2)} s in ${onMain.commits} on the main thread`);
}
if (process.env.BENCH_ALLOC) console.log(allocationSummary(process.env.BENCH_ALLOC));
for (const { label, batch, run } of baselines) {
  const name = label.padEnd(11);
  console.log(`${name}     exit ${run.code}, ${run.stdout.trim()} (bench/inbound-baseline.ts: csv-parse → batches of ${batch} → POST, ${IN_FLIGHT} in flight, no journal)`);
  console.log(figures(name, run));
}
for (const { engine, run: bridge } of bridges) {
  for (const { label, batch, run } of baselines) {
    const goal = batch === 100 ? 'goal ≤ 1.5×, the yardstick as the goal words it' : 'the same batches as the bridge: stricter';
    console.log(`ratio           ${nameOf(engine)} / ${label} elapsed ${(bridge.elapsed / run.elapsed).toFixed(2)}× (${goal}), CPU ${(bridge.cpu / run.cpu).toFixed(2)}×`);
  }
}
const [sqlite, postgres] = [bridges.find((b) => b.engine === 'sqlite'), bridges.find((b) => b.engine === 'postgres')];
if (sqlite && postgres) {
  console.log(`ratio           postgres / sqlite elapsed ${(postgres.run.elapsed / sqlite.run.elapsed).toFixed(2)}× (goal: ≤ 1.5×, docs/performance.md), `
    + `CPU of the bridge ${(postgres.run.cpu / sqlite.run.cpu).toFixed(2)}×, bridge + server ${((postgres.run.cpu + postgres.server!.cpu) / sqlite.run.cpu).toFixed(2)}×, `
    + `commit wait ${(postgres.commits.ms / Math.max(1, sqlite.commits.ms)).toFixed(2)}×`);
}
console.log(`machine load    ${loads(loadAtStart)} at start, ${loads(loadavg())} at end (1/5/15 min) on ${cpus().length} cores`);
rmSync(dir, { recursive: true, force: true });
// A bridge that failed measured nothing: say so in the exit code (bench/inbound-runs.ts stops on it).
if (bridges.some((b) => b.run.code !== 0)) process.exitCode = 1;

interface HeapNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: HeapNode[] }

/** The sampled allocations of the bridge's main thread: the total, and the functions that allocated most. */
function allocationSummary(file: string): string {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(walk);
  };
  walk((JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }).head);
  const top = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([site, bytes]) => `${mb(bytes)} ${site}`);
  return `bridge      allocated ${mb(total)} on the main thread (sampled; ${file}); most by: ${top.join(', ')}`;
}
