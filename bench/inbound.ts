// 1,000,000 adjustments through the whole inbound pipeline (drop → mapping → journal → client → result file →
// archive) against the emulator on loopback, the emulator in its own process so its memory is not counted; in the
// same invocation the yardstick bench/inbound-baseline.ts (csv-parse → batches → POST, no guarantees) applies the
// same file against an emulator of its own, twice: in batches of 100 and in the bridge's batches. Prints, for each:
// elapsed time, rows/s, CPU per row and per emulator item, peak RSS; for the bridge also the time its journal commits
// (fsync, synchronous=FULL) kept it waiting.
// npx tsx bench/inbound.ts [rows] [batch]        BENCH_BASELINE=0 skips the baseline.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { NODE_OPTIONS } from '../src/runtime/node-options.js';
// @ts-expect-error plain JavaScript module without types
import { runsBuild } from '../bin/build-state.js';
// @ts-expect-error plain JavaScript module (bench/export-pass.mjs uses it without a TypeScript loader)
import { procCpu } from './measure.mjs';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const BATCH = Number(process.argv[3] ?? 1000);
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
for (const f of ['inbox', 'outbox', 'archive', 'error', 'mappings', 'commits']) mkdirSync(join(dir, f));

// Plain goods of the small seed (not lot- nor serial-tracked), positive quantities: every row applies.
const skus = Array.from({ length: 200 }, (_, i) => i + 1).filter((n) => n % 10 !== 3 && n % 25 !== 7).map((n) => `SKU-${String(n).padStart(5, '0')}`);
const file = join(dir, 'inbox', 'ADJ_BENCH.csv');
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

// The yardsticks first, each against an emulator of its own (the bridge archives the file afterwards).
const baselines: Array<{ label: string; batch: number; run: Run }> = [];
if (process.env.BENCH_BASELINE !== '0') {
  for (const { label, batch } of YARDSTICKS) {
    const emulator = await startEmulator();
    writeFileSync(join(dir, 'baseline-token'), emulator.token);
    const run = await measure(['--import', 'tsx', join(root, 'bench/inbound-baseline.ts'), emulator.url, join(dir, 'baseline-token'), file, String(batch), String(IN_FLIGHT)], emulator.child);
    baselines.push({ label, batch, run });
  }
}

const emulator = await startEmulator();
writeFileSync(join(dir, 'token'), emulator.token);
writeFileSync(join(dir, 'mappings', 'adjustments.yaml'), [
  'document: inventory.adjustments', 'files: "ADJ_*.csv"',
  'request:', '  fields:', '    product_code: SKU', '    quantity: { column: QTY, type: number }', '    reason: REASON', '    reference: REF', '    company_code: COMPANY', '',
].join('\n'));
writeFileSync(join(dir, 'wisbridge.yaml'), [
  'journal: journal.sqlite', 'mappings: mappings',
  `services:\n  wis:\n    url: ${emulator.url}\n    token: { file: token }\n    batch_size: ${BATCH}\n    requests_in_flight: ${IN_FLIGHT}\n    request_timeout_ms: 60000`,
  `drops:\n  wms:\n    type: local\n    root: ${dir}\n    settle_ms: 0\n    watch_events: false`,
  'inbound:\n  - { name: bench, drop: wms, service: wis }', 'log: { level: warn }', '',
].join('\n'));

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
// commit-probe.mjs times the journal's commits in every thread of the bridge (BENCH_COMMIT_DIR); alloc-probe.mjs
// samples the main thread's allocations (BENCH_ALLOC=FILE).
const probe = ['--import', new URL('./commit-probe.mjs', import.meta.url).href];
if (process.env.BENCH_ALLOC) probe.push('--import', new URL('./alloc-probe.mjs', import.meta.url).href);
const bridge = await measure([...bridgeFlags, ...heapFlags, ...probe, process.env.BENCH_BIN ?? join(root, 'bin/wisbridge.js'), 'batch', '--config', join(dir, 'wisbridge.yaml')],
  emulator.child, { ...process.env, BENCH_COMMIT_DIR: join(dir, 'commits') });
