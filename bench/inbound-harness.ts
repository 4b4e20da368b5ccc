// What bench/inbound.ts and bench/latency.ts share: an emulator in its own process, an adjustments file, a bridge's
// drop and configuration, the yardstick bench/inbound-baseline.ts, and a child process measured from /proc (elapsed,
// CPU per thread, peak RSS, the emulator's CPU over the same time).
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_OPTIONS } from '../src/runtime/node-options.js';
import { benchDrop, type DistantSftp } from './bench-drop.js';
// @ts-expect-error plain JavaScript module without types
import { runsBuild } from '../bin/build-state.js';
import { once } from 'node:events';
// @ts-expect-error plain JavaScript module (bench/export-pass.mjs uses it without a TypeScript loader)
import { procCpu } from './measure.mjs';

export const root = new URL('..', import.meta.url).pathname;

// The bridge runs as `wisbridge batch` in its own process with the Node options of production (NODE_OPTIONS in
// src/runtime/node-options.ts: heap caps). BENCH_HEAP_MB / BENCH_SEMI_MB override them ('0': V8's default).
const flag = (name: string, env: string | undefined) => {
  const given = env ?? NODE_OPTIONS.find((o) => o.startsWith(`--${name}=`))!.split('=')[1];
  return given === '0' ? [] : [`--${name}=${given}`];
};
export const heapFlags = [...flag('max-old-space-size', process.env.BENCH_HEAP_MB), ...flag('max-semi-space-size', process.env.BENCH_SEMI_MB)];
// What bin/wisbridge.js runs, decided when the bridge starts.
export const bridgeCode = process.env.BENCH_BIN ?? ((runsBuild() as boolean) ? 'dist/ (compiled by npm run build)' : 'src/ through tsx (dist/ missing or older than src/: npm run build)');
const bridgeFlags = process.env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
// BENCH_NODE_FLAGS: more flags for the bridge, e.g. --trace-gc (the bridge's stdout then goes to
// $TMPDIR/wb-bench-inbound-bridge.out). BENCH_BIN: another entry than bin/wisbridge.js.
export const extraNodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
bridgeFlags.push(...extraNodeFlags);
// commit-probe.mjs times the journal's commits in every thread of the bridge (BENCH_COMMIT_DIR; BENCH_JOURNAL says
// which engine's); alloc-probe.mjs samples the main thread's allocations (BENCH_ALLOC=FILE).
const probe = ['--import', new URL('./commit-probe.mjs', import.meta.url).href];
if (process.env.BENCH_ALLOC) probe.push('--import', new URL('./alloc-probe.mjs', import.meta.url).href);

/** `wisbridge batch --config config` as the benches run it: production Node options, the commit probe, BENCH_* flags. */
export function bridgeArgs(config: string): string[] {
  return [...bridgeFlags, ...heapFlags, ...probe, process.env.BENCH_BIN ?? join(root, 'bin/wisbridge.js'), 'batch', '--config', config];
}

/** What commit-probe.mjs counts per thread: journal commits and their wait, syncs of the log, garbage collection pauses. */
export interface Totals { commits: number; ms: number; syncs: number; syncMs: number; majorGcs: number; gcMs: number }

/** What commit-probe.mjs wrote to `dir`: the bridge's commits and their wait, in all threads and on the main one. */
export function commitWait(dir: string): { commits: Totals; onMain: Totals } {
  const probed = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { thread: number } & Totals);
  const sum = (list: typeof probed) => list.reduce((a, t) => ({
    commits: a.commits + t.commits, ms: a.ms + t.ms, syncs: a.syncs + t.syncs, syncMs: a.syncMs + t.syncMs, majorGcs: a.majorGcs + t.majorGcs, gcMs: a.gcMs + t.gcMs,
  }), { commits: 0, ms: 0, syncs: 0, syncMs: 0, majorGcs: 0, gcMs: 0 });
  return { commits: sum(probed), onMain: sum(probed.filter((t) => t.thread === 0)) };
}

