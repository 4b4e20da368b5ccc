/**
 * Export-style read of 100,000 pending customer shipments from the emulator's `large` seed with 20 ms injected
 * latency per request: sequential has_more paging against count-based concurrent paging.
 * Run: npx tsx bench/client.ts [latencyMs]
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { WisClient, type ClientEvent } from '../src/client/index.js';

const latencyMs = Number(process.argv[2] ?? 20);
const t0 = performance.now();
// The emulator runs in its own process: in this one it would share the client's event loop (and its CPU).
const child = spawn(process.execPath, ['--import', 'tsx', new URL('./client-emulator.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
const first = await new Promise<string>((resolve, reject) => {
  createInterface({ input: child.stdout! }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
});
const emulator = JSON.parse(first) as { url: string; token: string };
console.log(`emulator (large seed, own process) ready in ${((performance.now() - t0) / 1000).toFixed(1)} s at ${emulator.url}`);

async function setFaults(faults: Record<string, unknown>): Promise<void> {
  const res = await request(`${emulator.url}/_admin/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`faults: ${res.statusCode}`);
}

let requests = 0;
const client = new WisClient({
  baseUrl: emulator.url,
  token: emulator.token,
  connections: 16,
  onEvent: (e: ClientEvent) => {
    if (e.type === 'request-start') requests++;
  },
});

const total = await client.customerShipments.count({ status: 'pending' });
const pages = Math.ceil(total / 100);
console.log(`${total} pending shipments = ${pages} pages; injected latency ${latencyMs} ms per request`);

async function run(label: string, concurrency: number): Promise<void> {
  requests = 0;
  const ids = new Set<number>();
  let records = 0;
  const start = performance.now();
  for await (const s of client.customerShipments.list({ status: 'pending' }, { concurrency })) {
    ids.add(s.id);
    records++;
  }
  const seconds = (performance.now() - start) / 1000;
  const floor = (pages * latencyMs) / concurrency / 1000;
  console.log(
    `${label.padEnd(26)} ${records} records (${ids.size} distinct), ${requests} requests, ${seconds.toFixed(2)} s, ` +
      `${Math.round(records / seconds)} records/s; pages × latency / concurrency = ${floor.toFixed(2)} s`,
  );
  if (records !== total || ids.size !== total) throw new Error(`${label}: expected ${total} distinct records`);
}

await setFaults({ latency_ms: latencyMs });
try {
  await run('sequential (has_more)', 1);
  for (const c of [4, 8, 16]) await run(`concurrent (count), c=${c}`, c);
} finally {
  await setFaults({});
  await client.close();
  child.kill('SIGTERM');
}
