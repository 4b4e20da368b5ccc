/**
 * Export of 100,000 pending customer shipments (emulator `large` seed, in its own process) with 20 ms injected
 * latency per request: the work-list export (list + CSV to the outbox) with sequential has_more paging against
 * count-based concurrent paging, then a full pass that also acknowledges everything. Every mode runs against a
 * fresh emulator, so no mode profits from what an earlier one left in the emulator (e.g. remembered page ends).
 * A raw HTTP pass (undici, bodies not parsed) shows the floor the emulator and the network set at that concurrency.
 * Each export pass runs in a process of its own (bench/export-pass.mjs): with `--build` from dist/ under plain node,
 * as `wisbridge export` runs, else from the sources under tsx (whose hooks slow down the loading of worker threads).
 * Run: npx tsx bench/export.ts [concurrency=the configuration's default, 5] [latencyMs=20] [--no-ack-pass] [--only=listing,raw,sequential,concurrent,full]
 * (`--only` runs just the modes named, e.g. while trying a change; the comparison needs both exports.)
 * `--build`: the bridge from dist/ (see below). `--page-thread-from=N`: ExportTuning.pageThreadFrom (Infinity: pages decoded on the main thread, as before the
 * page thread). The export pass runs with production's Node options (src/runtime/node-options.ts). BENCH_EMULATOR_NODE_FLAGS,
 * BENCH_BRIDGE_NODE_FLAGS: more flags for the emulator's and the export pass's process
 * (e.g. `--cpu-prof --cpu-prof-dir=DIR`, `--max-semi-space-size=16`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';
import { stringify } from 'yaml';
import { serviceSchema } from '../src/config/schema.js';
// @ts-expect-error plain JavaScript module of bin/
import { buildIsCurrent } from '../bin/build-state.js';
import { NODE_OPTIONS } from '../src/runtime/node-options.js';
// @ts-expect-error plain JavaScript module (bench/export-pass.mjs uses it without a TypeScript loader)
import { measured, procCpu } from './measure.mjs';

/**
 * `--build`: the bridge from dist/ (as deployed: `npm run build` first; refused when the build is older than the
 * sources), else from the sources through tsx. The emulator's process follows bin/wisbridge.js (dist/ when current,
 * unless WISBRIDGE_SOURCES=1).
 */
const fromBuild = process.argv.includes('--build');
if (fromBuild && !(buildIsCurrent() as boolean)) throw new Error('--build: dist/ is older than the sources (npm run build)');
const code = fromBuild ? 'dist' : 'src';
const { WisClient } = (await import(`../${code}/client/index.js`)) as typeof import('../src/client/index.js');

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
/** Requests at once: the configuration's default `services.<name>.concurrency` unless given. */
const concurrency = Number(positional[0] ?? serviceSchema.shape.concurrency.parse(undefined));
const latencyMs = Number(positional[1] ?? 20);
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
/** `--page-thread-from=N`: records listed before pages are decoded on the page thread (ExportTuning; Infinity: never). */
const pageThreadArg = process.argv.find((a) => a.startsWith('--page-thread-from='))?.split('=')[1];
const tuning = pageThreadArg === undefined ? undefined : { pageThreadFrom: Number(pageThreadArg) };
const runs = (mode: 'listing' | 'raw' | 'sequential' | 'concurrent' | 'full') => !only || only.includes(mode);
const repo = resolve(import.meta.dirname, '..');
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

/** Node flags from an environment variable, space-separated. */
const nodeFlags = (name: string): string[] => (process.env[name] ?? '').split(' ').filter(Boolean);

