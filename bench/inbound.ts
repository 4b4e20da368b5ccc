// 1,000,000 adjustments through the whole inbound pipeline (drop → mapping → journal → client → result file →
// archive) against the emulator on loopback, the emulator in its own process so its memory is not counted; in the
// same invocation the yardstick bench/inbound-baseline.ts (csv-parse → batches → POST, no guarantees) applies the
// same file against an emulator of its own, twice: in batches of 100 and in the bridge's batches. Prints, for each:
// elapsed time, rows/s, CPU per row and per emulator item, peak RSS; for the bridge also the time its journal commits
// held their thread (the WAL write), the syncs that made them durable (fdatasync, off the thread), and the garbage
// collection pauses of its main thread and of the others (with the count of full collections, bench/commit-probe.mjs).
// `--journal postgres` runs the bridge on a PostgreSQL journal instead (a server of its own, started here with
// test/support/postgres.ts: fsync and synchronous_commit on, a fresh database), `--journal both` runs it on each
// (SQLite first) and prints both and their ratio, with the server's CPU and the time the bridge waited for COMMIT.
// npx tsx bench/inbound.ts [rows] [batch] [--journal sqlite|postgres|both]     BENCH_BASELINE=0 skips the baseline.
// BENCH_SFTP_RTT=ms: the bridge reads the file from, and writes its result to, an SFTP drop that far away
// (bench/bench-drop.ts); the yardstick still reads the local file. BENCH_PG_RTT=ms: the PostgreSQL journal that far
// away (the server behind test/support/delay-proxy.ts), as for instances on other machines sharing it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeDrop, distantSftpFromEnv, stopDistantSftp } from './bench-drop.js';
import { allocationSummary, bridgeArgs, bridgeCode, bridgeSummary, bridgeWorkspace, busiestThreads, commitWait, gcPauses, heapFlags, loads, mb, measure, startEmulator, writeAdjustments, yardstickArgs, type Run, type Totals } from './inbound-harness.js';
import { postgresJournal, sqliteJournal } from './bench-journal.js';
import { startPostgres } from '../test/support/postgres.js';

type Engine = 'sqlite' | 'postgres';
const journalFlag = process.argv.indexOf('--journal');
const journalArg = journalFlag < 0 ? 'sqlite' : process.argv[journalFlag + 1];
if (journalArg !== 'sqlite' && journalArg !== 'postgres' && journalArg !== 'both') throw new Error(`--journal takes sqlite, postgres or both, not ${journalArg}`);
const ENGINES: Engine[] = journalArg === 'both' ? ['sqlite', 'postgres'] : [journalArg];
const positional = process.argv.slice(2).filter((_, i, all) => all[i] !== '--journal' && all[i - 1] !== '--journal');
const ROWS = Number(positional[0] ?? 1_000_000);
const BATCH = Number(positional[1] ?? 1000);
// BENCH_IN_FLIGHT: services.<name>.requests_in_flight of the bridge (default 2 here, the window of the figures in
// docs/performance.md; the bridge's own default is 8), and the yardstick's window.
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 2);
// Two yardsticks, each with the bridge's window: `baseline100`, the script as the goal words it (csv-parse → batches
// of 100 → POST), and `baseline`, the same script with the bridge's batch size (stricter: a tenth of the requests).
// BENCH_BASELINE=0 skips both, BENCH_BASELINE100=0 the first.
const YARDSTICKS = [
  ...(process.env.BENCH_BASELINE100 === '0' ? [] : [{ label: 'baseline100', batch: 100 }]),
  { label: 'baseline', batch: BATCH },
];
const loadAtStart = loadavg();

