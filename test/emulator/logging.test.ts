import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const lines: string[] = [];
const sink = new Writable({ write(chunk, _enc, done) { lines.push(...chunk.toString().split('\n').filter(Boolean)); done(); } });
let emu: RunningEmulator;
const SECRET = 'logging-suite-secret-value';

beforeAll(async () => {
  emu = await startEmulator({ secret: SECRET, today: '2026-11-22', logger: createLogger({ level: 'debug', pretty: false, destination: sink }) });
});
afterAll(() => emu.close());

describe('emulator logging', () => {
  it('logs a deprecation warning for split / carrier_code and never logs the token or the secret', async () => {
    const token = emu.mintToken([1]);
    const headers = { authorization: `Bearer ${token}` };
    const state = (await (await fetch(`${emu.url}/_admin/state?only=customer_shipments`)).json()) as any;
    const s = state.customer_shipments.find((r: any) => r.list_status === 'pending' && r.lines.length >= 2 && r.id === 1001);
    const res = await fetch(`${emu.url}/v1/customer-shipments/ship.json`, {
      method: 'PUT', headers,
      body: JSON.stringify({ shipments: [{ id: s.id, split: true, carrier_code: 'UPS', lines: [{ product_code: s.lines[0].product_code, quantity: 1 }] }] }),
    });
    expect(res.status).toBe(200);
    await fetch(`${emu.url}/v1/products.json`, { headers: { authorization: 'Bearer bad.token.here' } });
    await new Promise((r) => setTimeout(r, 50));
    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40);
    expect(warnings.map((w) => w.field)).toEqual(expect.arrayContaining(['split', 'carrier_code']));
    expect(warnings.every((w) => /deprecated/.test(w.msg))).toBe(true);
    expect(lines.some((l) => l.includes('"status":401'))).toBe(true);
    const all = lines.join('\n');
    expect(all).not.toContain(token);
    expect(all).not.toContain(SECRET);
  });
});