const probed = readdirSync(join(dir, 'commits')).map((f) => JSON.parse(readFileSync(join(dir, 'commits', f), 'utf8')) as { thread: number; commits: number; ms: number });
const sum = (list: typeof probed) => list.reduce((a, t) => ({ commits: a.commits + t.commits, ms: a.ms + t.ms }), { commits: 0, ms: 0 });
const commits = sum(probed);
const onMain = sum(probed.filter((t) => t.thread === 0));

if (process.env.BENCH_NODE_FLAGS) {
  writeFileSync(join(tmpdir(), 'wb-bench-inbound-bridge.out'), bridge.stdout);
  console.log(`the bridge's output: ${join(tmpdir(), 'wb-bench-inbound-bridge.out')}`);
}
const row = bridge.stdout.split('\n').find((l) => l.startsWith('bench '))?.split(/\s{2,}/) ?? [];
const [, , outcome, ok, error, , uncertain, requests] = row;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const us = (seconds: number) => `${((seconds / ROWS) * 1e6).toFixed(1)} µs`;
const figures = (label: string, run: Run) => [
  `${label} elapsed ${run.elapsed.toFixed(2)} s end to end, ${Math.round(ROWS / run.elapsed).toLocaleString('en')} rows/s`,
  `${label} CPU     ${run.cpu.toFixed(1)} s = ${us(run.cpu)} a row (main thread ${run.mainCpu.toFixed(1)} s, other threads ${(run.cpu - run.mainCpu).toFixed(1)} s; busiest: ${busiestThreads(run.threads, run.pid)}); emulator ${run.emulatorCpu.toFixed(1)} s = ${us(run.emulatorCpu)} an item (sampled every 100 ms)`,
  `${label} peak RSS ${mb(run.peak)} (VmHWM, all threads; emulator separate)`,
].join('\n');
console.log(`file            ${ROWS.toLocaleString('en')} rows, ${(size / 1e6).toFixed(1)} MB, batch size ${BATCH}, requests in flight ${IN_FLIGHT}, bridge node options ${heapFlags.join(' ') || 'none'}`);
console.log(`bridge code     ${bridgeCode}`);
console.log(`outcome         exit ${bridge.code}, ${outcome}  ok ${ok}  error ${error}  uncertain ${uncertain}; requests sent ${requests}`);
console.log(figures('bridge     ', bridge));
console.log(`bridge      commit wait ${(commits.ms / 1000).toFixed(2)} s in ${commits.commits} journal commits (WAL write + fsync, synchronous=FULL; ${(commits.ms / Math.max(1, commits.commits)).toFixed(2)} ms each), of which ${(onMain.ms / 1000).toFixed(2)} s in ${onMain.commits} on the main thread`);
if (process.env.BENCH_ALLOC) console.log(allocationSummary(process.env.BENCH_ALLOC));
for (const { label, batch, run } of baselines) {
  const name = label.padEnd(11);
  console.log(`${name}     exit ${run.code}, ${run.stdout.trim()} (bench/inbound-baseline.ts: csv-parse → batches of ${batch} → POST, ${IN_FLIGHT} in flight, no journal)`);
  console.log(figures(name, run));
}
for (const { label, batch, run } of baselines) {
  const goal = batch === 100 ? 'goal ≤ 1.5×, the yardstick as the goal words it' : 'the same batches as the bridge: stricter';
  console.log(`ratio           bridge / ${label} elapsed ${(bridge.elapsed / run.elapsed).toFixed(2)}× (${goal}), CPU ${(bridge.cpu / run.cpu).toFixed(2)}×`);
}
console.log(`machine load    ${loadAtStart.map((l) => l.toFixed(1)).join(' ')} at start, ${loadavg().map((l) => l.toFixed(1)).join(' ')} at end (1/5/15 min) on ${cpus().length} cores`);
rmSync(dir, { recursive: true, force: true });

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
