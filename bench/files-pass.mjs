// One pass of bench/files.ts's inbound job in a process of its own, as a scheduled run starts it (the process is up,
// so its start-up is not timed): from dist/ with plain node (what production runs), or from the sources under
// `node --import tsx`. Prints one line: RESULT <json> (elapsed, CPU of all threads and the kernel's share of it, peak RSS, files not done, the main
// thread's event loop delay).
// Run by bench/files.ts: node bench/files-pass.mjs <dist|src> <config file>. BENCH_LEASES=1: as an instance of
// `wisbridge run` (registered, heartbeating, a lease on each file: the journal's lease mode).
import { createWriteStream, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const [code, configFile] = process.argv.slice(2);
const root = new URL(`../${code === 'src' ? 'src' : 'dist'}/`, import.meta.url);
const { loadConfig } = await import(new URL('config/load.js', root).href);
const { createRuntime } = await import(new URL('runtime/runtime.js', root).href);
const { runInboundJob } = await import(new URL('pipeline/index.js', root).href);

const loaded = await loadConfig(configFile);
// BENCH_LOG=FILE: the pass's log at debug level (each file's claim, result file, move and end, timed) written there.
const { createLogger } = await import(new URL('log.js', root).href);
const logTo = process.env.BENCH_LOG;
const logger = logTo ? createLogger({ level: 'debug', pretty: false, destination: createWriteStream(logTo) }) : undefined;
let leases;
let runtime;
if (process.env.BENCH_LEASES === '1') {
  const { InstanceLeases, newInstance } = await import(new URL('service/instance.js', root).href);
  const { lease_ms: leaseMs, heartbeat_ms: heartbeatMs } = loaded.config.instance;
  const stop = new globalThis.AbortController();
  leases = new InstanceLeases(() => runtime.journal(), { leaseMs, heartbeatMs }, logger ?? (await import(new URL('log.js', root).href)).silentLogger, stop.signal);
  runtime = createRuntime(loaded, { logger, journalOptions: { instance: newInstance(), leaseMs }, leases });
  await leases.start();
} else {
  runtime = createRuntime(loaded, { logger });
}
// How long the main thread's event loop made ready work wait: every answer, commit and timer of the pass waits that
// long before it runs (resolution 1 ms).
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
const started = performance.now();
const cpuBefore = process.cpuUsage();
// The share of the pass the main thread's event loop was running something rather than waiting (its utilisation).
const eluBefore = performance.eventLoopUtilization();
const report = await runInboundJob(runtime, loaded.config.inbound[0]);
const elapsed = (performance.now() - started) / 1000;
const busy = performance.eventLoopUtilization(eluBefore).utilization;
loopDelay.disable();
await leases?.retire();
await runtime.close();
const notDone = report.files.filter((f) => f.outcome !== 'done').map((f) => `${f.file} ${f.outcome} ${f.reason ?? ''}`);
const used = process.cpuUsage(cpuBefore);
// The kernel's peak of the process's resident memory, all threads (VmHWM).
const rss = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const loop = { mean: loopDelay.mean / 1e6, p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, busy };
process.stdout.write(`RESULT ${JSON.stringify({ elapsed, rss, notDone, cpu: (used.user + used.system) / 1e6, kernelCpu: used.system / 1e6, loop })}\n`);
process.exit(0);
