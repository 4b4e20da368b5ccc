// The mapping stage alone, in this process, by CPU time: the same rows as X12 and as CSV, best of `rounds`
// alternating passes. X12 is the routing pass over the envelopes (readEnvelopes) plus the mapping with the verdicts it
// gave (as the pipeline runs them); CSV is the mapping alone. 947 against a CSV of its rows mapped to the same requests
// (bench/x12-files.ts, 1 row a document), 945
// against a customer-shipment ship CSV (4 lines an order, ids from a table): the 945 cannot go through the whole path
// against the emulator at this size (an order ships once), bench/x12-inbound.ts runs the 947 there.
// npx tsx bench/x12-mapping.ts [rows=1000000] [rounds=3]
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { mapInbound, parseMapping, TableReferenceIds, type Mapping } from '../src/mapping/index.js';
import { readEnvelopes } from '../src/x12/index.js';
import { ADJUSTMENT_SKUS, loads, root } from './inbound-harness.js';
import { ADJUSTMENTS_947_CSV_MAPPING, write945, write947, write947AsCsv } from './x12-files.js';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const loadAtStart = loadavg();

function compile(yaml: string): Mapping {
  const { mapping, problems } = parseMapping(yaml, 'bench.yaml');
  if (!mapping) throw new Error(problems.map((p) => p.message).join('\n'));
  return mapping;
}
const shipped = (name: string) => compile(readFileSync(join(root, 'mappings', name), 'utf8').replace(/^samples:.*$/m, ''));

const SHIP_CSV = `
document: customerShipments.ship
files: "*.csv"
grouping: { sorted: true }
request:
  key: ORDER
  fields:
    id: { column: ORDER, id_of: customerShipment }
    carrier: CARRIER
    tracking_number: TRACKING
    ship_strategy: { value: ship_as_available }
  lists:
    lines:
      fields:
        product_code: { column: SKU, transforms: [trim, upper] }
        quantity: { column: QTY, type: number }
`;

async function writeShipCsv(file: string): Promise<void> {
  const out = createWriteStream(file);
  let chunk = 'ORDER,CARRIER,TRACKING,SKU,QTY\n';
  for (let row = 0; row < ROWS; row++) {
    const order = Math.floor(row / 4) + 1;
    chunk += `SO-${order},DHL,JD${order},${ADJUSTMENT_SKUS[row % ADJUSTMENT_SKUS.length]},${(row % 9) + 1}\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

async function map(file: string, mapping: Mapping, referenceIds: TableReferenceIds | undefined, x12: boolean): Promise<number> {
  const x12Verdicts = x12 ? (await readEnvelopes(createReadStream(file), { file: 'bench.edi' })).interchanges : undefined;
  let docs = 0;
  for await (const o of mapInbound(createReadStream(file), mapping, { fileName: 'bench', referenceIds, maxBatchItems: 100, x12Verdicts })) {
    if (o.kind === 'batch') docs += o.documents.length;
    else if (o.kind === 'rejected') throw new Error(o.errors.map((e) => e.message).join('\n'));
  }
  return docs;
}

async function cpu(fn: () => Promise<unknown>): Promise<number> {
  const c = process.cpuUsage();
  await fn();
  const u = process.cpuUsage(c);
  return (u.user + u.system) / 1e6;
}

const dir = await mkdtemp(join(tmpdir(), 'wb-bench-x12map-'));
// BENCH_X12_MB=200: only a 947 interchange of about that size, mapped once as the pipeline maps it, and the process's
// peak RSS (what the mapping holds of it: one row at a time, not the interchange).
const sizeMb = Number(process.env.BENCH_X12_MB ?? 0);
if (sizeMb > 0) {
  try {
    const file = join(dir, 'big.edi');
    const rows = Math.round((sizeMb * 1e6) / 35);
    await write947(file, rows, ADJUSTMENT_SKUS);
    const rssBefore = process.resourceUsage().maxRSS;
    const used = await cpu(async () => {
      const docs = await map(file, shipped('x12-947-inventory-adjustments.yaml'), undefined, true);
      if (docs !== rows) throw new Error(`${docs} documents of ${rows} rows`);
    });
    console.log(`947 of ${rows.toLocaleString('en')} W19 lines in one interchange, ${(statSync(file).size / 1e6).toFixed(1)} MB: mapped in ${used.toFixed(1)} s CPU (${Math.round(rows / used).toLocaleString('en')} rows/s); peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (${(rssBefore / 1024).toFixed(0)} MB before: the file written, the modules loaded)`);
    console.log(`machine load ${loads(loadAtStart)} at start, ${loads(loadavg())} at end`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
try {
  const files = { adjCsv: join(dir, 'adj.csv'), adj947: join(dir, 'adj.edi'), shipCsv: join(dir, 'ship.csv'), ship945: join(dir, 'ship.edi') };
  await write947AsCsv(files.adjCsv, ROWS, ADJUSTMENT_SKUS);
  await write947(files.adj947, ROWS, ADJUSTMENT_SKUS);
  await writeShipCsv(files.shipCsv);
  await write945(files.ship945, ROWS, ADJUSTMENT_SKUS);
  const ids: Record<string, number> = {};
  for (let k = 1; k <= ROWS / 4 + 1; k++) ids[`SO-${k}`] = k;
  const references = new TableReferenceIds({ customerShipment: ids });
  const cases = [
    { name: '947 / adjustments', csv: [files.adjCsv, compile(ADJUSTMENTS_947_CSV_MAPPING), undefined], x12: [files.adj947, shipped('x12-947-inventory-adjustments.yaml'), undefined] },
    { name: '945 / ship', csv: [files.shipCsv, compile(SHIP_CSV), references], x12: [files.ship945, shipped('x12-945-customer-shipment-ship.yaml'), references] },
  ] as const;
  const mib = (f: string) => `${(statSync(f).size / 2 ** 20).toFixed(1)} MiB`;
  for (const c of cases) {
    let csv = Infinity;
    let x12 = Infinity;
    let envelopes = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      csv = Math.min(csv, await cpu(() => map(c.csv[0], c.csv[1], c.csv[2], false)));
      x12 = Math.min(x12, await cpu(() => map(c.x12[0], c.x12[1], c.x12[2], true)));
      envelopes = Math.min(envelopes, await cpu(() => readEnvelopes(createReadStream(c.x12[0]))));
    }
    const rate = (s: number) => `${Math.round(ROWS / s).toLocaleString('en')} rows/s`;
    console.log(`${c.name.padEnd(18)} CSV ${mib(c.csv[0])} ${csv.toFixed(2)} s CPU, ${rate(csv)}; X12 ${mib(c.x12[0])} ${x12.toFixed(2)} s (the envelope pass ${envelopes.toFixed(2)} s of it), ${rate(x12)}: X12 / CSV ${(csv / x12).toFixed(2)}× (best of ${ROUNDS})`);
  }
  console.log(`machine load ${loads(loadAtStart)} at start, ${loads(loadavg())} at end`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
