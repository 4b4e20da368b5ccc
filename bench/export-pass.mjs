// One export pass of bench/export.ts in a process of its own, as `wisbridge export` runs it: from dist/ with plain
// node (no TypeScript loader: under tsx's hooks a worker thread takes ~120 ms longer to load its modules), or from
// the sources under `node --import tsx`. Prints one line: RESULT <json>.
// Run by bench/export.ts: node bench/export-pass.mjs <dist|src> <config file> [tuning json]
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { measured, peakRssBytes } from './measure.mjs';

const [code, configFile, tuningJson] = process.argv.slice(2);
const root = new URL(`../${code === 'src' ? 'src' : 'dist'}/`, import.meta.url);
const { loadConfig } = await import(new URL('config/load.js', root).href);
const { createRuntime } = await import(new URL('runtime/runtime.js', root).href);
const { runExportJob } = await import(new URL('export/index.js', root).href);

const tuning = tuningJson ? JSON.parse(tuningJson, (_, v) => (v === 'Infinity' ? Infinity : v)) : undefined;
const loaded = await loadConfig(configFile);
const runtime = createRuntime(loaded);
try {
  const { result: summary, seconds, cpu, delayMs, gc } = await measured(() => runExportJob(runtime, loaded.config.exports[0], { tuning }));
  const outbox = join(loaded.config.drops.wms.root, 'outbox');
  const bytes = readdirSync(outbox).reduce((n, f) => n + statSync(join(outbox, f)).size, 0);
  const out = {
    seconds, cpu, delayMs, gc, bytes, peakRss: peakRssBytes(),
    exported: summary.exported, files: summary.files.length, acknowledged: summary.acknowledgements.acknowledged,
  };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
} finally {
  await runtime.close();
}
