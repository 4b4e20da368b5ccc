/**
 * What the console search's term index costs on the ingest path: 200 blocks of 1,000 adjustments packed (packBatch:
 * on the mapping thread) and recorded (recordBatch: the journal's writes, SQLite, each commit synced), with the
 * index (bodies given) and without it (no bodies: no index), alternating, 3 rounds. Prints the CPU per block of
 * each, and the index's share. Run: npx tsx bench/search-index.ts   (figures only, nothing asserted)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJournal, packBatch, type NewItem } from '../src/journal/index.js';
import { testHooks } from '../src/journal/testing.js';

const BLOCKS = 200;
const blocks = Array.from({ length: BLOCKS }, (_, b) => {
  const items: NewItem[] = [];
  const bodies: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 1000; i++) {
    const seq = b * 1000 + i;
    const sku = `SKU-${String(seq % 50_000).padStart(6, '0')}`;
    items.push({ seq, endpoint: 'inventory.adjustments', docKey: sku, lines: [seq + 2] });
    bodies.push({ warehouse_id: 1, product_code: sku, quantity: 1, reason: 'count', reference: `R-${seq}` });
  }
  return { items, bodies, text: JSON.stringify(bodies) };
});

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

async function run(withIndex: boolean): Promise<{ pack: number; record: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-bench-index-'));
  const journal = await openJournal(join(dir, 'journal.db'));
  const { fileId } = await journal.claimFile({ drop: 'd', name: 'f.csv', checksum: 'c', size: 1, mapping: 'm' });
  let pack = 0;
  let record = 0;
  for (const block of blocks) {
    let since = process.cpuUsage();
    const packed = packBatch('inventory.adjustments', block.items, withIndex ? block.bodies : undefined);
    pack += cpuMs(since);
    since = process.cpuUsage();
    await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', packed, { sent: true, bodies: block.text });
    record += cpuMs(since);
  }
  await journal.close();
  rmSync(dir, { recursive: true, force: true });
  return { pack: pack / BLOCKS, record: record / BLOCKS };
}

process.stdout.write(`load ${loadavg()[0].toFixed(2)}; ${BLOCKS} blocks of 1,000 rows, CPU per block\n`);
for (let round = 1; round <= 3; round++) {
  for (const withIndex of round % 2 ? [true, false] : [false, true]) {
    const { pack, record } = await run(withIndex);
    process.stdout.write(`round ${round} ${withIndex ? 'with the index   ' : 'without the index'}  pack ${pack.toFixed(3)} ms  record ${record.toFixed(3)} ms  together ${(pack + record).toFixed(3)} ms\n`);
  }
}
process.stdout.write(`load ${loadavg()[0].toFixed(2)} at the end\n`);
