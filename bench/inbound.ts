// 1,000,000 adjustments through the whole inbound pipeline (drop → mapping → journal → client → result file →
// archive) against the emulator on loopback, the emulator in its own process so its memory is not counted.
// Prints rows/s, requests sent, elapsed time and the bridge's peak RSS.  npx tsx bench/inbound.ts [rows] [batch]
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
const root = new URL('..', import.meta.url).pathname;

const emulatorProfile = process.env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${join(process.env.BENCH_PROFILE, 'emulator')}`] : [];
const emulator = spawn(process.execPath, [...emulatorProfile, join(root, 'bin/wisbridge.js'), 'emulator', '--port', '0', '--today', '2026-11-22'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve, reject) => {
  let text = '';
  emulator.stdout!.on('data', (d) => {
    text += d;
    const m = /listening on (http:\/\/\S+)/.exec(text);
    if (m) resolve(m[1]);
  });
  emulator.once('exit', (code) => reject(new Error(`emulator exited ${code}`)));
});
const token = ((await (await fetch(`${url}/_admin/tokens`, { method: 'POST', body: JSON.stringify({ warehouses: [1], expires_in: 7200 }), headers: { 'content-type': 'application/json' } })).json()) as { token: string }).token;

const dir = mkdtempSync(join(tmpdir(), 'wb-bench-inbound-'));
for (const f of ['inbox', 'outbox', 'archive', 'error', 'mappings']) mkdirSync(join(dir, f));
writeFileSync(join(dir, 'token'), token);
writeFileSync(join(dir, 'mappings', 'adjustments.yaml'), [
  'document: inventory.adjustments', 'files: "ADJ_*.csv"',
  'request:', '  fields:', '    product_code: SKU', '    quantity: { column: QTY, type: number }', '    reason: REASON', '    reference: REF', '    company_code: COMPANY', '',
].join('\n'));
writeFileSync(join(dir, 'wisbridge.yaml'), [
  'journal: journal.sqlite', 'mappings: mappings',
  `services:\n  wis:\n    url: ${url}\n    token: { file: token }\n    batch_size: ${BATCH}\n    request_timeout_ms: 60000`,
  `drops:\n  wms:\n    type: local\n    root: ${dir}\n    settle_ms: 0\n    watch_events: false`,
  'inbound:\n  - { name: bench, drop: wms, service: wis }', 'log: { level: warn }', '',
].join('\n'));

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

// The bridge runs as `wisbridge batch` in its own process with the Node options of production (NODE_OPTIONS in
// src/runtime/node-options.ts: heap caps); its peak RSS is the kernel's high-water mark (VmHWM).
// BENCH_HEAP_MB / BENCH_SEMI_MB override them ('0': V8's default).
const flag = (name: string, env: string | undefined) => {
  const given = env ?? NODE_OPTIONS.find((o) => o.startsWith(`--${name}=`))!.split('=')[1];
  return given === '0' ? [] : [`--${name}=${given}`];
};
const heapFlags = [...flag('max-old-space-size', process.env.BENCH_HEAP_MB), ...flag('max-semi-space-size', process.env.BENCH_SEMI_MB)];
// What bin/wisbridge.js runs, decided when the bridge starts.
const bridgeCode = process.env.BENCH_BIN ?? ((runsBuild() as boolean) ? 'dist/ (compiled by npm run build)' : 'src/ through tsx (dist/ missing or older than src/: npm run build)');
const started = performance.now();
const bridgeFlags = process.env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
// BENCH_NODE_FLAGS: more flags for the bridge, e.g. --trace-gc (the bridge's stdout then goes to
// $TMPDIR/wb-bench-inbound-bridge.out). BENCH_BIN: another entry than bin/wisbridge.js.
bridgeFlags.push(...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean));
const bridge = spawn(process.execPath, [...bridgeFlags, ...heapFlags, process.env.BENCH_BIN ?? join(root, 'bin/wisbridge.js'), 'batch', '--config', join(dir, 'wisbridge.yaml')], { stdio: ['ignore', 'pipe', 'inherit'] });
let stdout = '';
bridge.stdout!.on('data', (d) => (stdout += d));
let peak = 0;
const cpu = { bridge: 0, emulator: 0 };
/** CPU seconds of a process so far; undefined once it has exited. */
const cpuSeconds = (pid: number | undefined): number | undefined => {
  const seconds = procCpu(`/proc/${pid}/stat`) as number;
  return Number.isNaN(seconds) ? undefined : seconds;
};
const readPeak = () => {
  try {
    const status = readFileSync(`/proc/${bridge.pid}/status`, 'utf8');
    peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024);
  } catch {
    // the process has exited
  }
  cpu.bridge = cpuSeconds(bridge.pid) ?? cpu.bridge;
  cpu.emulator = cpuSeconds(emulator.pid) ?? cpu.emulator;
};
const emulatorCpuBefore = cpuSeconds(emulator.pid) ?? 0;
const sampler = setInterval(readPeak, 100);
const [code] = (await once(bridge, 'exit')) as [number];
const elapsed = (performance.now() - started) / 1000;
clearInterval(sampler);
emulator.kill('SIGTERM');

if (process.env.BENCH_NODE_FLAGS) {
  writeFileSync(join(tmpdir(), 'wb-bench-inbound-bridge.out'), stdout);
  console.log(`the bridge's output: ${join(tmpdir(), 'wb-bench-inbound-bridge.out')}`);
}
const row = stdout.split('\n').find((l) => l.startsWith('bench '))?.split(/\s{2,}/) ?? [];
const [, , outcome, ok, error, , uncertain, requests] = row;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
console.log(`file            ${ROWS.toLocaleString('en')} rows, ${(size / 1e6).toFixed(1)} MB, batch size ${BATCH}, bridge node options ${heapFlags.join(' ') || 'none'}`);
console.log(`bridge code     ${bridgeCode}`);
console.log(`outcome         exit ${code}, ${outcome}  ok ${ok}  error ${error}  uncertain ${uncertain}`);
console.log(`requests sent   ${requests}`);
console.log(`elapsed         ${elapsed.toFixed(2)} s end to end (process start, checksum, map, journal, send, result file, archive)`);
console.log(`throughput      ${Math.round(ROWS / elapsed).toLocaleString('en')} rows/s`);
console.log(`CPU time        bridge ${cpu.bridge.toFixed(1)} s, emulator ${(cpu.emulator - emulatorCpuBefore).toFixed(1)} s (sampled every 100 ms; the two share the machine)`);
console.log(`peak RSS        ${mb(peak)} (wisbridge batch process, VmHWM; emulator separate)`);
console.log(`machine load    ${loadavg().map((l) => l.toFixed(1)).join(' ')} (1/5/15 min) on ${cpus().length} cores`);
rmSync(dir, { recursive: true, force: true });
