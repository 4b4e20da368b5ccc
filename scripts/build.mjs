// `npm run build` (also run by `npm ci` through `prepare`): bundles src/ into dist/ with esbuild, copies the plain
// JavaScript modules the bundle does not take in (worker boot files), and stamps the build. bin/wisbridge.js runs
// dist/ only while the stamp is newer than every source file.
// A bundle, not one output file per source file: Node's ESM loader pays per module it resolves and reads, and the
// hundreds of small modules of the sources and of zod and yaml made up most of a command's start-up
// (docs/performance.md, start-up). Code splitting keeps what a command loads lazily (pg, the console, …) in chunks
// of its own.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
// `--out DIR`: another dist/ (test/service/bundle.test.ts builds one of its own while other tests run this one).
const out = process.argv.indexOf('--out');
const dist = out === -1 ? join(root, 'dist') : resolve(process.argv[out + 1]);
rmSync(dist, { recursive: true, force: true });
let esbuild;
try {
  esbuild = createRequire(import.meta.url)('esbuild');
} catch {
  // An install without dev dependencies (npm ci --omit=dev): no build, the bridge runs its sources through tsx.
  console.warn('wisbridge: esbuild is not installed, dist/ not built; the sources run through tsx');
  process.exit(0);
}

/**
 * The modules loaded by path rather than imported: the CLI, the worker threads' modules (named by
 * `new URL('../area/name', import.meta.url)`, see src/runtime/worker-thread.ts) and those bench/*-pass.mjs import.
 * Each keeps its path under dist/; shared code goes to dist/chunks/, at the same depth, so a path relative to
 * import.meta.url (package.json two folders up) holds wherever esbuild puts the code.
 */
const ENTRIES = [
  'cli/main', 'pipeline/batches-worker', 'export/page-worker', 'export/journal-worker',
  'config/load', 'runtime/runtime', 'pipeline/index', 'export/index', 'service/instance', 'log',
];

/** Packages left to Node: native addons, packages that load files of their own by path, and the optional ones. */
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const BUNDLED = new Set(['zod', 'yaml']);
const external = Object.keys(pkg.dependencies).filter((name) => !BUNDLED.has(name));

/**
 * zod's `locales` namespace (its error messages in some fifty languages) is exported from zod's index, and a
 * namespace used as an object (`z.object`) keeps all of it in the bundle: half of zod's bytes, parsed by every command
 * that loads zod. The bridge reports in English only (zod's default, `en`), so the namespace holds `en` alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](core|classic)[\\/]/.test(args.importer) ? { path: join(dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) =>
      ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, resolveDir: dirname(args.path), loader: 'js' }));
  },
};

await esbuild.build({
  entryPoints: ENTRIES.map((entry) => ({ in: join(src, `${entry}.ts`), out: entry })),
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  sourcemap: true,
  // yaml is CommonJS: its require() of Node's modules needs a require in the ESM bundle.
  banner: { js: "import { createRequire as __wisbridgeRequire } from 'node:module'; const require = __wisbridgeRequire(import.meta.url);" },
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
});
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.mjs')) continue;
  const from = join(entry.parentPath ?? entry.path, entry.name);
  const to = join(dist, relative(src, from));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}
if (!existsSync(join(dist, 'cli', 'main.js'))) throw new Error('wisbridge: the build made no dist/cli/main.js');
writeFileSync(join(dist, '.built'), `${new Date().toISOString()}\n`);
