// CPU, threads, event-loop delay and peak RSS of the process running a benchmark step (Linux /proc; NaN and no
// per-thread figures elsewhere). Plain JavaScript: bench/export-pass.mjs runs it without a TypeScript loader.
import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** CPU seconds (user + system) from a /proc stat file. */
export function procCpu(statFile) {
  try {
    const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds per thread of this process (name from /proc, e.g. `node`, `libuv-worker`), by thread id. */
function threadCpu() {
  const threads = new Map();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      threads.set(tid, { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cpu: procCpu(`/proc/self/task/${tid}/stat`) });
    }
  } catch {
    // not Linux: no per-thread figures
  }
  return threads;
}

/** The last figure of every thread seen by the sampler (worker threads end before a step's figures are taken). */
const lastSeen = new Map();
let peakRss = 0;
let samples = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  // the threads' figures every 500 ms (reading /proc costs the main thread ~0.1 ms a thread)
  if (++samples % 5 === 0) for (const [tid, t] of threadCpu()) lastSeen.set(tid, t);
}, 100);
sampler.unref();

/** Garbage collections of the main thread's isolate (pauses, ms) while a measurement runs: minor and major. */
const gc = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    // kind: 1 minor (scavenge), 2 major (mark-compact), 4 incremental marking, 8 weak callbacks
    if (entry.detail?.kind === 1) (gc.minor++, (gc.minorMs += entry.duration));
    else (gc.major++, (gc.majorMs += entry.duration));
  }
}).observe({ entryTypes: ['gc'] });

export function peakRssBytes() {
  return Math.max(peakRss, process.memoryUsage.rss());
}

/**
 * Runs `work` and measures it: wall seconds, CPU of the process and of its main thread, CPU per thread (threads
 * that used more than 0.1 s, busiest first), the main thread's event-loop delay and garbage collections.
 */
export async function measured(work) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const main0 = procCpu(`/proc/self/task/${process.pid}/stat`);
  const threads0 = threadCpu();
  const endedBefore = new Set([...lastSeen.keys()].filter((tid) => !threads0.has(tid)));
  const gc0 = { ...gc };
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const result = await work();
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu0);
  const main = procCpu(`/proc/self/task/${process.pid}/stat`) - main0;
  for (const [tid, t] of threadCpu()) lastSeen.set(tid, t);
  delay.disable();
  const threads = [...lastSeen].filter(([tid]) => threads0.has(tid) || !endedBefore.has(tid))
    .map(([tid, t]) => ({ name: t.name, cpu: t.cpu - (threads0.get(tid)?.cpu ?? 0) })).filter((t) => t.cpu > 0.1)
    .sort((a, b) => b.cpu - a.cpu);
  return {
    result,
    seconds,
    cpu: { process: (used.user + used.system) / 1e6, main, threads },
    delayMs: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
    gc: { minor: gc.minor - gc0.minor, minorMs: gc.minorMs - gc0.minorMs, major: gc.major - gc0.major, majorMs: gc.majorMs - gc0.majorMs },
  };
}
