/**
 * Emulator benchmark: large-seed generation time, list-page latency on the large seed, adjustment items per second.
 * Run: npx tsx bench/emulator.ts
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startEmulator } from '../src/emulator/index.js';

const agent = new Agent({ connections: 8, keepAliveTimeout: 10_000 });

async function call(url: string, token: string, method: 'GET' | 'POST' = 'GET', body?: unknown): Promise<{ status: number; json: any }> {
  const res = await request(url, { method, dispatcher: agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.statusCode, json: await res.body.json() };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (n: number) => n.toFixed(2);

async function main(): Promise<void> {
  console.log(`load average before the run: ${loadavg().map((x) => x.toFixed(2)).join(' ')} (2 cores shared)`);
  let t = performance.now();
  const emu = await startEmulator({ scale: 'large', seed: 1 });
  const seedMs = performance.now() - t;
  console.log(`large seed (100k+ customer shipments, 20k+ products) generated and listening in ${fmt(seedMs)} ms`);
  const token = emu.mintToken([1]);

  const count = await call(`${emu.url}/v1/customer-shipments/count.json`, token);
  console.log(`pending customer shipments in warehouse 1: ${count.json.count}`);
  const pages = Math.floor(count.json.count / 100);
  for (const [label, path] of [
    ['customer shipments, page 1', () => '/v1/customer-shipments.json'],
    ['customer shipments, random page', () => `/v1/customer-shipments.json?page=${1 + Math.floor(Math.random() * pages)}`],
    ['customer shipments, planned_date filter', () => '/v1/customer-shipments.json?planned_date_min=2026-01-01&page=3'],
    ['products, random page', () => `/v1/products.json?page=${1 + Math.floor(Math.random() * 200)}`],
    ['customer shipments count', () => '/v1/customer-shipments/count.json'],
  ] as const) {
    for (let i = 0; i < 5; i++) await call(`${emu.url}${path()}`, token);
    const times: number[] = [];
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < 200; i++) {
      t = performance.now();
      const r = await call(`${emu.url}${path()}`, token);
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`${label}: ${r.status}`);
    }
    const cpu = process.cpuUsage(cpu0);
    // CPU time per request (server and bench client together) is less distorted by other processes than wall time
    console.log(`${label.padEnd(42)} p50 ${fmt(pct(times, 50))} ms  p95 ${fmt(pct(times, 95))} ms  cpu ${fmt((cpu.user + cpu.system) / 1000 / 200)} ms/request`);
  }

  // Page ends are remembered only while nothing changes: with a write before each request (not timed), every
  // random page pays the walk from the start of the listing (what OFFSET paging always cost).
  {
    const times: number[] = [];
    const adjust = { adjustments: [{ product_code: 'SKU-00001', quantity: 1, company_code: 'ACME', reason: 'bench' }] };
    for (let i = 0; i < 100; i++) {
      await call(`${emu.url}/v1/inventory/adjustments.json`, token, 'POST', adjust);
      t = performance.now();
      const r = await call(`${emu.url}/v1/customer-shipments.json?page=${1 + Math.floor(Math.random() * pages)}`, token);
      times.push(performance.now() - t);
      if (r.status !== 200) throw new Error(`cold page: ${r.status}`);
    }
    console.log(`${'customer shipments, random page after a write'.padEnd(42)} p50 ${fmt(pct(times, 50))} ms  p95 ${fmt(pct(times, 95))} ms  (page ends forgotten: cold)`);
  }

  const batch = 500;
  const requests = 40;
  const body = (n: number) => ({ adjustments: Array.from({ length: batch }, (_, i) => ({ product_code: `SKU-${String(1 + ((n * batch + i) % 20000)).padStart(5, '0')}`, quantity: 1, company_code: 'ACME', lot_number: (1 + ((n * batch + i) % 20000)) % 10 === 3 ? 'LOT-B' : undefined, reason: 'bench' })) });
  await call(`${emu.url}/v1/inventory/adjustments.json`, token, 'POST', body(0));
  t = performance.now();
  let ok = 0;
  await Promise.all(Array.from({ length: 4 }, async (_, w) => {
    for (let n = w; n < requests; n += 4) {
      const r = await call(`${emu.url}/v1/inventory/adjustments.json`, token, 'POST', body(n));
      if (r.status !== 200) throw new Error(`adjustments: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
      ok += r.json.adjustments.length;
    }
  }));
  const secs = (performance.now() - t) / 1000;
  console.log(`load average after the run: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(`adjustments: ${ok} items in ${fmt(secs)} s = ${Math.round(ok / secs)} items/s (batches of ${batch}, 4 concurrent clients)`);
  await emu.close();
  await agent.close();
}

await main();
