/** Cost of validating list pages with the contract's schema (the client validates every page). Run: npx tsx bench/client-validate.ts */
import { customerShipmentList } from '../src/contract/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { request } from 'undici';

const emulator = await startEmulator({ port: 0, seed: 1, scale: 'small', today: '2026-11-22' });
const res = await request(`${emulator.url}/v1/customer-shipments.json?status=pending&page=1`, { headers: { authorization: `Bearer ${emulator.mintToken([1])}` } });
const text = await res.body.text();
await emulator.close();
const page = JSON.parse(text) as { data: unknown[] };
for (let i = 0; i < 200; i++) customerShipmentList.safeParse(page); // warm up
const rounds = 2_000;
let t = performance.now();
for (let i = 0; i < rounds; i++) JSON.parse(text);
const jsonMs = (performance.now() - t) / rounds;
t = performance.now();
for (let i = 0; i < rounds; i++) customerShipmentList.safeParse(page);
const zodMs = (performance.now() - t) / rounds;
console.log(`page of ${page.data.length} shipments, ${text.length} bytes: JSON.parse ${jsonMs.toFixed(2)} ms, zod validation ${zodMs.toFixed(2)} ms per page (${((zodMs * 1000) / page.data.length).toFixed(1)} µs per record)`);
