import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorBody, LIMITS } from '../../src/contract/index.js';
import { adminState, useEmulator } from '../support/emulator.js';

const emu = useEmulator();

const WRITES: [string, string, string][] = [
  ['PUT', '/v1/customer-shipments/acknowledge.json', 'shipments'],
  ['PATCH', '/v1/customer-shipments/change-status.json', 'shipments'],
  ['PUT', '/v1/customer-shipments/ship.json', 'shipments'],
  ['PATCH', '/v1/customer-shipments/failed.json', 'shipments'],
  ['PUT', '/v1/outbound-transfers/acknowledge.json', 'shipments'],
  ['PUT', '/v1/outbound-transfers/ship.json', 'shipments'],
  ['PUT', '/v1/inbound-transfers/acknowledge.json', 'shipments'],
  ['PUT', '/v1/inbound-transfers/receive.json', 'shipments'],
  ['PUT', '/v1/supplier-shipments/acknowledge.json', 'shipments'],
  ['PUT', '/v1/supplier-shipments/receive.json', 'shipments'],
  ['PATCH', '/v1/supplier-shipments/failed.json', 'shipments'],
  ['PUT', '/v1/customer-return-shipments/acknowledge.json', 'shipments'],
  ['PUT', '/v1/customer-return-shipments/receive.json', 'shipments'],
  ['POST', '/v1/inventory/adjustments.json', 'adjustments'],
  ['POST', '/v1/inventory/counts.json', 'items'],
];

