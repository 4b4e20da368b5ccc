// bench/inbound.ts N times in a row (each a fresh file, journal and emulators), then the medians: one run says
// little on a machine whose speed drifts ±10 % between runs. Environment as for
// bench/inbound.ts (BENCH_IN_FLIGHT, BENCH_HEAP_MB, ...; not BENCH_BASELINE=0: the ratio is the point).
// npx tsx bench/inbound-runs.ts [runs=5] [rows] [batch] [--journal sqlite|postgres|both]: with PostgreSQL, also its
// times and its ratio to SQLite (`both`).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median, root } from './inbound-harness.js';

const runs = Number(process.argv[2] ?? 5);
const rest = process.argv.slice(3);
const figure = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);

const engines = rest.includes('--journal') ? rest[rest.indexOf('--journal') + 1] : 'sqlite';
const onSqlite = engines !== 'postgres';
const onPostgres = engines === 'postgres' || engines === 'both';
const rows: { bridge: number; baseline100: number; baseline: number; ratio100: number; ratio: number; rss: number; postgres: number; pgRatio: number }[] = [];
for (let i = 1; i <= runs; i++) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench/inbound.ts'), ...rest], { encoding: 'utf8', env: { ...process.env, BENCH_BASELINE: '1', BENCH_BASELINE100: '1' } });
  const out = r.stdout;
  const row = {
    bridge: figure(out, /^bridge +elapsed ([\d.]+) s/m),
    baseline100: figure(out, /^baseline100 +elapsed ([\d.]+) s/m),
    baseline: figure(out, /^baseline +elapsed ([\d.]+) s/m),
    ratio100: figure(out, /^ratio +bridge \/ baseline100 elapsed ([\d.]+)×/m),
    ratio: figure(out, /^ratio +bridge \/ baseline elapsed ([\d.]+)×/m),
    rss: figure(out, /^bridge +peak RSS (\d+) MB/m),
    postgres: figure(out, /^postgres +elapsed ([\d.]+) s/m),
    pgRatio: figure(out, /^ratio +postgres \/ sqlite elapsed ([\d.]+)×/m),
  };
  const missing = [...(onSqlite ? [row.ratio, row.ratio100] : []), ...(onPostgres ? [row.postgres] : []), ...(engines === 'both' ? [row.pgRatio] : [])];
  if (r.status !== 0 || missing.some(Number.isNaN)) {
    process.stderr.write(out + r.stderr);
    throw new Error(`run ${i} failed (exit ${r.status})`);
  }
  rows.push(row);
  const pg = onPostgres ? `   on PostgreSQL ${row.postgres.toFixed(2)} s${engines === 'both' ? ` (${row.pgRatio.toFixed(2)}× SQLite)` : ''}` : '';
  console.log(`run ${i}/${runs}   bridge ${row.bridge.toFixed(2)} s   batches of 100 ${row.baseline100.toFixed(2)} s (ratio ${row.ratio100.toFixed(2)}×)   the bridge's batches ${row.baseline.toFixed(2)} s (ratio ${row.ratio.toFixed(2)}×)   bridge peak RSS ${row.rss} MB${pg}   load ${/^machine load +([\d.]+)/m.exec(out)?.[1]} at start`);
}
const of = (pick: (r: (typeof rows)[number]) => number) => median(rows.map(pick)).toFixed(2);
const range = (values: number[]) => `${values.filter((x) => x <= 1.5).length} of ${runs} runs within 1.5×, range ${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}×`;
console.log(`median          bridge ${of((r) => r.bridge)} s   peak RSS max ${Math.max(...rows.map((r) => r.rss))} MB`);
console.log(`                yardstick in batches of 100 (the goal's) ${of((r) => r.baseline100)} s, ratio ${of((r) => r.ratio100)}× (${range(rows.map((r) => r.ratio100))})`);
console.log(`                yardstick in the bridge's batches (stricter) ${of((r) => r.baseline)} s, ratio ${of((r) => r.ratio)}× (${range(rows.map((r) => r.ratio))})`);
if (onPostgres) console.log(`                on PostgreSQL ${of((r) => r.postgres)} s${engines === 'both' ? `, ${of((r) => r.pgRatio)}× SQLite (${rows.filter((r) => r.pgRatio <= 1.5).length} of ${runs} runs within 1.5×)` : ''}`);
