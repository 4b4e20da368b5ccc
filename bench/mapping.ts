// Mapping throughput against raw csv-parse on the same 1,000,000-row file (one run, both figures printed).
// npx tsx bench/mapping.ts [rows] [rounds]
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import type { z } from 'zod';
import { endpoints, fastValidator } from '../src/contract/index.js';
import { mapInbound, parseMapping, TableReferenceIds, type Mapping } from '../src/mapping/index.js';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const ONLY = process.argv[4];

const ADJUSTMENTS = `
document: inventory.adjustments
files: "*.csv"
dialect: { delimiter: ";" }
request:
  fields:
    product_code: { column: SKU, transforms: [trim, upper] }
    quantity: { column: QTY, type: number, decimal: ",", thousands: "." }
    reason: REASON
    reference: REF
    date: { column: DATE, type: date, format: dd.MM.yyyy }
    lot_number: LOT
    company_code: { column: COMPANY, default: ACME }
`;
const SHIP = `
document: customerShipments.ship
files: "*.csv"
dialect: { delimiter: ";" }
grouping: { sorted: true }
request:
  key: ORDER
  fields:
    id: { column: ORDER, id_of: customerShipment }
    carrier: CARRIER
    tracking_number: TRACKING
  lists:
    lines:
      fields:
        product_code: { column: SKU, transforms: [trim, upper] }
        quantity: { column: QTY, type: number, decimal: "," }
        lot.number: LOT
`;

function compile(yaml: string): Mapping {
  const { mapping, problems } = parseMapping(yaml, 'bench.yaml');
  if (!mapping) throw new Error(problems.map((p) => p.message).join('\n'));
  return mapping;
}

async function write(file: string, header: string, row: (i: number) => string): Promise<void> {
  const out = createWriteStream(file);
  out.write(header + '\n');
  let chunk = '';
  for (let i = 0; i < ROWS; i++) {
    chunk += row(i) + '\n';
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = '';
    }
  }
  out.end(chunk);
  await new Promise<void>((r) => out.on('finish', () => r()));
}

async function rawParse(file: string): Promise<number> {
  let n = 0;
  await pipeline(createReadStream(file), parse({ delimiter: ';', quote: '"', escape: '"', bom: true, relax_column_count: true, relax_quotes: true, max_record_size: 1_048_576 }), new Writable({
    objectMode: true,
    highWaterMark: 64,
    write(_r, _e, cb) { n++; cb(); },
  }));
  return n;
}

const sampleItems: unknown[] = [];
async function mapped(file: string, mapping: Mapping, referenceIds?: TableReferenceIds): Promise<{ docs: number; rejected: number; batches: number }> {
  let docs = 0, rejected = 0, batches = 0;
  for await (const o of mapInbound(createReadStream(file), mapping, { fileName: 'bench.csv', referenceIds, maxBatchItems: 100 })) {
    if (o.kind === 'batch') {
      batches++;
      docs += o.documents.length;
      if (sampleItems.length < 50_000) for (const d of o.documents) sampleItems.push(d.item);
    } else if (o.kind === 'rejected') rejected++;
  }
  return { docs, rejected, batches };
}

/** CPU µs per document of the contract's item schema alone, compiled as the mapping uses it (part of the mapping figure). */
function contractCost(endpoint: keyof typeof endpoints): number {
  const schema = fastValidator((endpoints[endpoint] as { item: z.ZodType }).item);
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const c = process.cpuUsage();
    for (const item of sampleItems) schema.safeParse(item);
    const u = process.cpuUsage(c);
    best = Math.min(best, (u.user + u.system) / sampleItems.length);
  }
  return best;
}

// CPU time of this process (user + system): the machine is shared, so wall time mostly measures the neighbours.
async function time<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const t = process.hrtime.bigint();
  const c = process.cpuUsage();
  const r = await fn();
  const used = process.cpuUsage(c);
  return [r, (used.user + used.system) / 1e6, Number(process.hrtime.bigint() - t) / 1e9];
}

const dir = await mkdtemp(join(tmpdir(), 'wb-bench-'));
try {
  const adj = join(dir, 'adjustments.csv');
  await write(adj, 'SKU;QTY;REASON;REF;DATE;LOT;COMPANY', (i) => `sku-${String(i % 5000).padStart(5, '0')};${i % 7 === 0 ? '-' : ''}${(i % 900) + 1},${i % 10};Zählung;K-${i};${String((i % 28) + 1).padStart(2, '0')}.11.2026;${i % 10 === 3 ? 'LOT-' + i : ''};${i % 2 ? 'GLOBEX' : ''}`);
  const ship = join(dir, 'ship.csv');
  await write(ship, 'ORDER;CARRIER;TRACKING;SKU;QTY;LOT', (i) => `SO-${Math.floor(i / 4)};dhl;JD${Math.floor(i / 4)};sku-${String(i % 5000).padStart(5, '0')};${(i % 9) + 1};`);
  const ids: Record<string, number> = {};
  for (let k = 0; k < ROWS / 4 + 1; k++) ids[`SO-${k}`] = k + 1;
  const referenceIds = new TableReferenceIds({ customerShipment: ids });

  for (const [name, file, mapping, res] of [['inventory adjustments (1 row = 1 document, 7 fields)', adj, compile(ADJUSTMENTS), undefined], ['customer-shipment ship (4 rows per document, grouped, ids found in a table)', ship, compile(SHIP), referenceIds]] as const) {
    const mib = statSync(file).size / 2 ** 20;
    if (ONLY && !name.includes(ONLY)) continue;
    // Alternate the two measurements and keep the best of each: the machine is shared, so single runs are noisy.
    sampleItems.length = 0;
    let rawS = Infinity, mapS = Infinity, rawWall = Infinity, mapWall = Infinity, rows = 0;
    let result = { docs: 0, rejected: 0, batches: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const [n, r, rw] = await time(() => rawParse(file));
      const [m, t, mw] = await time(() => mapped(file, mapping, res));
      rows = n; result = m;
      rawS = Math.min(rawS, r); mapS = Math.min(mapS, t);
      rawWall = Math.min(rawWall, rw); mapWall = Math.min(mapWall, mw);
    }
    console.log(`\n${name}: ${rows.toLocaleString('en')} rows, ${mib.toFixed(1)} MiB`);
    const line = (label: string, cpu: number, wall: number) =>
      console.log(`  ${label.padEnd(25)} cpu ${cpu.toFixed(2)} s  ${Math.round(rows / cpu).toLocaleString('en').padStart(9)} rows/s  ${(mib / cpu).toFixed(1).padStart(5)} MiB/s   (wall ${wall.toFixed(2)} s)`);
    line('raw csv-parse', rawS, rawWall);
    line('parse+map+validate+batch', mapS, mapWall);
    const perDoc = contractCost(mapping.document as keyof typeof endpoints);
    console.log(`  ${result.docs.toLocaleString('en')} documents in ${result.batches.toLocaleString('en')} batches, ${result.rejected} rejected; contract validation alone ${perDoc.toFixed(2)} µs/document = ${(perDoc * result.docs / 1e6).toFixed(2)} s of the mapping figure`);
    console.log(`  throughput ratio mapping / raw: ${(rawS / mapS).toFixed(2)}× by CPU time, ${(rawWall / mapWall).toFixed(2)}× by wall time  (target ≥ 0.60×; best of ${ROUNDS} alternating rounds)`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