/** The garbage collection pauses commit-probe.mjs saw on the main thread and on the others (the file's thread). */
export function gcPauses({ commits, onMain }: { commits: Totals; onMain: Totals }): string {
  const line = (label: string, ms: number, majors: number) => `${label} ${(ms / 1000).toFixed(2)} s of pauses, ${majors} full (mark-compact) collections`;
  return `${line('main thread', onMain.gcMs, onMain.majorGcs)}; ${line('other threads', commits.gcMs - onMain.gcMs, commits.majorGcs - onMain.majorGcs)}`;
}

export interface Emulator { child: ChildProcess; url: string; token: string }

/** What an emulator saw of a run (GET /_admin/concurrency): its requests, the most at once, and their summed time. */
export interface ServiceSeen { requests: number; peak: number; requestMs: number; spanMs: number }

export async function serviceSeen(emulatorUrl: string): Promise<ServiceSeen> {
  const seen = (await (await fetch(`${emulatorUrl}/_admin/concurrency`)).json()) as { requests: number; peak: number; request_ms: number; span_ms: number };
  return { requests: seen.requests, peak: seen.peak, requestMs: seen.request_ms, spanMs: seen.span_ms };
}

/** How busy the service was over `elapsed` seconds: on average that many requests at once, each that long there. */
export function serviceLoad(seen: ServiceSeen | undefined, elapsed: number): string {
  if (!seen) return 'the service\'s figures not read';
  return `at the service ${(seen.requestMs / 1000 / elapsed).toFixed(1)} at once on average, ${(seen.requestMs / Math.max(1, seen.requests)).toFixed(1)} ms each, from the first request to the last answer ${(seen.spanMs / 1000).toFixed(2)} s`;
}

/**
 * A fresh emulator in its own process (every run gets one: the same empty state, its memory not counted), with
 * `latencyMs` injected on every /v1 request (src/emulator/faults.ts: a write waits, then applies and answers).
 */
export async function startEmulator(options: { latencyMs?: number; nodeFlags?: string[] } = {}): Promise<Emulator> {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), join(root, 'bin/wisbridge.js'), 'emulator', '--port', '0', '--today', '2026-11-22'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (d) => {
      text += d;
      const m = /listening on (http:\/\/\S+)/.exec(text);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
  const admin = async (method: string, path: string, body: unknown) =>
    (await fetch(`${url}/_admin/${path}`, { method, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })).json();
  const { token } = (await admin('POST', 'tokens', { warehouses: [1], expires_in: 7200 })) as { token: string };
  if (options.latencyMs) await admin('PUT', 'faults', { latency_ms: options.latencyMs });
  return { child, url, token };
}

/** CPU seconds of a process so far; undefined once it has exited. */
export const cpuSeconds = (pid: number | undefined): number | undefined => {
  const seconds = procCpu(`/proc/${pid}/stat`) as number;
  return Number.isNaN(seconds) ? undefined : seconds;
};

export interface Run { code: number; stdout: string; elapsed: number; cpu: number; mainCpu: number; emulatorCpu: number; peak: number; pid?: number; threads: Map<string, number>; service?: ServiceSeen }

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
export function busiestThreads(threads: Run['threads'], mainTid: number | undefined): string {
  return [...threads].filter(([tid, cpu]) => Number(tid) !== mainTid && cpu >= 0.05).map(([, cpu]) => cpu).sort((a, b) => b - a).slice(0, 4).map((s) => `${s.toFixed(1)} s`).join(', ');
}

/** Runs `node args…` to its end, sampling it every 100 ms; then reads what the emulator it talked to saw, and stops it. */
export async function measure(args: string[], { child: emulator, url }: Emulator, env: NodeJS.ProcessEnv = process.env): Promise<Run> {
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
  run.service = await serviceSeen(url);
  emulator.kill('SIGTERM');
  await once(emulator, 'exit');
  run.stdout = stdout;
  return run;
}

/** Plain goods of the emulator's small seed (not lot- nor serial-tracked): a positive adjustment of any applies. */
export const ADJUSTMENT_SKUS = Array.from({ length: 200 }, (_, i) => i + 1).filter((n) => n % 10 !== 3 && n % 25 !== 7).map((n) => `SKU-${String(n).padStart(5, '0')}`);

