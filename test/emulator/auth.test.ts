import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { errorBody } from '../../src/contract/index.js';
import { DEFAULT_SECRET, signToken } from '../../src/emulator/index.js';
import { adminToken, records, resetEmulator, useEmulator } from '../support/emulator.js';

const SECRET = 'test-secret-for-auth-suite';
const emu = useEmulator({ secret: SECRET });

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
function forge(header: unknown, payload: unknown, secret = SECRET): string {
  const h = b64(header);
  const p = b64(payload);
  return `${h}.${p}.${createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url')}`;
}
const exp = () => Math.floor(Date.now() / 1000) + 600;

describe('authentication', () => {
  it('missing, malformed, badly signed, wrong-algorithm and expired tokens give 401 with a JSON body', async () => {
    const cases: [string, Record<string, string>][] = [
      ['missing', {}],
      ['not bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
      ['malformed', { authorization: 'Bearer not-a-jwt' }],
      ['bad signature', { authorization: `Bearer ${signToken('another-secret-entirely', [1])}` }],
      ['default secret', { authorization: `Bearer ${signToken(DEFAULT_SECRET, [1])}` }],
      ['alg none', { authorization: `Bearer ${b64({ alg: 'none' })}.${b64({ warehouses: [1], exp: exp() })}.` }],
      ['no warehouses', { authorization: `Bearer ${forge({ alg: 'HS256' }, { exp: exp() })}` }],
      ['expired', { authorization: `Bearer ${emu.mintToken([1], -5)}` }],
    ];
    for (const [name, headers] of cases) {
      const res = await emu.request('GET', '/v1/customer-shipments.json', undefined, { token: null, headers });
      expect(res.status, name).toBe(401);
      expect(errorBody.safeParse(res.body).success, name).toBe(true);
      expect(res.headers.get('www-authenticate'), name).toMatch(/^Bearer/);
      expect(JSON.stringify(res.body), name).not.toContain(SECRET);
    }
    const write = await emu.request('PUT', '/v1/customer-shipments/acknowledge.json', { shipments: [{ id: 1001 }] }, { token: 'x.y.z' });
    expect(write.status).toBe(401);
  });

  it('the 401 body never echoes the token', async () => {
    const token = signToken('another-secret-entirely', [1]);
    const res = await emu.request('GET', '/v1/products.json', undefined, { token });
    expect(JSON.stringify(res.body)).not.toContain(token.split('.')[2]);
  });

  it('tokens from the admin API work and stay valid across resets', async () => {
    const token = await adminToken(emu, [1]);
    expect((await emu.get('/v1/products.json', token)).status).toBe(200);
    await resetEmulator(emu, { seed: 1 });
    expect((await emu.get('/v1/products.json', token)).status).toBe(200);
  });
});

describe('warehouse scope', () => {
  it('records of another warehouse are invisible in lists, counts and id filters', async () => {
    const wh2 = await records(emu, 'customer_shipments', (r) => r.warehouse_id === 2);
    expect(wh2.length).toBeGreaterThanOrEqual(5);
    const ids = wh2.map((r) => r.id).join(',');
    const asWh1 = await emu.get(`/v1/customer-shipments.json?ids=${ids}`);
    expect(asWh1.body.data).toEqual([]);
    const token2 = emu.mintToken([2]);
    const asWh2 = await emu.get(`/v1/customer-shipments.json?ids=${ids}`, token2);
    expect(asWh2.body.data).toHaveLength(wh2.length);
    expect(asWh2.body.data.every((r: any) => r.warehouse.id === 2)).toBe(true);
    const both = await emu.get('/v1/customer-shipments/count.json', emu.mintToken([1, 2]));
    const one = await emu.get('/v1/customer-shipments/count.json');
    const two = await emu.get('/v1/customer-shipments/count.json', token2);
    expect(both.body.count).toBe(one.body.count + two.body.count);
  });

  it('records of another warehouse cannot be written (reported as not found)', async () => {
    const [other] = await records(emu, 'customer_shipments', (r) => r.warehouse_id === 2 && r.state === 'assigned' && !r.acknowledged_at);
    const res = await emu.request('PUT', '/v1/customer-shipments/acknowledge.json', { shipments: [{ id: other.id }] });
    expect(res.status).toBe(207);
    expect(res.body.shipments[0].errors[0]).toMatch(/not found/);
    const after = await records(emu, 'customer_shipments', (r) => r.id === other.id);
    expect(after[0].acknowledged_at).toBeNull();
    const ssc = await emu.get(`/v1/customer-shipments/${other.id}/sscc.json`);
    expect(ssc.status).toBe(404);
  });

  it('a token scoped to several warehouses makes inventory endpoints require warehouse', async () => {
    const multi = emu.mintToken([1, 2]);
    const adj = { product_code: 'SKU-00001', quantity: 1, company_code: 'ACME' };
    const missing = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [adj] }, { token: multi });
    expect(missing.status).toBe(207);
    expect(missing.body.adjustments[0].errors[0]).toMatch(/warehouse is required/);
    const given = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ ...adj, warehouse: 2 }] }, { token: multi });
    expect(given.status).toBe(200);
    const outside = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ ...adj, warehouse: 2 }] });
    expect(outside.body.adjustments[0].errors[0]).toMatch(/warehouse 2 not found/);
    const count = { date: '2026-01-05', reason: 'audit', items: [{ product_code: 'SKU-00001', quantity: 3 }] };
    expect((await emu.request('POST', '/v1/inventory/counts.json', count, { token: multi })).status).toBe(400);
    expect((await emu.request('POST', '/v1/inventory/counts.json', { ...count, warehouse: 2 }, { token: multi })).status).toBe(200);
  });
});
