import { describe, expect, it } from 'vitest';
import { errorBody } from '../../src/contract/index.js';
import { adminState, records, setFaults, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ resetEachTest: true });

describe('fault injection', () => {
  it('PUT /_admin/faults answers the faults now in force; missing fields are off; bad values are a 400', async () => {
    const now = await setFaults(emu, { error_rate: 0.5, error_status: 502 });
    expect(now).toMatchObject({ error_rate: 0.5, error_status: 502, latency_ms: 0, rate_limit_rate: 0, reset_rate: 0, retry_after_s: 1 });
    expect((await adminState(emu, [])).faults.error_rate).toBe(0.5);
    const bad = await fetch(`${emu.url}/_admin/faults`, { method: 'PUT', body: JSON.stringify({ error_rate: 2 }) });
    expect(bad.status).toBe(400);
    const cleared = await setFaults(emu, {});
    expect(cleared.error_rate).toBe(0);
  });

  it('error_rate 1 answers error_status with a JSON body, and nothing is written', async () => {
    await setFaults(emu, { error_rate: 1, error_status: 503 });
    const [s] = await records(emu, 'customer_shipments', (r) => r.list_status === 'pending');
    const res = await emu.request('PUT', '/v1/customer-shipments/acknowledge.json', { shipments: [{ id: s.id }] });
    expect(res.status).toBe(503);
    expect(errorBody.safeParse(res.body).success).toBe(true);
    expect((await records(emu, 'customer_shipments', (r) => r.id === s.id))[0].acknowledged_at).toBeNull();
    expect((await emu.get('/v1/products.json')).status).toBe(503);
  });

  it('rate_limit_rate 1 answers 429 with Retry-After', async () => {
    await setFaults(emu, { rate_limit_rate: 1, retry_after_s: 7 });
    const res = await emu.get('/v1/products.json');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
  });

  it('reset_rate 1 resets the connection before anything is processed', async () => {
    await setFaults(emu, { reset_rate: 1 });
    const [s] = await records(emu, 'customer_shipments', (r) => r.list_status === 'pending');
    await expect(emu.request('PUT', '/v1/customer-shipments/acknowledge.json', { shipments: [{ id: s.id }] })).rejects.toThrow();
    await setFaults(emu, {});
    expect((await records(emu, 'customer_shipments', (r) => r.id === s.id))[0].acknowledged_at).toBeNull();
  });

  it('reset_phase after applies the write and then loses the answer (an uncertain outcome)', async () => {
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after' });
    const [s] = await records(emu, 'customer_shipments', (r) => r.list_status === 'pending');
    await expect(emu.request('PUT', '/v1/customer-shipments/acknowledge.json', { shipments: [{ id: s.id }] })).rejects.toThrow();
    expect((await records(emu, 'customer_shipments', (r) => r.id === s.id))[0].acknowledged_at).not.toBeNull();
  });

  it('faults never apply to /_admin and stay until changed', async () => {
    await setFaults(emu, { error_rate: 1, rate_limit_rate: 0 });
    expect((await adminState(emu, ['warehouses'])).warehouses).toHaveLength(2);
    for (let i = 0; i < 3; i++) expect((await emu.get('/v1/products.json')).status).toBe(503);
    await fetch(`${emu.url}/_admin/reset`, { method: 'POST', body: '{}' });
    expect((await emu.get('/v1/products.json')).status).toBe(503);
  });

  it('times limits the number of injected faults; path_prefix limits which requests are affected', async () => {
    await setFaults(emu, { error_rate: 1, times: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await emu.get('/v1/products.json')).status);
    expect(statuses).toEqual([503, 503, 200, 200]);
    await setFaults(emu, { error_rate: 1, path_prefix: '/v1/customer-shipments/ship' });
    expect((await emu.get('/v1/products.json')).status).toBe(200);
    expect((await emu.request('PUT', '/v1/customer-shipments/ship.json', { shipments: [{ id: 1 }] })).status).toBe(503);
  });

  it('latency: a write is applied at the end of its wait; a read answers with the state when it arrived', async () => {
    const [first] = await records(emu, 'customer_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending');
    await setFaults(emu, { latency_ms: 1500, path_prefix: '/v1/customer-shipments' });
    const acknowledging = emu.request('PUT', '/v1/customer-shipments/acknowledge.json', { shipments: [{ id: first.id }] });
    // The admin API is not delayed: once the write is being answered (in flight), it is still inside its wait.
    for (let tries = 0; (await emu.get('/_admin/concurrency')).body.in_flight < 1 && tries < 500; tries++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await emu.get('/_admin/concurrency')).body.in_flight).toBe(1);
    expect((await records(emu, 'customer_shipments', (r) => r.id === first.id))[0].acknowledged_at).toBeNull();
    // Arrives before the write is applied and answers as of then, although its answer leaves after the write's.
    const listing = emu.get(`/v1/customer-shipments.json?ids=${first.id}`);
    const ack = await acknowledging;
    expect(ack.body.shipments[0].acknowledged_at).toEqual(expect.any(String));
    expect((await records(emu, 'customer_shipments', (r) => r.id === first.id))[0].list_status).not.toBe('pending');
    expect((await listing).body.data.map((r: any) => r.id)).toEqual([first.id]);
  });

  it('latency delays answers but they still arrive intact', async () => {
    const now = await setFaults(emu, { latency_ms: 50 });
    expect(now.latency_ms).toBe(50);
    const res = await emu.get('/v1/products.json');
    expect(res.status).toBe(200);
    expect(res.body.products).toHaveLength(100);
  });
});