/** The mapping of the benches' adjustments files (SKU,QTY,REASON,REF,COMPANY), as mappings/adjustments.yaml. */
export const ADJUSTMENTS_MAPPING = [
  'document: inventory.adjustments', 'files: "ADJ_*.csv"',
  'request:', '  fields:', '    product_code: SKU', '    quantity: { column: QTY, type: number }', '    reason: REASON', '    reference: REF', '    company_code: COMPANY', '',
].join('\n');

/**
 * An adjustments file of `rows` rows (SKU,QTY,REASON,REF,COMPANY): ADJUSTMENT_SKUS, positive quantities, so every
 * row applies.
 */
export async function writeAdjustments(file: string, rows: number): Promise<void> {
  const skus = ADJUSTMENT_SKUS;
  const out = createWriteStream(file);
  out.write('SKU,QTY,REASON,REF,COMPANY\n');
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += `${skus[i % skus.length]},${1 + (i % 5)},bench,B-${i},ACME\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/** The yardstick's command line: bench/inbound-baseline.ts on `file` against `emulator` (its token written beside). */
export function yardstickArgs(dir: string, emulator: Emulator, file: string, batch: number, inFlight: number): string[] {
  const tokenFile = join(dir, 'baseline-token');
  writeFileSync(tokenFile, emulator.token);
  return ['--import', 'tsx', join(root, 'bench/inbound-baseline.ts'), emulator.url, tokenFile, file, String(batch), String(inFlight)];
}

export interface BridgeSetup {
  /** The `journal:` section (SQLite file by default). */
  journal?: string;
  batch: number;
  inFlight: number;
  /** An SFTP drop this far away instead of local folders (bench/bench-drop.ts). */
  sftp?: DistantSftp;
  /** The mapping's YAML instead of ADJUSTMENTS_MAPPING. */
  mapping?: string;
}

/**
 * A bridge's drop (inbox holding `file`: local folders under `work`, or setup.sftp), an adjustments mapping and a
 * configuration against `emulator`; returns the configuration's path, for `wisbridge batch --config`.
 */
export function bridgeWorkspace(work: string, file: string, emulator: Emulator, setup: BridgeSetup): string {
  for (const f of ['mappings', 'commits']) mkdirSync(join(work, f), { recursive: true });
  const drop = benchDrop(work, [file], setup.sftp);
  writeFileSync(join(work, 'token'), emulator.token);
  writeFileSync(join(work, 'mappings', 'adjustments.yaml'), setup.mapping ?? ADJUSTMENTS_MAPPING);
  const config = join(work, 'wisbridge.yaml');
  writeFileSync(config, [
    setup.journal ?? 'journal: journal.sqlite', 'mappings: mappings',
    `services:\n  wis:\n    url: ${emulator.url}\n    token: { file: token }\n    batch_size: ${setup.batch}\n    requests_in_flight: ${setup.inFlight}\n    request_timeout_ms: 60000`,
    `drops:\n  wms:\n${drop.yaml}`,
    'inbound:\n  - { name: bench, drop: wms, service: wis }', 'log: { level: warn }', '',
  ].join('\n'));
  return config;
}

/** The bridge's summary row of the bench file: outcome, ok, error, uncertain, requests sent. */
export function bridgeSummary(stdout: string): { outcome?: string; ok?: string; error?: string; uncertain?: string; requests?: string } {
  const row = stdout.split('\n').find((l) => l.startsWith('bench '))?.split(/\s{2,}/) ?? [];
  const [, , outcome, ok, error, , uncertain, requests] = row;
  return { outcome, ok, error, uncertain, requests };
}

/** The middle value (the mean of the two middle ones for an even count): a run's figure on a drifting machine. */
export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
export const loads = (l: number[]) => l.map((x) => x.toFixed(1)).join(' ');

interface HeapNode { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: HeapNode[] }

/** The sampled allocations of the bridge's main thread: the total, and the functions that allocated most. */
export function allocationSummary(file: string): string {
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
