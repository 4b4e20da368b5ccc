import { describe, expect, it } from 'vitest';
import { receiveResponse } from '../../src/contract/index.js';
import { multiLineRecord, recordById, records, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ resetEachTest: true });

const multiLine = (family: string) => multiLineRecord(emu, family);
const one = (family: string, id: number) => recordById(emu, family, id);

describe('supplier shipments', () => {
  it('acknowledge is per-item: 200, or 207 with errors for received / unknown ones', async () => {
    const s = await multiLine('supplier_shipments');
    const [done] = await records(emu, 'supplier_shipments', (r) => r.state === 'received');
    const res = await emu.request('PUT', '/v1/supplier-shipments/acknowledge.json', { shipments: [{ id: s.id }, { id: done.id }] });
    expect(res.status).toBe(207);
    expect(res.body.shipments[0].acknowledged_at).not.toBeNull();
    expect(res.body.shipments[1]).toMatchObject({ id: done.id, acknowledged_at: null });
    expect((await emu.get(`/v1/supplier-shipments.json?status=open`)).body.data.map((r: any) => r.id)).toContain(s.id);
  });

  it('receive with finalize_and_start_new (default) closes the original and opens a new shipment for the rest', async () => {
    const s = await multiLine('supplier_shipments');
    const [l0] = s.lines;
    const res = await emu.request('PUT', '/v1/supplier-shipments/receive.json', { shipments: [{ id: s.id, tpl_reference: 'GRN-1', lines: [{ sku: l0.product_code, received_quantity: 1 }] }] });
    expect(res.status).toBe(200);
    expect(receiveResponse.safeParse(res.body).success).toBe(true);
    expect(await one('supplier_shipments', s.id)).toMatchObject({ state: 'received', list_status: 'done' });
    const follow = await one('supplier_shipments', res.body.shipments[0].new_id);
    expect(follow).toMatchObject({ state: 'inbound', list_status: 'pending', origin_id: s.id });
    const rest = follow.lines.map((l: any) => [l.product_code, l.quantity]);
    expect(rest).toEqual(s.lines.map((l: any, i: number) => [l.product_code, i === 0 ? l.quantity - 1 : l.quantity]));
  });

  it('receive with split_and_keep_open splits off the received portion and keeps the original open', async () => {
    const s = await multiLine('supplier_shipments');
    const [l0, l1] = s.lines;
    const res = await emu.request('PUT', '/v1/supplier-shipments/receive.json', { shipments: [{ id: s.id, receiving_strategy: 'split_and_keep_open', lines: [{ sku: l0.product_code, received_quantity: 1, damaged_quantity: 1 }] }] });
    expect(res.status).toBe(200);
    const original = await one('supplier_shipments', s.id);
    expect(original.state).toBe('inbound');
    expect(original.lines.find((l: any) => l.product_code === l0.product_code)?.quantity ?? 0).toBe(l0.quantity - 2);
    expect(original.lines.find((l: any) => l.product_code === l1.product_code).quantity).toBe(l1.quantity);
    const split = await one('supplier_shipments', res.body.shipments[0].split_id);
    expect(split).toMatchObject({ state: 'received', origin_kind: 'split' });
    expect(split.lines[0]).toMatchObject({ quantity: 2, damaged_quantity: 1 });
  });

  it('per-item receive errors: unknown SKU, too much, lot rules; other items still apply', async () => {
    const [a, b] = (await records(emu, 'supplier_shipments', (r) => r.warehouse_id === 1 && r.state === 'inbound'));
    const res = await emu.request('PUT', '/v1/supplier-shipments/receive.json', { shipments: [
      { id: a.id, lines: [{ sku: 'SKU-NOPE', received_quantity: 1 }] },
      { id: b.id, lines: [{ sku: b.lines[0].product_code, received_quantity: b.lines[0].quantity + 5 }] },
      { id: a.id, lines: [{ sku: a.lines[0].product_code, received_quantity: 1, lot_expiry_date: '2027-01-01' }] },
      { id: a.id, lines: [{ sku: a.lines[0].product_code, received_quantity: 1 }] },
    ] });
    expect(res.status).toBe(207);
    const [e0, e1, e2, e3] = res.body.shipments;
    expect(e0.errors[0]).toMatch(/not found/);
    expect(e1.errors[0]).toMatch(/exceeds/);
    expect(e2.errors[0]).toMatch(/lot_expiry_date requires lot_number/);
    expect(e3.errors === null || e3.errors.length === 0).toBe(true);
  });

  it('lot fields are refused at a warehouse without lot inventory', async () => {
    const [s] = await records(emu, 'supplier_shipments', (r) => r.warehouse_id === 2 && r.state === 'inbound');
    const res = await emu.request('PUT', '/v1/supplier-shipments/receive.json', { shipments: [{ id: s.id, lines: [{ sku: s.lines[0].product_code, received_quantity: 1, lot_number: 'L1', lot_expiry_date: '2027-01-01' }] }] }, { token: emu.mintToken([2]) });
    expect(res.status).toBe(207);
    expect(res.body.shipments[0].errors[0]).toMatch(/lot inventory/);
  });

  it('failed sets sending_error (PATCH and POST)', async () => {
    const s = await multiLine('supplier_shipments');
    for (const method of ['PATCH', 'POST']) {
      const res = await emu.request(method, '/v1/supplier-shipments/failed.json', { shipments: [{ id: s.id, error: `dock closed ${method}` }] });
      expect(res.status).toBe(200);
      expect(res.body.shipments[0]).toMatchObject({ id: s.id, tpl_status: 'sending_error', errors: null });
    }
    expect(await one('supplier_shipments', s.id)).toMatchObject({ tpl_status: 'sending_error', tpl_error: 'dock closed POST' });
  });
});