describe('admin API', () => {
  it('tokens: validates the body; a negative expires_in mints an expired token', async () => {
    const bad = await fetch(`${emu.url}/_admin/tokens`, { method: 'POST', body: JSON.stringify({ warehouses: [] }) });
    expect(bad.status).toBe(400);
    const res = await fetch(`${emu.url}/_admin/tokens`, { method: 'POST', body: JSON.stringify({ warehouses: [1], expires_in: -10 }) });
    const { token } = (await res.json()) as { token: string };
    expect((await emu.get('/v1/products.json', token)).status).toBe(401);
  });

  it('state carries today, warehouses, products, inventory and every family', async () => {
    const state = await adminState(emu);
    expect(state.today).toBe('2026-11-22');
    for (const k of ['warehouses', 'products', 'inventory', 'customer_shipments', 'outbound_transfers', 'inbound_transfers', 'supplier_shipments', 'customer_return_shipments', 'adjustments', 'counts']) {
      expect(Array.isArray(state[k]), k).toBe(true);
    }
    expect(state.warehouses[0]).toEqual({ id: 1, code: 'WH1', name: 'Main Warehouse', lot_inventory: true, companies: ['ACME', 'GLOBEX'], default_company: 'ACME' });
    expect(Object.keys(state.customer_shipments[0])).toEqual(expect.arrayContaining(['id', 'number', 'warehouse_id', 'state', 'acknowledged_at', 'shipped_at', 'picking_status', 'tpl_status', 'tpl_error', 'lines']));
  });

  it('reset with another seed gives other data; the same seed gives the same data', async () => {
    const a = await adminState(emu, ['customer_shipments']);
    await fetch(`${emu.url}/_admin/reset`, { method: 'POST', body: JSON.stringify({ seed: 2 }) });
    const b = await adminState(emu, ['customer_shipments']);
    await fetch(`${emu.url}/_admin/reset`, { method: 'POST', body: JSON.stringify({ seed: 1 }) });
    const c = await adminState(emu, ['customer_shipments']);
    const strip = (s: any) => s.customer_shipments;
    expect(strip(c)).toEqual(strip(a));
    expect(strip(b)).not.toEqual(strip(a));
  });
});