const emulatorProfile = process.env.BENCH_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${join(process.env.BENCH_PROFILE, 'emulator')}`] : [];
const dir = mkdtempSync(join(tmpdir(), 'wb-bench-inbound-'));

// Written once; each bridge run gets a copy in a drop of its own (the bridge archives it).
const file = join(dir, 'ADJ_BENCH.csv');
await writeAdjustments(file, ROWS);
const size = statSync(file).size;

// The yardsticks first, each against an emulator of its own.
const baselines: Array<{ label: string; batch: number; run: Run }> = [];
if (process.env.BENCH_BASELINE !== '0') {
  for (const { label, batch } of YARDSTICKS) {
    const emulator = await startEmulator({ nodeFlags: emulatorProfile });
    const run = await measure(yardstickArgs(dir, emulator, file, batch, IN_FLIGHT), emulator);
    baselines.push({ label, batch, run });
  }
}

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

interface BridgeRun { engine: Engine; run: Run; load: number[]; commits: Totals; onMain: Totals; server?: { version: number; cpu: number } }

/** `wisbridge batch` on the file, in a drop and against an emulator of its own, on a fresh journal of the engine. */
async function runBridge(engine: Engine): Promise<BridgeRun> {
  const work = join(dir, engine);
  const server = engine === 'postgres' ? await startPostgres() : undefined;
  const journal = server ? await postgresJournal(server) : sqliteJournal;
  try {
    const emulator = await startEmulator({ nodeFlags: emulatorProfile });
    const config = bridgeWorkspace(work, file, emulator, { journal: journal.yaml, batch: BATCH, inFlight: IN_FLIGHT, sftp });
    const postmaster = server && Number(readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const before = postmaster ? serverCpu(postmaster) : undefined;
    const load = loadavg();
    const run = await measure(bridgeArgs(config), emulator, { ...process.env, BENCH_COMMIT_DIR: join(work, 'commits'), BENCH_JOURNAL: engine });
    let serverUsed: BridgeRun['server'];
    if (postmaster && before && server) {
      // The bridge's backends end when it does; their CPU counts once the postmaster has reaped them.
      for (let waited = 0; serverCpu(postmaster).children > before.children && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      serverUsed = { version: server.version, cpu: serverCpu(postmaster).cpu - before.cpu };
    }
    return { engine, run, load, ...commitWait(join(work, 'commits')), server: serverUsed };
  } finally {
    await journal.close();
    await server?.stop();
  }
}

const sftp = await distantSftpFromEnv();
const bridges: BridgeRun[] = [];
try {
  for (const engine of ENGINES) bridges.push(await runBridge(engine));
} finally {
  await stopDistantSftp(sftp);
}

const us = (seconds: number) => `${((seconds / ROWS) * 1e6).toFixed(1)} µs`;
const figures = (label: string, run: Run) => [
  `${label} elapsed ${run.elapsed.toFixed(2)} s end to end, ${Math.round(ROWS / run.elapsed).toLocaleString('en')} rows/s`,
  `${label} CPU     ${run.cpu.toFixed(1)} s = ${us(run.cpu)} a row (main thread ${run.mainCpu.toFixed(1)} s, other threads ${(run.cpu - run.mainCpu).toFixed(1)} s; busiest: ${busiestThreads(run.threads, run.pid)}); emulator ${run.emulatorCpu.toFixed(1)} s = ${us(run.emulatorCpu)} an item (sampled every 100 ms)`,
  `${label} peak RSS ${mb(run.peak)} (VmHWM, all threads; emulator separate)`,
].join('\n');
/** `bridge` is the bridge on SQLite (the name bench/inbound-runs.ts reads), `postgres` on PostgreSQL. */
const nameOf = (engine: Engine) => (engine === 'sqlite' ? 'bridge' : 'postgres');
console.log(`file            ${ROWS.toLocaleString('en')} rows, ${(size / 1e6).toFixed(1)} MB, batch size ${BATCH}, requests in flight ${IN_FLIGHT}, bridge node options ${heapFlags.join(' ') || 'none'}, the bridge's drop ${describeDrop(sftp)}`);
console.log(`bridge code     ${bridgeCode}`);
for (const { engine, run, load, commits, onMain, server } of bridges) {
  const name = nameOf(engine).padEnd(11);
  if (process.env.BENCH_NODE_FLAGS) {
    const output = join(tmpdir(), `wb-bench-inbound-${nameOf(engine)}.out`);
    writeFileSync(output, run.stdout);
    console.log(`${name} output in ${output}`);
  }
  const { outcome, ok, error, uncertain, requests } = bridgeSummary(run.stdout);
  const journal = server
    ? `PostgreSQL ${server.version} on loopback, a server of its own (fsync on, synchronous_commit=on)`
    : 'SQLite (WAL, synchronous=NORMAL, every commit synced before it is reported: src/journal/sqlite/wal-sync.ts)';
  console.log(`${name} journal ${journal}; machine load ${loads(load)} at its start`);
  console.log(`${name} outcome exit ${run.code}, ${outcome}  ok ${ok}  error ${error}  uncertain ${uncertain}; requests sent ${requests}`);
  console.log(figures(name, run));
  if (server) console.log(`${name} server CPU ${server.cpu.toFixed(1)} s = ${us(server.cpu)} a row (postmaster and its processes: backends, WAL writer, checkpointer); bridge + server ${(run.cpu + server.cpu).toFixed(1)} s`);
  const what = server ? 'COMMIT statements (round trip + WAL flush, synchronous_commit=on' : 'journal commits (the WAL write, which holds the thread';
  console.log(`${name} commit wait ${(commits.ms / 1000).toFixed(2)} s in ${commits.commits} ${what}; ${(commits.ms / Math.max(1, commits.commits)).toFixed(2)} ms each), of which ${(onMain.ms / 1000).toFixed(2)} s in ${onMain.commits} on the main thread`
    + (server ? '' : `; ${commits.syncs} syncs of the log (fdatasync, off the thread) took ${(commits.syncMs / 1000).toFixed(2)} s, ${(commits.syncMs / Math.max(1, commits.syncs)).toFixed(2)} ms each`));
  console.log(`${name} GC      ${gcPauses({ commits, onMain })}`);
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