let url = '';
let child: ChildProcess | undefined;
/** A fresh emulator (large seed) in its own process, with the injected latency; the previous one is stopped. */
async function freshEmulator(): Promise<void> {
  if (child) await stopEmulator();
  const t0 = performance.now();
  child = spawn(process.execPath, [...nodeFlags('BENCH_EMULATOR_NODE_FLAGS'), join(repo, 'bin/wisbridge.js'), 'emulator', '--scale', 'large', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const started = child;
  url = await new Promise<string>((ok, fail) => {
    const lines = createInterface({ input: started.stdout! });
    lines.on('line', (line) => {
      const m = /emulator listening on (\S+)/.exec(line);
      if (m) ok(m[1]);
    });
    started.once('exit', (code) => fail(new Error(`emulator exited with ${code}`)));
  });
  process.env.WISBRIDGE_BENCH_TOKEN = (await adminCall('POST', 'tokens', { warehouses: [1] })).token;
  await adminCall('PUT', 'faults', { latency_ms: latencyMs });
  console.log(`  (fresh emulator, large seed, own process, ready in ${((performance.now() - t0) / 1000).toFixed(1)} s; load average ${load()})`);
}
async function stopEmulator(): Promise<void> {
  const c = child;
  child = undefined;
  if (!c || c.exitCode !== null) return;
  await new Promise<void>((ok) => {
    c.once('exit', () => ok());
    c.kill('SIGTERM');
  });
}

async function adminCall(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}/_admin/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (res.status !== 200) throw new Error(`admin ${path}: ${res.status}`);
  return res.json();
}

/** CPU seconds (user + system) of the emulator process so far, from /proc (Linux; NaN elsewhere). */
function emulatorCpu(): number {
  return procCpu(`/proc/${child!.pid}/stat`) as number;
}

interface Measured {
  seconds: number;
  cpu: { process: number; main: number; threads: { name: string; cpu: number }[] };
  delayMs: { p50: number; p99: number; max: number };
  gc: { minor: number; minorMs: number; major: number; majorMs: number };
}
/** The CPU line of a measured step: the bridge's process and main thread, the emulator, event-loop delay, threads. */
function cpuLine(m: Measured, emulator: number): string {
  return `CPU bridge ${m.cpu.process.toFixed(2)} s (main thread ${m.cpu.main.toFixed(2)} s), emulator ${emulator.toFixed(2)} s; bridge event-loop delay p50 ${m.delayMs.p50.toFixed(0)} ms, ` +
    `p99 ${m.delayMs.p99.toFixed(0)} ms, max ${m.delayMs.max.toFixed(0)} ms; main-thread GC ${m.gc.minor} minor ${m.gc.minorMs.toFixed(0)} ms, ` +
    `${m.gc.major} major ${m.gc.majorMs.toFixed(0)} ms;\n${''.padEnd(45)}threads: ${m.cpu.threads.map((t) => `${t.name} ${t.cpu.toFixed(2)} s`).join(', ')}`;
}
/** A step run in this process, with the emulator's CPU beside it. */
async function measuredHere<T>(work: () => Promise<T>): Promise<Measured & { result: T; line: string }> {
  const emu0 = emulatorCpu();
  const m = (await measured(work)) as Measured & { result: T };
  return { ...m, line: cpuLine(m, emulatorCpu() - emu0) };
}

let peakRss = 0;

interface PassResult extends Measured { bytes: number; peakRss: number; exported: number; files: number; acknowledged: number }
/** One export pass in a process of its own (bench/export-pass.mjs), against a fresh emulator. */
async function pass(label: string, pages: number, acknowledge: 'never' | 'on-export'): Promise<PassResult> {
  await freshEmulator();
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-bench-export-'));
  const file = join(dir, 'wisbridge.yaml');
  writeFileSync(file, stringify({
    journal: 'journal.sqlite',
    mappings: join(repo, 'mappings'),
    services: { wis: { url, token: { env: 'WISBRIDGE_BENCH_TOKEN' }, concurrency: pages, batch_size: 1000 } },
    drops: { wms: { type: 'local', root: join(dir, 'drop') } },
    exports: [{ name: 'so', work_type: 'customerShipments', drop: 'wms', service: 'wis', mapping: 'customer-shipments-export', acknowledge, max_records_per_file: 25_000 }],
    log: { level: 'warn' },
  }));
  try {
    const emu0 = emulatorCpu();
    const args = [...NODE_OPTIONS, ...nodeFlags('BENCH_BRIDGE_NODE_FLAGS'), ...(fromBuild ? [] : ['--import', 'tsx']), join(repo, 'bench/export-pass.mjs'), code, file];
    if (tuning) args.push(JSON.stringify(tuning, (_, v) => (v === Infinity ? 'Infinity' : v)));
    const output = await new Promise<string>((ok, fail) => {
      const run = spawn(process.execPath, args, { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      run.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      run.once('exit', (code) => (code === 0 ? ok(text) : fail(new Error(`export pass exited with ${code}`))));
    });
    const result = JSON.parse(/^RESULT (.*)$/m.exec(output)![1]!) as PassResult;
    peakRss = Math.max(peakRss, result.peakRss);
    console.log(`${label.padEnd(44)} ${result.seconds.toFixed(2).padStart(6)} s  ${result.exported} records in ${result.files} files (${(result.bytes / 1e6).toFixed(1)} MB), ` +
      `acknowledged ${result.acknowledged}, ${Math.round(result.exported / result.seconds)} records/s; load average ${load()}`);
    console.log(`${''.padEnd(44)} ${cpuLine(result, emulatorCpu() - emu0)}; peak RSS ${(result.peakRss / 1e6).toFixed(0)} MB`);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  console.log(`load average before the run: ${load()} (2 cores shared with other engineers' work)`);
  await freshEmulator();
  const counted = (await (await fetch(`${url}/v1/customer-shipments/count.json?status=pending`, { headers: { authorization: `Bearer ${process.env.WISBRIDGE_BENCH_TOKEN}` } })).json()) as { count: number };
  const total = counted.count;
  const pages = Math.ceil(total / 100);
  console.log(`${total} pending customer shipments = ${pages} pages; ${latencyMs} ms injected latency per request; concurrency ${concurrency}`);
  if (runs('listing')) await listingOnly();
  if (runs('raw')) await rawHttp(pages);
  const seq = runs('sequential') ? await pass('export, sequential has_more paging', 1, 'never') : undefined;
  const conc = runs('concurrent') ? await pass(`export, count-based paging, ${concurrency} at once`, concurrency, 'never') : undefined;
  const full = process.argv.includes('--no-ack-pass') || !runs('full') ? undefined : await pass(`full pass with acknowledge, ${concurrency} at once`, concurrency, 'on-export');
  const floor = (pages * latencyMs) / concurrency / 1000;
  const bound = 1.5 * floor;
  console.log('');
  console.log(`pages × latency / concurrency = ${floor.toFixed(2)} s; bound 1.5× = ${bound.toFixed(2)} s`);
  if (conc) console.log(`concurrent export ${conc.seconds.toFixed(2)} s: ${conc.seconds <= bound ? 'WITHIN' : 'OVER'} the bound (${(conc.seconds / floor).toFixed(2)}× the floor)`);
  if (seq && conc) console.log(`speed-up over sequential has_more paging: ${(seq.seconds / conc.seconds).toFixed(2)}× (${seq.seconds / conc.seconds >= 4 ? 'meets' : 'misses'} 4×)`);
  if (full) console.log(`full pass incl. acknowledging ${full.acknowledged}: ${full.seconds.toFixed(2)} s`);
  console.log(`bridge peak RSS ${(peakRss / 1e6).toFixed(0)} MB; load average after the run: ${load()}`);
  if (seq) {
    const perPage = (seq.seconds * 1000) / pages - latencyMs;
    console.log(`sequential cost per page beyond the injected latency: ${perPage.toFixed(1)} ms (emulator + client + export CPU on this machine)`);
  }
} finally {
  await stopEmulator();
}

/** The client's listing alone: every record, no file, no journal. */
async function listingOnly(): Promise<void> {
  const client = new WisClient({ baseUrl: url, token: process.env.WISBRIDGE_BENCH_TOKEN!, connections: concurrency });
  let listed = 0;
  const listing = await measuredHere(async () => {
    for await (const _ of client.customerShipments.list({ status: 'pending' }, { concurrency })) listed++;
  });
  await client.close();
  console.log(`${`listing only (client), ${concurrency} at once`.padEnd(44)} ${listing.seconds.toFixed(2).padStart(6)} s  ${listed} records (no file, no journal): the export's own overhead is the difference; load average ${load()}`);
  console.log(`${''.padEnd(44)} ${listing.line}`);
}

/** The floor set by the emulator and the network: the same pages, N at once, bodies read but not parsed. */
async function rawHttp(pages: number): Promise<void> {
  await freshEmulator();
  const pool = new Pool(url, { connections: concurrency });
  let nextPage = 1;
  const raw = await measuredHere(() => Promise.all(Array.from({ length: concurrency }, async () => {
    for (let p = nextPage++; p <= pages; p = nextPage++) {
      const res = await pool.request({ path: `/v1/customer-shipments.json?status=pending&page=${p}`, method: 'GET', headers: { authorization: `Bearer ${process.env.WISBRIDGE_BENCH_TOKEN}` } });
      await res.body.dump({ limit: Infinity });
    }
  })));
  await pool.close();
  console.log(`${`raw HTTP only (undici, no parsing), ${concurrency} at once`.padEnd(44)} ${raw.seconds.toFixed(2).padStart(6)} s  ${pages} pages: the emulator's and the network's floor at this concurrency; load average ${load()}`);
  console.log(`${''.padEnd(44)} ${raw.line}`);
}
