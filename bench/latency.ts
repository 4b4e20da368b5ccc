// Throughput against a distant service: the emulator (in its own process) answers every request `latency` ms late
// (src/emulator/faults.ts), and an adjustments file goes through the whole inbound pipeline (`wisbridge batch`: drop →
// mapping → journal → client → result file → archive) and through the yardstick bench/inbound-baseline.ts (csv-parse
// → batches → POST, the same window, no guarantees), in the same invocation, alternating which goes first, at each
// number of requests in flight. Each run gets a fresh emulator. The bound is what the latency alone allows:
// rows ÷ (batch × in_flight ÷ latency). Prints for each: elapsed, rows/s, elapsed ÷ bound, peak RSS, the load at
// its start, how many requests the service had on average and how long each was there (their summed time ÷ elapsed,
// start-up included: below in_flight, the client's side of each request's cycle shows); then bridge ÷ yardstick
// throughput.
// npx tsx bench/latency.ts [rows=100000] [batch=100] [--in-flight 2,8,32] [--latency 40] [--runs 1]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bridgeArgs, bridgeCode, bridgeSummary, bridgeWorkspace, commitWait, loads, mb, measure, median, serviceLoad, startEmulator, writeAdjustments, yardstickArgs, type Run } from './inbound-harness.js';

const option = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1];
};
const positional = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
const ROWS = Number(positional[0] ?? 100_000);
const BATCH = Number(positional[1] ?? 100);
const IN_FLIGHT = option('in-flight', '2,8,32').split(',').map(Number);
const LATENCY_MS = Number(option('latency', '40'));
const RUNS = Number(option('runs', '1'));
const loadAtStart = loadavg();

const dir = mkdtempSync(join(tmpdir(), 'wb-bench-latency-'));
const file = join(dir, 'ADJ_BENCH.csv');
await writeAdjustments(file, ROWS);

interface Measured { run: Run; load: number[]; note: string }

async function yardstick(inFlight: number): Promise<Measured> {
  const emulator = await startEmulator({ latencyMs: LATENCY_MS });
  const load = loadavg();
  const run = await measure(yardstickArgs(dir, emulator, file, BATCH, inFlight), emulator);
  return { run, load, note: `${run.stdout.trim()}; ${serviceLoad(run.service, run.elapsed)}` };
}

let bridges = 0;
async function bridge(inFlight: number): Promise<Measured> {
  const work = join(dir, `bridge-${++bridges}`);
  mkdirSync(work);
  const emulator = await startEmulator({ latencyMs: LATENCY_MS });
  const config = bridgeWorkspace(work, file, emulator, { batch: BATCH, inFlight });
  const load = loadavg();
  const run = await measure(bridgeArgs(config), emulator, { ...process.env, BENCH_COMMIT_DIR: join(work, 'commits'), BENCH_JOURNAL: 'sqlite' });
  if (process.env.BENCH_NODE_FLAGS) writeFileSync(join(tmpdir(), `wb-bench-latency-bridge-${bridges}.out`), run.stdout);
  const { outcome, ok, uncertain, requests } = bridgeSummary(run.stdout);
  const { commits, onMain } = commitWait(join(work, 'commits'));
  const note = `exit ${run.code}, ${outcome} ok ${ok} uncertain ${uncertain} requests ${requests}; `
    + `${commits.commits} journal commits held their thread ${(commits.ms / 1000).toFixed(2)} s (${(onMain.ms / 1000).toFixed(2)} s on the main thread), `
    + `${commits.syncs} syncs of the log ${(commits.syncMs / 1000).toFixed(2)} s; ${serviceLoad(run.service, run.elapsed)}`;
  return { run, load, note };
}

console.log(`file            ${ROWS.toLocaleString('en')} adjustments, batches of ${BATCH}, emulator latency ${LATENCY_MS} ms, ${RUNS} run(s) each; bridge code ${bridgeCode}`);
for (const inFlight of IN_FLIGHT) {
  // no latency (loopback): no bound, the figures show what a bigger window costs where nothing is to be hidden
  const bound = ROWS / ((BATCH * inFlight) / (LATENCY_MS / 1000));
  const results: { yardstick: Measured[]; bridge: Measured[] } = { yardstick: [], bridge: [] };
  for (let r = 0; r < RUNS; r++) {
    // alternating which goes first: the load drifts
    if (r % 2 === 0) {
      results.yardstick.push(await yardstick(inFlight));
      results.bridge.push(await bridge(inFlight));
    } else {
      results.bridge.push(await bridge(inFlight));
      results.yardstick.push(await yardstick(inFlight));
    }
  }
  for (const [name, list] of Object.entries(results)) {
    for (const { run, load, note } of list) {
      console.log(`${String(inFlight).padStart(2)} in flight  ${name.padEnd(9)} elapsed ${run.elapsed.toFixed(2)} s, ${Math.round(ROWS / run.elapsed).toLocaleString('en')} rows/s, `
        + `${bound > 0 ? `${(run.elapsed / bound).toFixed(2)}× the bound ${bound.toFixed(2)} s` : 'no bound'}; CPU ${run.cpu.toFixed(1)} s, emulator ${run.emulatorCpu.toFixed(1)} s; peak RSS ${mb(run.peak)}; load ${loads(load)} at its start; ${note}`);
    }
  }
  const elapsed = (list: Measured[]) => median(list.map((m) => m.run.elapsed));
  const ratio = elapsed(results.yardstick) / elapsed(results.bridge);
  // Throughput while requests went out, start-up and the end of a run left out (the emulator's first arrival to last answer).
  const span = (list: Measured[]) => median(list.map((m) => m.run.service?.spanMs ?? Number.NaN));
  const sending = span(results.yardstick) / span(results.bridge);
  console.log(`${String(inFlight).padStart(2)} in flight  ratio     bridge ÷ yardstick throughput ${ratio.toFixed(2)}× (goal ≥ 0.95×), `
    + `${bound > 0 ? `bridge elapsed ÷ bound ${(elapsed(results.bridge) / bound).toFixed(2)}× (goal ≤ 1.2×)` : 'no bound'}${RUNS > 1 ? ' (medians)' : ''}; `
    + `while sending (first request to last answer) ${sending.toFixed(2)}×; `
    + `the bridge's cost: after a crash up to ${inFlight} requests (${(inFlight * BATCH).toLocaleString('en')} rows) in doubt, ${inFlight} requests at once on the service`);
}
console.log(`machine load    ${loads(loadAtStart)} at start, ${loads(loadavg())} at end (1/5/15 min) on ${cpus().length} cores`);
rmSync(dir, { recursive: true, force: true });
