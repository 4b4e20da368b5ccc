// A night of many small files: 300 files of 1,000 adjustments through one pass of an inbound job (runInboundJob, as
// `wisbridge run` starts it at a scheduled time: the process is up already, so its start-up is not timed) against
// the emulator answering every request 40 ms late (its fault `latency_ms`), in its own process. Once per
// files_in_flight setting, each on a fresh emulator, journal and drop; the default runs first and again last, so a
// drift of the machine's speed shows. Prints for each: elapsed, the bound (requests ÷ requests at once × latency,
// requests at once = files_in_flight × requests_in_flight, within max_requests_in_flight), elapsed ÷ bound, the
// CPU of the pass (all its threads; the kernel's share of it too) and of the emulator (on two cores their sum over 2 is a floor of the elapsed
// time too), the requests the emulator saw, the most it answered at once and how many on average (their summed time ÷
// elapsed: below requests at once, the bridge's side of each request's cycle shows), the peak RSS of the process that ran
// the pass, the load.
// npx tsx bench/files.ts [files_in_flight ...]   (default: the default, 1, 2, 8, 16, the default again)
// BENCH_ALLOC=FILE samples the pass's main-thread allocations into FILE; BENCH_LOG=FILE writes its debug log there;
// BENCH_NODE_FLAGS passes more flags to the pass (e.g. --trace-gc-nvp), whose output then goes to $TMPDIR/wb-bench-files-N.out.
// BENCH_FILES (300), BENCH_ROWS (1000), BENCH_LATENCY (40 ms), BENCH_BATCH (the service's default batch_size),
// BENCH_IN_FLIGHT (8, the default of writes read back, at which the night's figures were measured; set in the config); BENCH_HEAP_MB / BENCH_SEMI_MB instead of production's
// heap caps (bench/inbound-harness.ts). BENCH_SFTP_RTT=ms: the files come from, and their
// results go to, an SFTP drop (OpenSSH on loopback, as the tests start it) behind a link that adds that round trip
// (test/support/delay-proxy.ts). BENCH_JOURNAL=postgres: the journal on a PostgreSQL server of the bench's own, a fresh
// database a run, BENCH_PG_RTT=ms away (bench/bench-journal.ts); BENCH_LEASES=1: the pass runs as an instance of
// `wisbridge run`, a lease on each file (bench/files-pass.mjs). The pass runs from dist/ when the build is current (npm run build), else from the sources
// through tsx.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { inboundJobSchema, serviceSchema } from '../src/config/schema.js';
import { READ_BACK_REQUESTS_IN_FLIGHT } from '../src/pipeline/requests-in-flight.js';
// @ts-expect-error plain JavaScript module without types
import { runsBuild } from '../bin/build-state.js';
// @ts-expect-error plain JavaScript module without types
import { procCpu } from './measure.mjs';
import { benchDrop, describeDrop, distantSftpFromEnv, stopDistantSftp } from './bench-drop.js';
import { postgresJournal, sqliteJournal } from './bench-journal.js';
import { startPostgres } from '../test/support/postgres.js';
import { ADJUSTMENT_SKUS, ADJUSTMENTS_MAPPING, allocationSummary, commitWait, extraNodeFlags, heapFlags, root, serviceLoad, serviceSeen, startEmulator, type ServiceSeen, type Totals } from './inbound-harness.js';

const FROM_BUILD = runsBuild() as boolean;
const FILES = Number(process.env.BENCH_FILES ?? 300);
const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY ?? 40);
const BATCH = Number(process.env.BENCH_BATCH ?? serviceSchema.shape.batch_size.parse(undefined));
const REQUESTS_IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? READ_BACK_REQUESTS_IN_FLIGHT);
const MAX_REQUESTS = serviceSchema.shape.max_requests_in_flight.parse(undefined);
const DEFAULT_FILES_IN_FLIGHT = inboundJobSchema.shape.files_in_flight.parse(undefined);
const settings = process.argv.length > 2 ? process.argv.slice(2).map(Number)
  : [DEFAULT_FILES_IN_FLIGHT, ...[1, 2, 8, 16].filter((n) => n !== DEFAULT_FILES_IN_FLIGHT), DEFAULT_FILES_IN_FLIGHT];

