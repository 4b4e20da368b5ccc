// Start-up time of the CLI as production runs it (the compiled build, dist/): each command in a child process, N runs
// each, the commands alternating so that a change of the machine's load spreads over all of them. Prints the median,
// min and max wall time of each and its median over bare Node's, and the median CPU time (user + system, from
// /usr/bin/time when it is there): on a loaded machine the CPU time varies less than the wall time.
//   npm run build && npx tsx bench/startup.ts [runs=10]
// BENCH_BASELINE=DIR also runs each wisbridge command of the install in DIR (another build of the bridge, e.g. of
// the main branch, with bin/, dist/ and node_modules/), alternating with this one: a before/after in one sitting.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startupWorkspace } from '../test/support/startup-workspace.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/wisbridge.js');
const runs = Number(process.argv[2] ?? 10);

const { runsBuild } = (await import(join(ROOT, 'bin/build-state.js'))) as { runsBuild: () => boolean };
if (!runsBuild()) {
  process.stderr.write('dist/ is older than src/ (or WISBRIDGE_SOURCES=1): run `npm run build` first, the bench measures the build\n');
  process.exit(1);
}

const ws = startupWorkspace(ROOT);
const baseline = process.env.BENCH_BASELINE;
// Each build keeps its cache of checked mapping definitions and configuration (src/util/check-cache.ts) apart: one cache, stamped by
// the build that wrote it last, would be checked again at every run of the other build.
const cacheOf = (build: string) => ({ ...process.env, XDG_CACHE_HOME: join(ws.dir, `cache-${build}`) });
const cases: { name: string; args: string[]; exit: number; env?: NodeJS.ProcessEnv }[] = [
  { name: 'node -e ""', args: ['-e', ''], exit: 0 },
  { name: 'node importing csv-parse and undici', args: ['--input-type=module', '-e', "await import('csv-parse'); await import('undici');"], exit: 0 },
  { name: 'wisbridge --version', args: [BIN, '--version'], exit: 0 },
  { name: 'wisbridge --help', args: [BIN, '--help'], exit: 0 },
  { name: 'wisbridge status', args: [BIN, 'status', '--config', ws.config], exit: 0 },
  { name: 'wisbridge batch (empty inbox)', args: [BIN, 'batch', '--config', ws.config], exit: 0 },
  { name: 'wisbridge config check', args: [BIN, 'config', 'check', '--config', ws.config], exit: 0 },
];
if (baseline) {
  const ours = cases.filter((c) => c.args[0] === BIN);
  cases.push(...ours.map((c) => ({ ...c, name: `${c.name} (baseline)`, args: [join(baseline, 'bin/wisbridge.js'), ...c.args.slice(1)], env: cacheOf('baseline') })));
  for (const c of ours) c.env = cacheOf('this');
}

const TIME = '/usr/bin/time';
const hasTime = existsSync(TIME);

/** Wall and CPU time (ms) of one run of a case; CPU NaN without /usr/bin/time. */
function once(c: (typeof cases)[number]): { wall: number; cpu: number } {
  const cpuFile = join(ws.dir, 'cpu');
  const [command, args] = hasTime ? [TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...c.args]] : [process.execPath, c.args];
  const started = performance.now();
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: c.env });
  const wall = performance.now() - started;
  if (r.status !== c.exit) throw new Error(`${c.name}: exit ${r.status}\n${r.stderr}`);
  const cpu = hasTime ? readFileSync(cpuFile, 'utf8').trim().split(/\s+/).slice(-2).reduce((sum, s) => sum + Number(s) * 1000, 0) : Number.NaN;
  return { wall, cpu };
}

try {
  // The first batch creates the journal, so that status reads an existing one, and each build's first fills its cache.
  for (const c of cases.filter((c) => c.name.startsWith('wisbridge batch'))) once(c);
  const times = new Map(cases.map((c) => [c.name, [] as number[]]));
  const cpus = new Map(cases.map((c) => [c.name, [] as number[]]));
  const loadBefore = loadavg()[0];
  for (let i = 0; i < runs; i++) for (const c of cases) {
    const { wall, cpu } = once(c);
    times.get(c.name)!.push(wall);
    cpus.get(c.name)!.push(cpu);
  }
  const loadAfter = loadavg()[0];
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const bare = median(times.get(cases[0].name)!);
  const bareCpu = median(cpus.get(cases[0].name)!);
  const sec = (ms: number) => (ms / 1000).toFixed(2);
  process.stdout.write(`${runs} runs each, alternating; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after\n`);
  process.stdout.write(`${'command'.padEnd(44)}${'median'.padStart(8)}${'min'.padStart(8)}${'max'.padStart(8)}  over bare Node     CPU  over bare Node\n`);
  for (const c of cases) {
    const xs = times.get(c.name)!;
    const m = median(xs);
    const cpu = median(cpus.get(c.name)!);
    const over = (a: number, b: number) => (c === cases[0] ? '' : `${a >= b ? '+' : ''}${sec(a - b)} s`);
    process.stdout.write(`${c.name.padEnd(44)}${sec(m).padStart(8)}${sec(Math.min(...xs)).padStart(8)}${sec(Math.max(...xs)).padStart(8)}  ${over(m, bare).padEnd(14)}${sec(cpu).padStart(8)}  ${over(cpu, bareCpu)}\n`);
  }
} finally {
  rmSync(ws.dir, { recursive: true, force: true });
}
