/**
 * Journal throughput: 1,000,000 adjustment items in batches of 500, each batch
 * recordBatch → markSent → completeRequest, as the inbound pipeline does it.
 * Run: npx tsx bench/journal.ts [items] [--fewer-commits]   — prints items/s, time per phase and the DB size.
 */
import { mkdtempSync, rmSync, statSync, existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJournal, type ItemOutcome, type NewItem } from '../src/journal/index.js';
import { testHooks } from '../src/journal/testing.js';

const args = process.argv.slice(2);
// --fewer-commits: recordBatch(..., { sent: true }) — two commits per batch instead of three.
const fewerCommits = args.includes('--fewer-commits');
const total = Number(args.find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const batchSize = 500;
const dir = mkdtempSync(join(tmpdir(), 'wisbridge-bench-journal-'));
const path = join(dir, 'journal.db');
const journal = await openJournal(path);
const endpoint = 'inventory.adjustments';

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
const phases = { record: 0, sent: 0, complete: 0 };
const load = loadavg()[0];
const cpuStart = process.cpuUsage();
const started = process.hrtime.bigint();
const claim = await journal.claimFile({ drop: 'bench', name: 'adjustments.csv', checksum: 'f'.repeat(64), size: total * 60, mapping: 'adjustments' });
if (claim.status !== 'new') throw new Error(`unexpected claim ${claim.status}`);
const fileId = claim.fileId;

for (let first = 0; first < total; first += batchSize) {
  const items: NewItem[] = [];
  const outcomes: ItemOutcome[] = [];
  for (let seq = first; seq < Math.min(first + batchSize, total); seq++) {
    const sku = `SKU-${String(seq % 50_000).padStart(6, '0')}`;
    items.push({
      seq, endpoint, docKey: sku, lines: [seq + 2],
      body: JSON.stringify({ product_code: sku, quantity: (seq % 7) - 3, reference: `ADJ-${seq}`, lot_number: null, company_code: 'ACME', warehouse: 'WH1' }),
    });
    outcomes.push({ seq, status: 'ok', result: { move_id: 1_000_000 + seq } });
  }
  let t = process.hrtime.bigint();
  const requestId = await testHooks(journal).recordBatch(fileId, endpoint, items, { sent: fewerCommits });
  phases.record += ms(t);
  t = process.hrtime.bigint();
  if (!fewerCommits) await journal.markSent(requestId);
  phases.sent += ms(t);
  t = process.hrtime.bigint();
  await journal.completeRequest(requestId, outcomes);
  phases.complete += ms(t);
}
let t = process.hrtime.bigint();
const status = await journal.finishFile(fileId);
const finishMs = ms(t);
const writeMs = ms(started);
const cpu = process.cpuUsage(cpuStart);
const cpuMs = (cpu.user + cpu.system) / 1000;

const cpuOf = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
t = process.hrtime.bigint();
let cpuMark = process.cpuUsage();
const resume = await journal.resumeState(fileId);
const resumeMs = ms(t);
const resumeCpu = cpuOf(cpuMark);
t = process.hrtime.bigint();
cpuMark = process.cpuUsage();
let lines = 0;
for await (const outcome of journal.iterateLineOutcomes(fileId)) if (outcome.status === 'ok') lines++;
const iterateMs = ms(t);
const iterateCpu = cpuOf(cpuMark);
t = process.hrtime.bigint();
const backlog = await journal.backlog();
const backlogMs = ms(t);
await journal.close();
const size = statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`items: ${fmt(total)} in batches of ${batchSize} (${fmt(total / batchSize)} requests, ${fewerCommits ? 2 : 3} commits each), file ${status}`);
console.log(`record+sent+complete: ${(writeMs / 1000).toFixed(2)} s, ${fmt(total / (writeMs / 1000))} items/s`);
console.log(`  CPU time of this process ${(cpuMs / 1000).toFixed(2)} s (${fmt(total / (cpuMs / 1000))} items per CPU-second; wall time suffers when the machine is shared: load average ${load.toFixed(1)} at start)`);
console.log(`  recordBatch ${(phases.record / 1000).toFixed(2)} s · markSent ${(phases.sent / 1000).toFixed(2)} s · completeRequest ${(phases.complete / 1000).toFixed(2)} s · finishFile ${(finishMs / 1000).toFixed(2)} s`);
console.log(`resumeState: ${fmt(resumeMs)} ms, CPU ${fmt(resumeCpu)} ms (finished ${fmt(resume.counts.finished)})`);
console.log(`iterateLineOutcomes: ${(iterateMs / 1000).toFixed(2)} s, CPU ${(iterateCpu / 1000).toFixed(2)} s for ${fmt(lines)} lines, ${fmt(lines / (iterateMs / 1000))} lines/s`);
console.log(`backlog gauges: ${backlogMs.toFixed(1)} ms (${JSON.stringify({ uncertain: backlog.uncertainItems, sent: backlog.sentItems })})`);
console.log(`database size: ${(size / 1024 / 1024).toFixed(1)} MiB (${(size / total).toFixed(0)} bytes per item)`);
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
rmSync(dir, { recursive: true, force: true });
