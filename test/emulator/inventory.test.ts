import { describe, expect, it } from 'vitest';
import { adjustmentsResponse, cycleCountResponse } from '../../src/contract/index.js';
import { adminState, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ resetEachTest: true });
const ADJ = '/v1/inventory/adjustments.json';
const COUNTS = '/v1/inventory/counts.json';

const stock = async (wh: number, company: string, code: string, lot: string | null = null) =>
  (await adminState(emu, ['inventory'])).inventory.find((i: any) => i.warehouse_id === wh && i.company_code === company && i.product_code === code && i.lot_number === lot)?.quantity ?? 0;

describe('inventory adjustments (per-item)', () => {
  it('adds and removes stock per warehouse / company / product / lot and answers with move ids', async () => {
    const before = await stock(1, 'GLOBEX', 'SKU-00001');
    const res = await emu.request('POST', ADJ, { adjustments: [
      { product_code: 'SKU-00001', quantity: 5, company_code: 'GLOBEX', reason: 'found', reference: 'ADJ-1', date: '2026-11-21' },
      { product_code: 'SKU-00001', quantity: -2, company_code: 'GLOBEX', reason: 'broken' },
      { product_code: 'SKU-00003', quantity: 4, company_code: 'ACME', lot_number: 'LOT-X' },
    ] });
    expect(res.status).toBe(200);
    expect(adjustmentsResponse.safeParse(res.body).success).toBe(true);
    const [a, b, c] = res.body.adjustments;
    expect(a).toMatchObject({ product_code: 'SKU-00001', reference: 'ADJ-1', company_code: 'GLOBEX', lot_number: null });
    expect(Number.isInteger(a.move_id) && b.move_id > a.move_id).toBe(true);
    expect(c.lot_number).toBe('LOT-X');
    expect(await stock(1, 'GLOBEX', 'SKU-00001')).toBe(before + 3);
    expect(await stock(1, 'ACME', 'SKU-00003', 'LOT-X')).toBe(4);
    const state = await adminState(emu, ['adjustments']);
    expect(state.adjustments).toHaveLength(3);
    expect(state.adjustments[0]).toMatchObject({ reason: 'found', date: '2026-11-21' });
  });

  it('207 with per-item errors: company required with two companies, lot required for lot-tracked SKUs, unknown or non-goods SKU, stock below zero', async () => {
    const state = await adminState(emu, ['products']);
    const service = state.products.find((p: any) => p.type !== 'goods').code;
    const res = await emu.request('POST', ADJ, { adjustments: [
      { product_code: 'SKU-00001', quantity: 1 },
      { product_code: 'SKU-00003', quantity: 1, company_code: 'ACME' },
      { product_code: 'NOPE', quantity: 1, company_code: 'ACME' },
      { product_code: service, quantity: 1, company_code: 'ACME' },
      { product_code: 'SKU-00001', quantity: -100000, company_code: 'ACME' },
      { product_code: 'SKU-00001', quantity: 0, company_code: 'ACME' },
      { product_code: 'SKU-00001', quantity: 1, company_code: 'NOBODY' },
      { product_code: 'SKU-00002', quantity: 2, company_code: 'ACME' },
    ] });
    expect(res.status).toBe(207);
    const errors = res.body.adjustments.map((r: any) => (r.errors ?? []).join(' '));
    expect(errors[0]).toMatch(/company_code is required/);
    expect(errors[1]).toMatch(/lot-tracked/);
    expect(errors[2]).toMatch(/not found/);
    expect(errors[3]).toMatch(/not found/);
    expect(errors[4]).toMatch(/insufficient stock/);
    expect(errors[5]).toMatch(/must not be 0/);
    expect(errors[6]).toMatch(/company NOBODY not found/);
    expect(errors[7]).toBe('');
    expect(res.body.adjustments[4].move_id).toBeNull();
  });

  it('checks stock against what earlier items of the same request booked; move ids follow on across requests', async () => {
    const before = await stock(1, 'ACME', 'SKU-00002');
    const res = await emu.request('POST', ADJ, { adjustments: [
      { product_code: 'SKU-00002', quantity: -before, company_code: 'ACME' },
      { product_code: 'SKU-00002', quantity: -1, company_code: 'ACME' },
      { product_code: 'SKU-00002', quantity: 5, company_code: 'ACME' },
      { product_code: 'SKU-00002', quantity: -5, company_code: 'ACME' },
    ] });
    expect(res.status).toBe(207);
    expect(res.body.adjustments.map((r: any) => r.errors?.[0] ?? null)).toEqual([
      null, expect.stringMatching(/insufficient stock of SKU-00002 .*: 0 on hand, 1 needed/), null, null,
    ]);
    expect(await stock(1, 'ACME', 'SKU-00002')).toBe(0);
    const ids = res.body.adjustments.map((r: any) => r.move_id);
    const next = await emu.request('POST', ADJ, { adjustments: [{ product_code: 'SKU-00002', quantity: 2, company_code: 'ACME' }] });
    expect([ids[2] - ids[0], ids[3] - ids[2], next.body.adjustments[0].move_id - ids[3]]).toEqual([1, 1, 1]);
    const state = await adminState(emu, ['adjustments']);
    expect(state.adjustments.filter((a: any) => a.product_code === 'SKU-00002').map((a: any) => a.quantity)).toEqual([-before, 5, -5, 2]);
  });

  it('a warehouse with one company needs no company_code and refuses lots when lot inventory is off', async () => {
    const token = emu.mintToken([2]);
    const res = await emu.request('POST', ADJ, { adjustments: [{ product_code: 'SKU-00001', quantity: 1 }, { product_code: 'SKU-00003', quantity: 1, lot_number: 'L' }] }, { token });
    expect(res.status).toBe(207);
    expect(res.body.adjustments[0]).toMatchObject({ company_code: 'ACME', errors: null });
    expect(res.body.adjustments[1].errors[0]).toMatch(/lot inventory/);
  });
});