describe('customer returns', () => {
  it('acknowledge draft returns; cancelled ones give a per-item error', async () => {
    const r = await multiLine('customer_return_shipments');
    const [canceled] = await records(emu, 'customer_return_shipments', (x) => x.state === 'canceled');
    const res = await emu.request('PUT', '/v1/customer-return-shipments/acknowledge.json', { shipments: [{ id: r.id }, { id: canceled.id }] });
    expect(res.status).toBe(207);
    expect(res.body.shipments[1].errors[0]).toMatch(/cancel/);
    expect((await emu.get(`/v1/customer-return-shipments.json?status=open&ids=${r.id}`)).body.data).toHaveLength(1);
    expect((await emu.get(`/v1/customer-return-shipments.json?status=canceled&ids=${canceled.id}`)).body.data).toHaveLength(1);
  });

  it('receive with split_and_keep_open (default) splits off the received items; finalize_and_start_new closes and reopens', async () => {
    const r = await multiLine('customer_return_shipments');
    const [l0] = r.lines;
    const split = await emu.request('PUT', '/v1/customer-return-shipments/receive.json', { shipments: [{ id: r.id, items: [{ sku: l0.product_code, received_quantity: 1, return_reason: 2 }] }] });
    expect(split.status).toBe(200);
    expect(await one('customer_return_shipments', r.id)).toMatchObject({ state: 'draft' });
    expect(await one('customer_return_shipments', split.body.shipments[0].split_id)).toMatchObject({ state: 'received', list_status: 'done' });
    const fin = await emu.request('PUT', '/v1/customer-return-shipments/receive.json', { shipments: [{ id: r.id, receiving_strategy: 'finalize_and_start_new', items: [{ sku: l0.product_code, quantity: 1 }] }] });
    expect(fin.status).toBe(200);
    expect(await one('customer_return_shipments', r.id)).toMatchObject({ state: 'received', list_status: 'done' });
    expect(await one('customer_return_shipments', fin.body.shipments[0].new_id)).toMatchObject({ state: 'draft', list_status: 'pending' });
    const bad = await emu.request('PUT', '/v1/customer-return-shipments/receive.json', { shipments: [{ id: r.id, items: [{ sku: l0.product_code }] }] });
    expect(bad.status).toBe(207);
    expect(bad.body.shipments[0].errors[0]).toMatch(/received_quantity or damaged_quantity/);
  });

  it('an unknown return reason is a per-item error', async () => {
    const r = await multiLine('customer_return_shipments');
    const res = await emu.request('PUT', '/v1/customer-return-shipments/receive.json', { shipments: [{ id: r.id, items: [{ sku: r.lines[0].product_code, received_quantity: 1, return_reason: 77 }] }] });
    expect(res.status).toBe(207);
    expect(res.body.shipments[0].errors[0]).toMatch(/return reason 77/);
  });
});
