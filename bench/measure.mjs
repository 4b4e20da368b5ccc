// CPU, threads, event-loop delay, garbage collections and peak RSS of the process running a benchmark step (Linux
// /proc; NaN and no per-thread figures elsewhere). Plain JavaScript: bench/export-pass.mjs runs it without a
// TypeScript loader. Nothing runs until the first `measured` call.
import { readdirSync, readFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** CPU seconds (user + system) in the text of a /proc stat file (fields 14 and 15, 100 ticks a second). */
const statCpu = (stat) => {
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** CPU seconds of a process or thread from its /proc stat file; NaN once it is gone (or not on Linux). */
export function procCpu(statFile) {
  try {
    return statCpu(readFileSync(statFile, 'utf8'));
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
      threads.set(tid, { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cpu: statCpu(stat) });
    }
  } catch {
    // not Linux: no per-thread figures
  }
  return threads;
}

/** The last figure of every thread seen by the sampler (worker threads end before a step's figures are taken). */
const lastSeen = new Map();
let peakRss = 0;
/** Garbage collections of the main thread's isolate (pauses, ms): scavenges and mark-compacts. */
const gc = { minor: 0, minorMs: 0, major: 0, majorMs: 0 };
let started = false;

/** The RSS and thread sampler and the GC observer, from the first measurement on. */
function start() {
  if (started) return;
  started = true;
  let samples = 0;
  setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    // the threads' figures every 500 ms (reading /proc costs the main thread ~0.1 ms a thread)
    if (++samples % 5 === 0) for (const [tid, t] of threadCpu()) lastSeen.set(tid, t);
  }, 100).unref();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // incremental marking and weak callbacks are steps of a major GC, not collections of their own
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        gc.minor++;
        gc.minorMs += entry.duration;
      } else if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        gc.major++;
        gc.majorMs += entry.duration;
      }
    }
  }).observe({ entryTypes: ['gc'] });
}

export function peakRssBytes() {
  return Math.max(peakRss, process.memoryUsage.rss());
}

/**
 * Runs `work` and measures it: wall seconds, CPU of the process and of its main thread, CPU per thread (threads
 * that used more than 0.1 s, busiest first), the main thread's event-loop delay and garbage collections.
 */
export async function measured(work) {
  start();
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const main0 = procCpu(`/proc/self/task/${process.pid}/stat`);
  const threads0 = threadCpu();
  const endedBefore = new Set([...lastSeen.keys()].filter((tid) => !threads0.has(tid)));
  const gc0 = { ...gc };
  const cpu0 = process.cpuUsage();
  const begin = performance.now();
  const result = await work();
  const seconds = (performance.now() - begin) / 1000;
  const used = process.cpuUsage(cpu0);
  const main = procCpu(`/proc/self/task/${process.pid}/stat`) - main0;
  for (const [tid, t] of threadCpu()) lastSeen.set(tid, t);
  delay.disable();
  const threads = [...lastSeen].filter(([tid]) => !endedBefore.has(tid))
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
