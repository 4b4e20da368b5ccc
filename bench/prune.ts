/**
 * Journal prune on a large journal: FILES finished files of ITEMS items each (batches of 500, 2 % errors, so
 * both item blocks and item rows are dropped), all finished 40 days ago, pruned with a 30-day cut-off.
 * Prints the prune's duration, what it deleted, the longest event-loop stall while it ran (it yields between
 * chunks), the database size before and after, and that the pruned content is still recognised as a duplicate.
 * Run: npx tsx bench/prune.ts [files] [items-per-file]      (default 100 × 10,000 = 1,000,000 items)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openJournal, type ItemOutcome, type NewItem } from '../src/journal/index.js';
import { testHooks } from '../src/journal/testing.js';

const [files = 100, perFile = 10_000] = process.argv.slice(2).filter((a) => /^\d+$/.test(a)).map(Number);
const batchSize = 500;
const dir = mkdtempSync(join(tmpdir(), 'wisbridge-bench-prune-'));
const path = join(dir, 'journal.db');
const DAY = 24 * 3600 * 1000;
let clock = Date.now() - 40 * DAY;
const journal = await openJournal(path, { now: () => new Date(clock) });
const endpoint = 'inventory.adjustments';
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

const buildStart = performance.now();
for (let f = 0; f < files; f++) {
  const { fileId } = await journal.claimFile({ drop: 'bench', name: `KORR_${f}.csv`, checksum: f.toString(16).padStart(64, '0'), size: perFile * 60, mapping: 'adjustments' });
  for (let first = 0; first < perFile; first += batchSize) {
    const items: NewItem[] = [];
    const outcomes: ItemOutcome[] = [];
    for (let seq = first; seq < Math.min(first + batchSize, perFile); seq++) {
      const sku = `SKU-${String(seq % 50_000).padStart(6, '0')}`;
      items.push({ seq, endpoint, docKey: sku, lines: [seq + 2],
        body: JSON.stringify({ product_code: sku, quantity: (seq % 7) - 3, reference: `ADJ-${seq}`, company_code: 'ACME' }) });
      outcomes.push(seq % 50 === 7 ? { seq, status: 'error', messages: ['insufficient stock'] } : { seq, status: 'ok', result: { move_id: seq } });
    }
    const requestId = await testHooks(journal).recordBatch(fileId, endpoint, items, { sent: true });
    await journal.completeRequest(requestId, outcomes);
  }
  await journal.finishFile(fileId);
  clock += 1000;
}
clock = Date.now();
const buildMs = performance.now() - buildStart;
const before = await journal.journalStats();

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
const cpu = process.cpuUsage();
const started = performance.now();
const report = await journal.pruneJournal({ olderThan: new Date(Date.now() - 30 * DAY).toISOString() });
const pruneMs = performance.now() - started;
const cpuMs = (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1000;
delay.disable();
const after = await journal.journalStats();
const duplicate = await journal.claimFile({ drop: 'bench', name: 'again.csv', checksum: (0).toString(16).padStart(64, '0'), size: 1, mapping: 'adjustments' });
await journal.close();
rmSync(dir, { recursive: true, force: true });

const items = files * perFile;
console.log(`journal: ${files} files × ${perFile.toLocaleString('en')} items = ${items.toLocaleString('en')} items, built in ${(buildMs / 1000).toFixed(1)} s; ${mib(before.bytes)} MiB`);
console.log(`prune: ${report.files} files, ${report.items.toLocaleString('en')} item rows, ${report.blocks.toLocaleString('en')} blocks, ${report.requests.toLocaleString('en')} requests in ${(pruneMs / 1000).toFixed(2)} s ` +
  `(${Math.round(items / (pruneMs / 1000)).toLocaleString('en')} items/s, CPU ${(cpuMs / 1000).toFixed(2)} s)`);
console.log(`event loop while pruning: max stall ${(delay.max / 1e6).toFixed(1)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms, mean ${(delay.mean / 1e6).toFixed(1)} ms`);
console.log(`after: ${mib(after.bytes)} MiB on disk, ${mib(after.freeBytes)} MiB free inside (reused by later writes), ${after.prunedFiles} files pruned`);
console.log(`same content again: ${duplicate.status}; load average ${loadavg()[0].toFixed(2)} (2 cores shared)`);