describe('cycle counts', () => {
  const ok = { date: '2026-11-01', reason: 'quarterly count', reference: 'CC-REF', items: [{ product_code: 'SKU-00001', quantity: 7 }] };

  it('records a historical count and answers with the count object', async () => {
    const res = await emu.request('POST', COUNTS, ok);
    expect(res.status).toBe(200);
    expect(cycleCountResponse.safeParse(res.body).success).toBe(true);
    expect(res.body.count).toMatchObject({ reference: 'CC-REF', company_code: 'ACME' });
    expect(res.body.count.number).toMatch(/^CC-\d{6}$/);
    const state = await adminState(emu, ['counts']);
    expect(state.counts).toHaveLength(1);
    expect(state.counts[0].items).toEqual(ok.items);
  });

  it('400 when the date is today or later, a SKU is unknown at the warehouse, items are empty, or a lot is missing', async () => {
    const cases = [
      { ...ok, date: '2026-11-22' },
      { ...ok, date: '2026-12-01' },
      { ...ok, items: [{ product_code: 'SKU-00001', quantity: 1 }, { product_code: 'GHOST', quantity: 1 }] },
      { ...ok, items: [] },
      { ...ok, items: [{ product_code: 'SKU-00003', quantity: 1 }] },
      { ...ok, reason: undefined },
      { ...ok, company_code: 'NOBODY' },
    ];
    for (const body of cases) {
      const res = await emu.request('POST', COUNTS, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message.length).toBeGreaterThan(0);
    }
    expect((await adminState(emu, ['counts'])).counts).toHaveLength(0);
  });

  it('uses the warehouse default company when company_code is omitted', async () => {
    const res = await emu.request('POST', COUNTS, { ...ok, company_code: 'GLOBEX' });
    expect(res.body.count.company_code).toBe('GLOBEX');
  });
});

describe('products read once by the emulator', () => {
  it('a reset with other products is seen at once: unknown before, adjusted after', async () => {
    const adjust = () => emu.request('POST', ADJ, { adjustments: [{ product_code: 'SKU-00301', quantity: 1, company_code: 'ACME' }] });
    const before = await adjust();
    expect(before.body.adjustments[0].errors.join(' ')).toMatch(/SKU-00301 not found/);
    await fetch(`${emu.url}/_admin/reset`, { method: 'POST', body: JSON.stringify({ scale: 'medium' }) });
    const after = await adjust();
    expect(after.status).toBe(200);
    expect(after.body.adjustments[0].move_id).toEqual(expect.any(Number));
    await fetch(`${emu.url}/_admin/reset`, { method: 'POST', body: JSON.stringify({ scale: 'small' }) });
    expect((await adjust()).body.adjustments[0].errors.join(' ')).toMatch(/not found/);
  });
});
