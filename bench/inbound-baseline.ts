// The yardstick of bench/inbound.ts: the least a script can do to apply an adjustments file — csv-parse → batches →
// POST, as many requests in flight as the bridge (two by default) — with none of the bridge's guarantees (no journal, no checksum or
// private copy, no resume, no validation, no result file, no archive). Run by bench/inbound.ts in the same invocation:
// node --import tsx bench/inbound-baseline.ts URL TOKEN_FILE CSV_FILE BATCH [IN_FLIGHT] → prints `baseline ok N error N requests N`.
import { createReadStream, readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { parse } from 'csv-parse';
import { Pool } from 'undici';

const [url, tokenFile, file, batchArg, inFlightArg] = process.argv.slice(2);
const batchSize = Number(batchArg ?? 1000);
const window = Number(inFlightArg ?? 2);
const token = readFileSync(tokenFile, 'utf8').trim();
const pool = new Pool(url, { connections: window });
const counts = { ok: 0, error: 0, requests: 0 };
const inFlight = new Set<Promise<void>>();

interface Row { SKU: string; QTY: string; REASON: string; REF: string; COMPANY: string }
interface Answer { adjustments: { errors?: string[] | null }[] }

async function post(adjustments: Record<string, unknown>[]): Promise<void> {
  counts.requests++;
  const res = await pool.request({
    method: 'POST', path: '/v1/inventory/adjustments.json', body: JSON.stringify({ adjustments }),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  if (res.statusCode !== 200 && res.statusCode !== 207) throw new Error(`HTTP ${res.statusCode}: ${await res.body.text()}`);
  for (const item of ((await res.body.json()) as Answer).adjustments) {
    if (item.errors && item.errors.length > 0) counts.error++;
    else counts.ok++;
  }
}

async function send(batch: Record<string, unknown>[]): Promise<void> {
  const p: Promise<void> = post(batch).finally(() => inFlight.delete(p));
  inFlight.add(p);
  while (inFlight.size >= window) await Promise.race(inFlight);
}

let batch: Record<string, unknown>[] = [];
await pipeline(
  createReadStream(file),
  parse({ columns: true, bom: true }),
  new Writable({
    objectMode: true,
    highWaterMark: 64,
    write(row: Row, _encoding, done) {
      batch.push({ product_code: row.SKU, quantity: Number(row.QTY), reason: row.REASON, reference: row.REF, company_code: row.COMPANY });
      if (batch.length < batchSize) return done();
      const full = batch;
      batch = [];
      send(full).then(() => done(), done);
    },
  }),
);
if (batch.length > 0) await send(batch);
await Promise.all(inFlight);
await pool.close();
console.log(`baseline ok ${counts.ok} error ${counts.error} requests ${counts.requests}`);
