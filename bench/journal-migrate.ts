/**
 * `journal migrate` throughput: a SQLite journal of a few hundred thousand rows (files with refused rows and a packed
 * request each, file events, work lists with their records), copied into a fresh PostgreSQL database of a server
 * started for the run (test/support/postgres.ts). Prints rows/s per table and overall, CPU time and peak RSS.
 * Run: npx tsx bench/journal-migrate.ts [files] [--chunk-kib N]   (default 20,000 files: about 370,000 rows; chunks of 4 MiB)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateJournal } from '../src/journal/admin/copy.js';
import { openJournal, type NewItem } from '../src/journal/index.js';
import { freshDatabase, startPostgres } from '../test/support/postgres.js';
import { testHooks } from '../src/journal/testing.js';

const args = process.argv.slice(2);
const chunkKiB = args.includes('--chunk-kib') ? Number(args[args.indexOf('--chunk-kib') + 1]) : 4096;
const files = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--chunk-kib') ?? 20_000);
const REFUSED_PER_FILE = 10;
const ITEMS_PER_REQUEST = 20;
const RECORDS_PER_EXPORT = 1_000;
const exportsCount = Math.ceil(files / 200);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const dir = mkdtempSync(join(tmpdir(), 'wisbridge-bench-migrate-'));
const path = join(dir, 'journal.sqlite');

let started = Date.now();
const journal = await openJournal(path);
const endpoint = 'inventory.adjustments';
for (let first = 0; first < files; first += 500) {
  // 500 files per unit of work: one commit each, as a busy bridge's journal would hold them after months.
  await journal.transaction(async (tx) => {
    for (let f = first; f < Math.min(first + 500, files); f++) {
      const { fileId } = await tx.claimFile({ drop: 'wms', name: `KORR_${f}.csv`, checksum: f.toString(16).padStart(64, '0'), size: 4_000, mapping: 'adjustments' });
      const items: NewItem[] = [];
      for (let seq = 0; seq < ITEMS_PER_REQUEST; seq++) {
        const sku = `SKU-${String((f * 31 + seq) % 50_000).padStart(6, '0')}`;
        items.push({ seq, endpoint, docKey: sku, lines: [seq + 2], body: { product_code: sku, quantity: (seq % 7) - 3, reference: `ADJ-${f}-${seq}`, company_code: 'ACME' } });
      }
      const requestId = await testHooks(tx).recordBatch(fileId, endpoint, items, { sent: true });
      await tx.completeRequest(requestId, items.map((item) => ({ seq: item.seq, status: 'ok' as const, result: { move_id: f * 100 + item.seq } })));
      await tx.addItems(fileId, Array.from({ length: REFUSED_PER_FILE }, (_, i) => ({
        seq: ITEMS_PER_REQUEST + i, lines: [ITEMS_PER_REQUEST + i + 2], docKey: `BAD-${i}`, status: 'error' as const, messages: [`KORR_${f}.csv, line ${i}: "3x" is not a number`],
      })));
      await tx.finishFile(fileId);
      if (f % 2 === 0) await tx.recordFileEvent({ drop: 'wms', name: `KORR_${f}.csv`, kind: 'duplicate', originalFileId: fileId });
    }
  });
}
for (let e = 0; e < exportsCount; e++) {
  const records = Array.from({ length: RECORDS_PER_EXPORT }, (_, i) => ({ id: e * RECORDS_PER_EXPORT + i + 1, number: `SO-${e * RECORDS_PER_EXPORT + i + 1}` }));
  const exportId = await journal.beginExport({ workType: 'customerShipments', fileName: `SO_WORK_${e}.csv`, records });
  await journal.markExportWritten(exportId);
}
await journal.setCursor('schedule:nightly', new Date().toISOString());
await journal.close();
const generateMs = Date.now() - started;
const bytes = statSync(path).size;

const server = await startPostgres();
try {
  const db = await freshDatabase(server);
  const perTable: string[] = [];
  const load = loadavg()[0]!;
  const cpuStart = process.cpuUsage();
  started = Date.now();
  const report = await migrateJournal(path, db.config, {
    chunkBytes: chunkKiB * 1024,
    onTable: (table, rows, ms) => perTable.push(`  ${table.padEnd(17)}${fmt(rows).padStart(10)} rows ${(ms / 1000).toFixed(2).padStart(7)} s ${fmt(rows / Math.max(ms, 1) * 1000).padStart(10)} rows/s`),
  });
  const ms = Date.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  if (!report.verified) throw new Error('the counts differ');
  console.log(`source: ${fmt(report.rows)} rows, ${(bytes / 1024 / 1024).toFixed(1)} MiB SQLite file (generated in ${(generateMs / 1000).toFixed(1)} s)`);
  console.log(`journal migrate: ${(ms / 1000).toFixed(2)} s, ${fmt(report.rows / (ms / 1000))} rows/s (checks, copy, sequences, counts and commit; chunks of ${fmt(chunkKiB)} KiB)`);
  console.log(perTable.join('\n'));
  console.log(`  CPU of this process ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; the server's is not counted (load average ${load.toFixed(1)} at start)`);
  console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  await db.drop();
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