function expectJson400(res: { status: number; body: any }, label: string) {
  expect(res.status, label).toBe(400);
  expect(errorBody.safeParse(res.body).success, `${label}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(true);
}

describe('bad input never gives a 5xx', () => {
  it('malformed JSON, empty bodies, wrong types and missing arrays give 400 with the error body on every write', async () => {
    for (const [method, path, key] of WRITES) {
      expectJson400(await emu.request(method, path, undefined, { raw: '{"shipments": [' }), `${path} malformed`);
      expectJson400(await emu.request(method, path, undefined, { raw: '' }), `${path} empty`);
      expectJson400(await emu.request(method, path, []), `${path} array body`);
      expectJson400(await emu.request(method, path, {}), `${path} missing array`);
      expectJson400(await emu.request(method, path, { [key]: 'abc' }), `${path} wrong type`);
      expectJson400(await emu.request(method, path, { [key]: [] }), `${path} empty array`);
    }
  });

  it('huge arrays, huge strings, huge bodies and deep nesting give 400', async () => {
    const many = Array.from({ length: LIMITS.maxItemsPerRequest + 1 }, (_, i) => ({ id: i + 1 }));
    expectJson400(await emu.request('PUT', '/v1/customer-shipments/acknowledge.json', { shipments: many }), 'too many items');
    const long = 'x'.repeat(100_000);
    expectJson400(await emu.request('PUT', '/v1/customer-shipments/ship.json', { shipments: [{ id: 1001, tracking_number: long, lines: [{ product_code: long, quantity: 1 }] }] }), 'huge string fail-fast');
    const perItem = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: long, quantity: 1 }] });
    expect(perItem.status).toBe(207);
    expect(perItem.body.adjustments[0].errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(perItem.body).length).toBeLessThan(10_000);
    const huge = { shipments: [{ id: 1, error: 'y'.repeat(LIMITS.maxBodyBytes + 10) }] };
    expectJson400(await emu.request('PATCH', '/v1/customer-shipments/failed.json', huge), 'body too large');
    let nested = '{"items":[{"product_code":"A","quantity":1}]}';
    for (let i = 0; i < 5000; i++) nested = `{"children":[${nested}]}`;
    expectJson400(await emu.request('PUT', '/v1/customer-shipments/ship.json', undefined, { raw: `{"shipments":[{"id":1001,"packages":[${nested}]}]}` }), 'deep nesting');
  });

  it('per-item endpoints answer items that are not objects or have unknown ids with per-item errors', async () => {
    const res = await emu.request('PUT', '/v1/supplier-shipments/acknowledge.json', { shipments: [1, null, { id: -4 }, { id: 2 ** 40 }, { id: 1.5 }] });
    expect(res.status).toBe(207);
    expect(res.body.shipments).toHaveLength(5);
    expect(res.body.shipments.every((r: any) => r.errors.length > 0)).toBe(true);
  });

  it('unknown paths give 404, wrong methods 405 with Allow, both with the JSON error body', async () => {
    const missing = await emu.get('/v1/nothing-here.json');
    expect(missing.status).toBe(404);
    expect(errorBody.safeParse(missing.body).success).toBe(true);
    const wrong = await emu.request('GET', '/v1/customer-shipments/acknowledge.json');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('PUT');
    expect((await emu.request('DELETE', '/v1/products.json')).status).toBe(405);
    expect((await emu.get('/elsewhere')).status).toBe(404);
    expect((await emu.request('POST', '/v1/customer-shipments/ship.json', { shipments: [] })).status).toBe(405);
  });

  it('query strings with odd values give 400, never 5xx', async () => {
    for (const q of ['page=-1', 'page=1e3', 'ids=', 'ids=%00', 'planned_date_max=tomorrow', 'updated_at_max=2026-13-01T00:00:00Z', `numbers=${'N,'.repeat(2000)}`]) {
      const res = await emu.get(`/v1/customer-shipments.json?${q}`);
      expect(res.status, q).toBe(400);
    }
  });

  it('random JSON bodies and item shapes never give a 5xx on any write endpoint (property test)', async () => {
    const value = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.integer(), fc.string(), fc.constant(null));
    const item = fc.dictionary(fc.constantFrom('id', 'sku', 'lines', 'items', 'packages', 'quantity', 'received_quantity', 'product_code', 'date', 'picking_status', 'error', 'warehouse', 'lot_number'), value, { maxKeys: 6 });
    const body = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.record({ shipments: fc.array(item, { maxLength: 4 }) }), fc.record({ adjustments: fc.array(item, { maxLength: 4 }) }), fc.record({ date: fc.string(), reason: fc.string(), items: fc.array(item, { maxLength: 3 }) }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITES), body, async ([method, path], b) => {
        const res = await emu.request(method, path, b);
        expect(res.status, `${path} ${JSON.stringify(b).slice(0, 300)}`).toBeLessThan(500);
        expect(typeof res.body).toBe('object');
      }),
      { numRuns: 150, seed: 42 },
    );
    for (const q of ['ids=99999999999999999999', 'page=99999999999999999999', 'numbers=%F0%9F%92%A9']) {
      expect((await emu.get(`/v1/customer-shipments.json?${q}`)).status, q).toBeLessThan(500);
    }
  });

  it('semi-valid writes against real records never give a 5xx (property test)', async () => {
    const id = fc.integer({ min: 1000, max: 1300 });
    const sku = fc.constantFrom('SKU-00001', 'SKU-00003', 'SKU-00007', 'SKU-00150', 'SVC-00261', 'NOPE');
    const qty = fc.oneof(fc.integer({ min: -2, max: 8 }), fc.double({ min: 0, max: 5, noNaN: true }));
    const line = fc.record({ product_code: sku, sku, quantity: qty, received_quantity: qty, damaged_quantity: fc.option(qty, { nil: undefined }), lot: fc.option(fc.record({ number: fc.constantFrom('LOT-SKU-00003-A', 'X') }), { nil: undefined }), lot_number: fc.option(fc.constantFrom('LOT-SKU-00003-A', 'L'), { nil: undefined }) }, { requiredKeys: ['quantity'] });
    const strategy = fc.constantFrom(undefined, 'ship_as_available', 'defer_unshipped', 'ship_all_together', 'split_and_keep_open', 'finalize_and_start_new');
    const item = fc.record({ id, lines: fc.array(line, { minLength: 1, maxLength: 3 }), items: fc.array(line, { minLength: 1, maxLength: 3 }), ship_strategy: strategy, receiving_strategy: strategy, picking_status: fc.constantFrom('done', 'in-progress'), error: fc.constant('e'), carrier: fc.constant('UPS'), carrier_service: fc.constant('G'), tracking_number: fc.constant('T') }, { requiredKeys: ['id'] });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITES.filter(([, , key]) => key === 'shipments')), fc.array(item, { minLength: 1, maxLength: 3 }), async ([method, path], items) => {
        const res = await emu.request(method, path, { shipments: items });
        expect(res.status, `${path} ${JSON.stringify(items).slice(0, 400)} ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
      }),
      { numRuns: 150, seed: 7 },
    );
    const adj = fc.record({ product_code: sku, quantity: qty, company_code: fc.constantFrom('ACME', 'GLOBEX', 'X'), lot_number: fc.option(fc.constantFrom('LOT-SKU-00003-A', 'L'), { nil: undefined }), warehouse: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) }, { requiredKeys: ['product_code', 'quantity'] });
    await fc.assert(
      fc.asyncProperty(fc.array(adj, { minLength: 1, maxLength: 5 }), async (adjustments) => {
        const res = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments });
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeLessThan(500);
      }),
      { numRuns: 50, seed: 7 },
    );
  });

  it('the state is intact after all of the above', async () => {
    const state = await adminState(emu, ['warehouses']);
    expect(state.warehouses).toHaveLength(2);
  });
});

describe('nesting depth', () => {
  const nested = (depth: number): unknown => (depth === 0 ? { product_code: 'SKU-00001' } : depth % 2 ? [nested(depth - 1)] : { x: nested(depth - 1) });

  it('a body nested deeper than 32 levels is refused as too deep before validation; 20 levels reach validation', async () => {
    const deep = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [nested(40)] });
    expectJson400(deep, 'deep');
    expect(deep.body.error.code).toBe('too_deep');
    const shallow = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [nested(20)] });
    expect(shallow.body.error?.code).not.toBe('too_deep');
  });
});