const dir = mkdtempSync(join(tmpdir(), 'wb-bench-files-'));
// Positive quantities of plain goods: every row applies.
const skus = ADJUSTMENT_SKUS;
const template = join(dir, 'files');
mkdirSync(template);
for (let f = 0; f < FILES; f++) {
  let text = 'SKU,QTY,REASON,REF,COMPANY\n';
  for (let r = 0; r < ROWS; r++) text += `${skus[(f * ROWS + r) % skus.length]},${1 + (r % 5)},bench,F${f}-${r},ACME\n`;
  writeFileSync(join(template, `ADJ_${String(f).padStart(4, '0')}.csv`), text);
}

/** The main thread's event loop delay over the pass, in ms, and the share of the pass it was busy. */
interface LoopDelay { mean: number; p50: number; p99: number; busy: number }

interface Figures { loop: LoopDelay; filesInFlight: number; elapsed: number; cpu: number; kernelCpu: number; emulatorCpu: number; bound: number; requests: number; peak: number; service: ServiceSeen; rss: number; load: number[]; files: number; commits: Totals }

const sftp = await distantSftpFromEnv();
const journalEngine = process.env.BENCH_JOURNAL ?? 'sqlite';
if (journalEngine !== 'sqlite' && journalEngine !== 'postgres') throw new Error(`BENCH_JOURNAL takes sqlite or postgres, not ${journalEngine}`);
const pgServer = journalEngine === 'postgres' ? await startPostgres() : undefined;

