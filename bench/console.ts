/**
 * Operations console speed: a journal holding one file of 1,000,000 rows and 10,000 other files, served by the real
 * console over HTTP on 127.0.0.1; prints the response times of the file list (first page, filters, a deep page) and
 * of the big file's rows (first page, a page in the middle, by status), median and slowest of 20 requests each.
 * Run: npx tsx bench/console.ts [rows] [files]   (target: under 100 ms each; figures only, nothing asserted)
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startConsole } from '../src/console/mount.js';
import { AlertLog } from '../src/console/alerts.js';
import { standaloneSource } from '../src/service/standalone-console.js';
import { loadConfig } from '../src/config/load.js';
import { openJournal, type ItemOutcome, type Journal, type NewItem } from '../src/journal/index.js';
import { rawDatabase } from '../src/journal/sqlite/raw.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { startHealthServer } from '../src/service/health.js';
import { ServiceMetrics } from '../src/service/metrics.js';
import { testHooks } from '../src/journal/testing.js';

const [rows = 1_000_000, files = 10_000] = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
const dir = mkdtempSync(join(tmpdir(), 'wisbridge-bench-console-'));
const journalPath = join(dir, 'journal.sqlite');
const endpoint = 'inventory.adjustments';
const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

async function build(): Promise<{ bigId: number; middleId: number }> {
  const journal = await openJournal(journalPath);
  rawDatabase(journal).pragma('synchronous = OFF'); // building only (checkpoints skip their syncs; each write still waits for WalSync's): the bench measures reads
  const started = process.hrtime.bigint();
  const batch = 1000;
  // `into`: the journal, or a unit of work on it (a small file is added in one).
  const addFile = async (into: Journal, name: string, count: number, day: number): Promise<number> => {
    const { fileId } = await into.claimFile({ drop: 'wms', name, checksum: `c-${name}`, size: count * 40, mapping: 'inventory-adjustments' });
    for (let first = 0; first < count; first += batch) {
      const items: NewItem[] = [];
      const bodies: string[] = [];
      const outcomes: ItemOutcome[] = [];
      for (let seq = first; seq < Math.min(first + batch, count); seq++) {
        const sku = `SKU-${String(seq % 50_000).padStart(6, '0')}`;
        items.push({ seq, endpoint, docKey: sku, lines: [seq + 2] });
        bodies.push(`{"product_code":"${sku}","quantity":1,"reference":"R-${seq}"}`);
        // 1 % of the rows failed, 0.1 % uncertain: what the status filters look for.
        if (seq % 100 === 7) outcomes.push({ seq, status: 'error', messages: [`insufficient stock of ${sku}`] });
        else if (seq % 1000 === 3) outcomes.push({ seq, status: 'uncertain', messages: ['reset'], hint: `check the stock of ${sku}` });
        else outcomes.push({ seq, status: 'ok', result: { move_id: seq } });
      }
      await into.transaction(async (tx) => {
        const id = await testHooks(tx).recordBatch(fileId, endpoint, items, { sent: true, bodies: `[${bodies.join(',')}]` });
        await tx.completeRequest(id, outcomes);
      });
    }
    await into.finishFile(fileId);
    const at = new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString();
    rawDatabase(journal).prepare('UPDATE files SET claimed_at = ?, finished_at = ? WHERE id = ?').run(at, at, fileId);
    return fileId;
  };
  let middleId = 0;
  for (let i = 0; i < files; i++) {
    const id = await journal.transaction((tx) => addFile(tx, `KORR_${String(i).padStart(6, '0')}.csv`, 10, Math.floor(i / 20)));
    if (i === Math.floor(files / 2)) middleId = id;
  }
  const bigId = await addFile(journal, 'KORR_BIG.csv', rows, Math.floor(files / 20) + 1);
  await journal.close();
  process.stdout.write(`built ${rows.toLocaleString('en')} rows of one file + ${files.toLocaleString('en')} files of 10 rows in ${(ms(started) / 1000).toFixed(1)} s; ` +
    `journal ${(statSync(journalPath).size / 2 ** 20).toFixed(0)} MiB\n`);
  return { bigId, middleId };
}

const { bigId, middleId } = await build();
const token = 'bench-console-token';
process.env.WISBRIDGE_BENCH_CONSOLE_TOKEN = token;
const configFile = join(dir, 'wisbridge.yaml');
writeFileSync(configFile, [
  `journal: ${journalPath}`, 'services:', '  wis: { url: "http://127.0.0.1:9", token: { env: WISBRIDGE_BENCH_CONSOLE_TOKEN } }',
  'drops:', `  wms: { type: local, root: ${join(dir, 'drop')} }`, 'inbound:', '  - { name: stock, drop: wms, service: wis }',
  'console: { auth: { bearer_token: { env: WISBRIDGE_BENCH_CONSOLE_TOKEN } } }', 'log: { level: fatal }', '',
].join('\n'));
const loaded = await loadConfig(configFile);
const runtime = createRuntime(loaded);
const journal = await runtime.journal();
const handler = await startConsole(loaded, standaloneSource(runtime, new AlertLog()));
const server = await startHealthServer('127.0.0.1', 0, new ServiceMetrics(() => journal.backlog(), { defaultMetrics: false }), () => ({ healthy: true, body: {} }), handler);

async function time(label: string, path: string, expect: string, target = 100): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const start = process.hrtime.bigint();
    const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    if (i > 0) times.push(ms(start)); // the first request prepares the statements
    if (res.status !== 200 || !text.includes(expect)) throw new Error(`${path}: ${res.status}, "${expect}" not in the page`);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const max = times[times.length - 1];
  process.stdout.write(`${label.padEnd(48)} median ${median.toFixed(1).padStart(6)} ms   slowest ${max.toFixed(1).padStart(6)} ms   ${median < target ? 'ok' : `OVER ${target} ms`}\n`);
}

process.stdout.write(`load ${loadavg()[0].toFixed(2)}; GET over HTTP, 20 requests each after one warm-up\n`);
await time('file list, first page', '/console/files', 'KORR_BIG.csv');
await time('file list, deep page (before the middle file)', `/console/files?before=${middleId}`, 'older files');
await time('file list, status=failed', '/console/files?status=failed', 'KORR_');
await time('file list, job=stock', '/console/files?job=stock', 'KORR_');
await time('file list, date (one day)', '/console/files?date=2026-01-05', 'KORR_');
await time('file list, name contains', '/console/files?name=korr_00009', 'KORR_00009');
await time('big file rows, first page', `/console/files/${bigId}`, 'next rows');
const at = (share: number) => Math.floor(rows * share);
await time(`big file rows, page at row ${at(0.5).toLocaleString('en')}`, `/console/files/${bigId}?after=${at(0.5)}`, 'next rows');
await time(`big file rows, last page`, `/console/files/${bigId}?after=${rows - 100}`, 'data-seq');
await time('big file rows, status=error (from 40 %)', `/console/files/${bigId}?status=error&after=${at(0.4)}`, 'next rows');
await time('big file rows, status=uncertain', `/console/files/${bigId}?status=uncertain`, 'data-status="uncertain"');
await time('big file rows, status=ok (from 70 %)', `/console/files/${bigId}?status=ok&after=${at(0.7)}`, 'next rows');
await time('uncertain rows of all files', '/console/uncertain', 'resolve');
await time('overview (backlog, jobs, journal size)', '/console', 'Journal:');
// Search across files (target 50 ms): a reference carried by one row of the big file, a SKU (the document key) carried
// by a row of every 50th block (200 rows at 10M: every index row read to count them, the 50 blocks of the first page
// opened, then the second page), a reference every file carried (a row of each small file and of the big one), and a term no row carried (every index row read).
const sku = 'SKU-012345';
await time('search: one reference (one row of the big file)', `/console/search?q=R-${at(0.5) + 1}`, 'data-seq', 50);
await time('search: a SKU (document key), first page', `/console/search?q=${sku}`, 'data-seq', 50);
const first = await (await fetch(`${server.url}/console/search?q=${sku}`, { headers: { authorization: `Bearer ${token}` } })).text();
const second = /<a id="next" href="([^"]+)"/.exec(first)?.[1]?.replaceAll('&amp;', '&');
if (second) await time('search: the same SKU, second page', second, 'data-seq', 50);
await time('search: R-3, carried by every file (10,001 blocks)', '/console/search?q=R-3', 'data-seq', 50);
await time('search: nowhere (every index row read)', '/console/search?q=SO-1011', 'no row carried it', 50);
process.stdout.write(`${/<p id="search-summary">([\s\S]*?)<\/p>/.exec(first)?.[1]?.replace(/<[^>]+>/g, '') ?? 'no summary'}\n`);
await server.close();
await runtime.close();
rmSync(dir, { recursive: true, force: true });
