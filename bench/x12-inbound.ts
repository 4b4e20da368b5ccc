// The same rows as X12 and as CSV through the bridge's whole inbound path (`wisbridge batch`: drop → routing pass over
// the envelopes → mapping → journal → client → result file, 997 → archive) against the emulator on loopback, each run
// against an emulator of its own (its memory not counted), alternating CSV and X12 in one sitting. The X12 file is a
// 947 (Warehouse Inventory Adjustment Advice) of `rows` W19 lines in sets of 1,000 (mappings/x12-947-inventory-
// adjustments.yaml), the CSV file the same rows (SKU,QTY,REASON,REF,DATE,COMPANY,LOT) read by a mapping that makes the
// same requests of them (bench/x12-files.ts: the same transforms, reason table and date). Prints,
// for each: elapsed time, rows/s, CPU per row, peak RSS (VmHWM), the machine load; then X12 ÷ CSV. Goal (issue #44):
// X12 ≥ 0.8× the CSV rows/s, within the same peak RSS bound (docs/operations.md, sizing).
// npx tsx bench/x12-inbound.ts [rows=1000000] [runs=1] [batch=1000]      BENCH_IN_FLIGHT (2), BENCH_HEAP_MB as for bench/inbound.ts
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ADJUSTMENT_SKUS, bridgeArgs, bridgeSummary, bridgeWorkspace, heapFlags, loads, mb, measure, median, root, startEmulator, type Emulator, type Run,
} from './inbound-harness.js';
import { benchDrop } from './bench-drop.js';
import { ADJUSTMENTS_947_CSV_MAPPING, write947, write947AsCsv } from './x12-files.js';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const RUNS = Number(process.argv[3] ?? 1);
const BATCH = Number(process.argv[4] ?? 1000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 2);
const PER_SET = 1000;
const loadAtStart = loadavg();
const dir = mkdtempSync(join(tmpdir(), 'wb-bench-x12-'));

/** A bridge whose inbox holds the 947, routed by content to the shipped 947 mapping. */
function x12Workspace(work: string, file: string, emulator: Emulator): string {
  for (const f of ['mappings', 'commits']) mkdirSync(join(work, f), { recursive: true });
  const drop = benchDrop(work, [file], undefined);
  writeFileSync(join(work, 'token'), emulator.token);
  const mapping = readFileSync(join(root, 'mappings/x12-947-inventory-adjustments.yaml'), 'utf8').replace(/^samples:.*$/m, '');
  writeFileSync(join(work, 'mappings', 'x12-947-inventory-adjustments.yaml'), mapping);
  const config = join(work, 'wisbridge.yaml');
  writeFileSync(config, [
    'journal: journal.sqlite', 'mappings: mappings',
    `services:\n  wis:\n    url: ${emulator.url}\n    token: { file: token }\n    batch_size: ${BATCH}\n    requests_in_flight: ${IN_FLIGHT}\n    request_timeout_ms: 60000`,
    `drops:\n  wms:\n${drop.yaml}`,
    'inbound:\n  - name: bench\n    drop: wms\n    service: wis\n    x12: [{ transaction_set: "947", mapping: x12-947-inventory-adjustments }]',
    'log: { level: warn }', '',
  ].join('\n'));
  return config;
}

const csvFile = join(dir, 'ADJ_BENCH.csv');
const x12File = join(dir, 'NWL_947_BENCH.edi');
await write947AsCsv(csvFile, ROWS, ADJUSTMENT_SKUS, PER_SET);
await write947(x12File, ROWS, ADJUSTMENT_SKUS, PER_SET);

interface Measured { kind: 'csv' | 'x12'; run: Run; load: number[] }
const runs: Measured[] = [];
for (let i = 0; i < RUNS; i++) {
  for (const kind of ['csv', 'x12'] as const) {
    const work = join(dir, `${kind}-${i}`);
    const emulator = await startEmulator();
    const config = kind === 'csv'
      ? bridgeWorkspace(work, csvFile, emulator, { batch: BATCH, inFlight: IN_FLIGHT, mapping: ADJUSTMENTS_947_CSV_MAPPING })
      : x12Workspace(work, x12File, emulator);
    const load = loadavg();
    const run = await measure(bridgeArgs(config), emulator, { ...process.env, BENCH_COMMIT_DIR: join(work, 'commits'), BENCH_JOURNAL: 'sqlite' });
    runs.push({ kind, run, load });
    const { outcome, ok, error } = bridgeSummary(run.stdout);
    // An X12 file's result counts every segment of its sets (LX, W19, and ST, W15, N1, SE of each set).
    if (run.code !== 0 || error !== '0' || Number(ok) < ROWS) console.log(`${kind} run ${i + 1}: exit ${run.code}, ${outcome} ok ${ok} error ${error}\n${run.stdout}`);
    rmSync(work, { recursive: true, force: true });
  }
}

const size = (file: string) => `${(statSync(file).size / 1e6).toFixed(1)} MB`;
console.log(`files      ${ROWS.toLocaleString('en')} rows: CSV ${size(csvFile)}; X12 947 ${size(x12File)} (${Math.ceil(ROWS / PER_SET)} sets of ${PER_SET} W19 in one interchange); batch size ${BATCH}, requests in flight ${IN_FLIGHT}, SQLite journal, bridge node options ${heapFlags.join(' ') || 'none'}`);
for (const { kind, run, load } of runs) {
  const { ok, error } = bridgeSummary(run.stdout);
  console.log(`${kind.padEnd(10)} elapsed ${run.elapsed.toFixed(2)} s, ${Math.round(ROWS / run.elapsed).toLocaleString('en')} rows/s; CPU ${run.cpu.toFixed(1)} s = ${((run.cpu / ROWS) * 1e6).toFixed(1)} µs a row (main thread ${run.mainCpu.toFixed(1)} s); peak RSS ${mb(run.peak)}; ok ${ok} error ${error}; load ${loads(load)} at its start`);
}
const of = (kind: 'csv' | 'x12', f: (r: Run) => number) => median(runs.filter((r) => r.kind === kind).map((r) => f(r.run)));
const rate = (r: Run) => ROWS / r.elapsed;
console.log(`ratio      X12 / CSV rows/s ${(of('x12', rate) / of('csv', rate)).toFixed(2)}× (goal ≥ 0.8×), CPU ${(of('x12', (r) => r.cpu) / of('csv', (r) => r.cpu)).toFixed(2)}×; peak RSS X12 ${mb(of('x12', (r) => r.peak))}, CSV ${mb(of('csv', (r) => r.peak))} (medians of ${RUNS})`);
console.log(`machine    load ${loads(loadAtStart)} at start, ${loads(loadavg())} at end (1/5/15 min) on ${cpus().length} cores`);
rmSync(dir, { recursive: true, force: true });
if (runs.some((r) => r.run.code !== 0)) process.exitCode = 1;