async function run(filesInFlight: number): Promise<Figures> {
  const work = join(dir, `run-${filesInFlight}-${Date.now()}`);
  mkdirSync(join(work, 'mappings'), { recursive: true });
  const drop = benchDrop(work, readdirSync(template).map((name) => join(template, name)), sftp);
  const emulator = await startEmulator({ latencyMs: LATENCY_MS });
  const journal = pgServer ? await postgresJournal(pgServer) : sqliteJournal;
  try {
    writeFileSync(join(work, 'token'), emulator.token);
    writeFileSync(join(work, 'mappings', 'adjustments.yaml'), ADJUSTMENTS_MAPPING);
    writeFileSync(join(work, 'wisbridge.yaml'), [
      journal.yaml, 'mappings: mappings',
      `services:\n  wis:\n    url: ${emulator.url}\n    token: { file: token }\n    batch_size: ${BATCH}\n    requests_in_flight: ${REQUESTS_IN_FLIGHT}`,
      `drops:\n  wms:\n${drop.yaml}`,
      `inbound:\n  - { name: bench, drop: wms, service: wis, files_in_flight: ${filesInFlight} }`, 'log: { level: warn }', '',
    ].join('\n'));
    const load = loadavg();
    // With the Node options of production (heap caps), as deploy/ runs the bridge.
    const emulatorCpuBefore = procCpu(`/proc/${emulator.child.pid}/stat`) as number;
    // BENCH_PROFILE=DIR: a CPU profile of the pass (node --cpu-prof) written there.
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    // The journal's commits and the time they kept the pass waiting (bench/commit-probe.mjs).
    const commitDir = join(work, 'commits');
    mkdirSync(commitDir);
    const probe = ['--import', new URL('./commit-probe.mjs', import.meta.url).href];
    // BENCH_ALLOC=FILE: the main thread's allocations (bench/alloc-probe.mjs), summed up after the run.
    if (process.env.BENCH_ALLOC) probe.push('--import', new URL('./alloc-probe.mjs', import.meta.url).href);
    // The pass runs in a process of its own (bench/files-pass.mjs), so its peak RSS is the bridge's alone: from dist/
    // under plain node when the build is current (what production runs), else from the sources through tsx.
    const from = FROM_BUILD ? 'dist' : 'src';
    const child = spawn(process.execPath, [...heapFlags, ...profile, ...extraNodeFlags, ...probe, ...(FROM_BUILD ? [] : ['--import', 'tsx']), join(root, 'bench/files-pass.mjs'), from, join(work, 'wisbridge.yaml')], {
      stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, BENCH_COMMIT_DIR: commitDir },
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const [code] = (await once(child, 'exit')) as [number];
    if (code !== 0) throw new Error(`the pass exited ${code} (files_in_flight ${filesInFlight})`);
    if (extraNodeFlags.length > 0) writeFileSync(join(tmpdir(), `wb-bench-files-${filesInFlight}.out`), out);
    const result = out.split('\n').find((line) => line.startsWith('RESULT '));
    if (!result) throw new Error(`the pass printed no result (files_in_flight ${filesInFlight})`);
    const { elapsed, rss, notDone, cpu, kernelCpu, loop } = JSON.parse(result.slice('RESULT '.length)) as { elapsed: number; rss: number; notDone: string[]; cpu: number; kernelCpu: number; loop: LoopDelay };
    const emulatorCpu = procCpu(`/proc/${emulator.child.pid}/stat`) as number - emulatorCpuBefore;
    if (notDone.length > 0) throw new Error(`${notDone.length} files not done (files_in_flight ${filesInFlight}): ${notDone[0]}`);
    const seen = await serviceSeen(emulator.url);
    const atOnce = Math.min(filesInFlight * REQUESTS_IN_FLIGHT, MAX_REQUESTS);
    const bound = (seen.requests / atOnce) * (LATENCY_MS / 1000);
    const { commits } = commitWait(commitDir);
    if (process.env.BENCH_ALLOC) console.log(allocationSummary(process.env.BENCH_ALLOC));
    return { filesInFlight, elapsed, cpu, kernelCpu, emulatorCpu, bound, requests: seen.requests, peak: seen.peak, service: seen, loop, rss, load, commits, files: readdirSync(drop.outbox).length };
  } finally {
    emulator.child.kill('SIGTERM');
    await once(emulator.child, 'exit');
    await journal.close();
    rmSync(work, { recursive: true, force: true });
    drop.cleanup();
  }
}

console.log(`files           ${FILES} of ${ROWS} adjustments, batch size ${BATCH}, requests_in_flight ${REQUESTS_IN_FLIGHT}, max_requests_in_flight ${MAX_REQUESTS}, latency ${LATENCY_MS} ms; ${describeDrop(sftp)}; the journal ${pgServer ? `PostgreSQL ${pgServer.version}${process.env.BENCH_PG_RTT ? `, ${process.env.BENCH_PG_RTT} ms away` : ' on loopback'}` : 'SQLite'}${process.env.BENCH_LEASES === '1' ? ', in lease mode' : ''}; default files_in_flight ${DEFAULT_FILES_IN_FLIGHT}; the pass from ${FROM_BUILD ? 'dist/ (compiled by npm run build)' : 'src/ through tsx (dist/ missing or older than src/: npm run build)'}`);
try {
  for (const setting of settings) {
    const f = await run(setting);
    console.log(`files_in_flight ${String(f.filesInFlight).padStart(2)}: elapsed ${f.elapsed.toFixed(2)} s, bound ${f.bound.toFixed(2)} s, elapsed/bound ${(f.elapsed / f.bound).toFixed(2)}, `
      + `bridge CPU ${f.cpu.toFixed(1)} s (${f.kernelCpu.toFixed(1)} s of it in the kernel), emulator CPU ${f.emulatorCpu.toFixed(1)} s, ${f.requests} requests, at most ${f.peak} at once, ${serviceLoad(f.service, f.elapsed)}, main thread busy ${(f.loop.busy * 100).toFixed(0)} % of the pass, its event loop delay mean ${f.loop.mean.toFixed(1)} ms (p50 ${f.loop.p50.toFixed(1)}, p99 ${f.loop.p99.toFixed(1)}), ${f.files} result files, ${f.commits.commits} journal commits held their thread ${(f.commits.ms / 1000).toFixed(2)} s, ${f.commits.syncs} syncs of the log ${(f.commits.syncMs / 1000).toFixed(2)} s, peak RSS ${(f.rss / 1024 / 1024).toFixed(0)} MB, load ${f.load.map((x) => x.toFixed(2)).join(' ')} at start`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  await stopDistantSftp(sftp);
  await pgServer?.stop();
}
