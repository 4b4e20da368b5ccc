// bench/inbound.ts N times in a row (each a fresh file, journal and emulators), then the medians: one run says
// little on a machine whose speed drifts ±10 % between runs (docs/pipeline.md, Sixth round). Environment as for
// bench/inbound.ts (BENCH_IN_FLIGHT, BENCH_HEAP_MB, ...; not BENCH_BASELINE=0: the ratio is the point).
// npx tsx bench/inbound-runs.ts [runs=5] [rows] [batch]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 5);
const rest = process.argv.slice(3);
const root = new URL('..', import.meta.url).pathname;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const figure = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);

const rows: { bridge: number; baseline: number; ratio: number; rss: number }[] = [];
for (let i = 1; i <= runs; i++) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench/inbound.ts'), ...rest], { encoding: 'utf8', env: { ...process.env, BENCH_BASELINE: '1' } });
  const out = r.stdout;
  const row = {
    bridge: figure(out, /^bridge +elapsed ([\d.]+) s/m),
    baseline: figure(out, /^baseline +elapsed ([\d.]+) s/m),
    ratio: figure(out, /^ratio +bridge \/ baseline elapsed ([\d.]+)×/m),
    rss: figure(out, /^bridge +peak RSS (\d+) MB/m),
  };
  if (r.status !== 0 || Number.isNaN(row.ratio)) {
    process.stderr.write(out + r.stderr);
    throw new Error(`run ${i} failed (exit ${r.status})`);
  }
  rows.push(row);
  console.log(`run ${i}/${runs}   bridge ${row.bridge.toFixed(2)} s   yardstick ${row.baseline.toFixed(2)} s   ratio ${row.ratio.toFixed(2)}×   bridge peak RSS ${row.rss} MB`);
}
const ratios = rows.map((r) => r.ratio);
console.log(`median          bridge ${median(rows.map((r) => r.bridge)).toFixed(2)} s   yardstick ${median(rows.map((r) => r.baseline)).toFixed(2)} s   ratio ${median(ratios).toFixed(2)}× (goal ≤ 1.5×; ${ratios.filter((x) => x <= 1.5).length} of ${runs} runs within it, range ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)   peak RSS max ${Math.max(...rows.map((r) => r.rss))} MB`);
