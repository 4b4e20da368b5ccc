// Where a process's CPU goes, thread by thread, from Linux perf's samples: what V8's --cpu-prof cannot say. Its
// profile samples wall time, so a thread preempted inside a call (postMessage waking the thread it posts to, on two
// busy cores) is charged with the time it did not run; perf samples CPU only, native frames included (V8's string
// table, SQLite, the kernel).
//
//   BENCH_BASELINE=0 BENCH_NODE_FLAGS=--perf-basic-prof npx tsx bench/inbound.ts &
//   perf record -F 999 -a -o /tmp/perf.data -- sleep 16
//   perf script -i /tmp/perf.data -F pid,tid,ip,sym,dso | node bench/perf-threads.mjs [symbols=15] [threads=6]
//
// --perf-basic-prof names the JIT's code (/tmp/perf-PID.map; it also leaves isolate-*-v8.log files in the working
// folder); without it JavaScript shows as [unknown]. Prints, per thread (pid/tid, busiest first), its samples and
// its busiest symbols; a sample is 1 ms of CPU at -F 999.
import { createInterface } from 'node:readline';

const topSymbols = Number(process.argv[2] ?? 15);
const topThreads = Number(process.argv[3] ?? 6);
// A sample on one line (`pid/tid ip symbol (dso)`), or, recorded with -g, `pid/tid` alone and its stack below,
// innermost frame first.
const SAMPLE = /^\s*(\d+)\/(\d+)\s+[0-9a-f]+\s+(.*?)\s+\(([^)]*)\)\s*$/;
const HEADER = /^\s*(\d+)\/(\d+)\s*$/;
const FRAME = /^\s+[0-9a-f]+\s+(.*?)\s+\(([^)]*)\)\s*$/;

/** thread → symbol → samples */
const threads = new Map();
let header;
for await (const line of createInterface({ input: process.stdin })) {
  let m = SAMPLE.exec(line);
  if (!m) {
    const h = HEADER.exec(line);
    if (h) {
      header = h;
      continue;
    }
    const f = header && FRAME.exec(line);
    if (!f) continue;
    m = [line, header[1], header[2], f[1], f[2]];
    header = undefined;
  }
  if (m[1] === '0') continue; // pid 0: the idle task
  const [, pid, tid, symbol, dso] = m;
  const name = symbol === '[unknown]' ? `[unknown] ${dso.split('/').pop()}` : symbol.replace(/\(.*$/, '').slice(0, 110);
  const thread = `${pid}/${tid}`;
  const symbols = threads.get(thread) ?? new Map();
  threads.set(thread, symbols);
  symbols.set(name, (symbols.get(name) ?? 0) + 1);
}

const total = (symbols) => [...symbols.values()].reduce((a, b) => a + b, 0);
for (const [thread, symbols] of [...threads].sort((a, b) => total(b[1]) - total(a[1])).slice(0, topThreads)) {
  const all = total(symbols);
  console.log(`${thread}  ${all} samples`);
  for (const [name, n] of [...symbols].sort((a, b) => b[1] - a[1]).slice(0, topSymbols)) {
    console.log(`${String(n).padStart(7)} ${((100 * n) / all).toFixed(1).padStart(5)} %  ${name}`);
  }
}
