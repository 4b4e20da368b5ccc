import { describe, expect, it } from 'vitest';
import { inboundReceiveResponse } from '../../src/contract/index.js';
import { adminState, records, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ resetEachTest: true });

const pendingOf = (family: string) => records(emu, family, (r) => r.warehouse_id === 1 && r.list_status === 'pending');
const stock = async (code: string, company: string, lot: string | null = null) =>
  (await adminState(emu, ['inventory'])).inventory.find((i: any) => i.warehouse_id === 1 && i.company_code === company && i.product_code === code && i.lot_number === lot)?.quantity ?? 0;

describe('outbound transfers', () => {
  it('acknowledge is fail-fast: one bad id refuses the whole request and changes nothing', async () => {
    const [a, b] = await pendingOf('outbound_transfers');
    const bad = await emu.request('PUT', '/v1/outbound-transfers/acknowledge.json', { shipments: [{ id: a.id }, { id: 987654 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0]).toMatchObject({ path: 'shipments.1' });
    expect((await records(emu, 'outbound_transfers', (r) => r.id === a.id))[0].acknowledged_at).toBeNull();
    const ok = await emu.request('PUT', '/v1/outbound-transfers/acknowledge.json', { shipments: [{ id: a.id }, { id: b.id }] });
    expect(ok.status).toBe(200);
    expect(ok.body.shipments.map((s: any) => s.id)).toEqual([a.id, b.id]);
    expect(ok.body.shipments[0].acknowledged_at).toMatch(/[+-]\d\d:\d\d$/);
    expect((await emu.get(`/v1/outbound-transfers.json?status=open&ids=${a.id},${b.id}`)).body.data).toHaveLength(2);
    const again = await emu.request('PUT', '/v1/outbound-transfers/acknowledge.json', { shipments: [{ id: a.id }] });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/already acknowledged/);
  });

  it('of 20 concurrent fail-fast acknowledges of one transfer exactly one succeeds', async () => {
    const [a] = await pendingOf('outbound_transfers');
    const results = await Promise.all(Array.from({ length: 20 }, () => emu.request('PUT', '/v1/outbound-transfers/acknowledge.json', { shipments: [{ id: a.id }] })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(19);
  });

  it('ship is fail-fast, sets shipped_at, lists as done and takes the stock', async () => {
    const [a, b] = await pendingOf('outbound_transfers');
    const line = a.lines[0];
    const before = await stock(line.product_code, a.company_code);
    const bad = await emu.request('PUT', '/v1/outbound-transfers/ship.json', { shipments: [
      { id: a.id, carrier: 'UPS', carrier_service: 'UPS_GROUND', tracking_number: '1Z1' },
      { id: b.id, carrier: 'UPS', carrier_service: 'UPS_GROUND' },
    ] });
    expect(bad.status).toBe(400);
    expect((await records(emu, 'outbound_transfers', (r) => r.id === a.id))[0].state).toBe('assigned');
    expect(await stock(line.product_code, a.company_code)).toBe(before);
    const ok = await emu.request('PUT', '/v1/outbound-transfers/ship.json', { shipments: [{ id: a.id, carrier: 'UPS', carrier_service: 'UPS_GROUND', tracking_number: '1Z1' }] });
    expect(ok.status).toBe(200);
    expect(ok.body.shipments[0].shipped_at).toMatch(/[+-]\d\d:\d\d$/);
    expect((await emu.get(`/v1/outbound-transfers.json?status=done&ids=${a.id}`)).body.data).toHaveLength(1);
    expect(await stock(line.product_code, a.company_code)).toBe(before - line.quantity);
    expect((await emu.request('PUT', '/v1/outbound-transfers/ship.json', { shipments: [{ id: a.id, carrier: 'UPS', carrier_service: 'X', tracking_number: '1Z2' }] })).status).toBe(400);
  });
});

describe('inbound transfers', () => {
  it('acknowledge moves shipped transfers to open, fail-fast', async () => {
    const [a] = await pendingOf('inbound_transfers');
    const [done] = await records(emu, 'inbound_transfers', (r) => r.state === 'done');
    const bad = await emu.request('PUT', '/v1/inbound-transfers/acknowledge.json', { shipments: [{ id: a.id }, { id: done.id }] });
    expect(bad.status).toBe(400);
    expect((await records(emu, 'inbound_transfers', (r) => r.id === a.id))[0].acknowledged_at).toBeNull();
    expect((await emu.request('PUT', '/v1/inbound-transfers/acknowledge.json', { shipments: [{ id: a.id }] })).status).toBe(200);
    expect((await emu.get(`/v1/inbound-transfers.json?status=open&ids=${a.id}`)).body.data).toHaveLength(1);
  });

  it('receive answers state done, adds received stock, accepts the legacy quantity alias, and is fail-fast', async () => {
    const transfers = await pendingOf('inbound_transfers');
    const t = transfers.find((r) => r.lines.every((l: any) => l.lot_number === null) && r.lines[0].quantity >= 2)!;
    const line = t.lines[0];
    const before = await stock(line.product_code, t.company_code);
    const bad = await emu.request('PUT', '/v1/inbound-transfers/receive.json', { shipments: [
      { id: t.id, tpl_reference: 'R1', lines: [{ sku: line.product_code, quantity: 1 }] },
      { id: t.id + 100000, lines: [{ sku: line.product_code, received_quantity: 1 }] },
    ] });
    expect(bad.status).toBe(400);
    expect(await stock(line.product_code, t.company_code)).toBe(before);
    const noQty = await emu.request('PUT', '/v1/inbound-transfers/receive.json', { shipments: [{ id: t.id, lines: [{ sku: line.product_code }] }] });
    expect(noQty.status).toBe(400);
    const ok = await emu.request('PUT', '/v1/inbound-transfers/receive.json', { shipments: [{ id: t.id, tpl_reference: 'R1', lines: [{ sku: line.product_code, quantity: 1, damaged_quantity: 1 }] }] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(inboundReceiveResponse.safeParse(ok.body).success).toBe(true);
    expect(ok.body.shipments[0]).toMatchObject({ id: t.id, state: 'done' });
    expect(await stock(line.product_code, t.company_code)).toBe(before + 1);
    expect((await adminState(emu, [])).deprecations.map((d: any) => d.field)).toContain('quantity');
    const all = await emu.get(`/v1/inbound-transfers.json?status=all&ids=${t.id}`);
    expect(all.body.data[0].status).toBe('done');
  });

  it('lot-tracked lines need lot_number on receive', async () => {
    const transfers = await records(emu, 'inbound_transfers', (r) => r.warehouse_id === 1 && r.state === 'shipped');
    const t = transfers.find((r) => r.lines.some((l: any) => l.lot_number !== null))!;
    const line = t.lines.find((l: any) => l.lot_number !== null);
    const missing = await emu.request('PUT', '/v1/inbound-transfers/receive.json', { shipments: [{ id: t.id, lines: [{ sku: line.product_code, received_quantity: 1 }] }] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/lot-tracked/);
    const listed = await emu.get(`/v1/inbound-transfers.json?ids=${t.id}`);
    expect(listed.body.data[0].lines.find((l: any) => l.product.code === line.product_code).lot).toMatchObject({ number: line.lot_number });
    const ok = await emu.request('PUT', '/v1/inbound-transfers/receive.json', { shipments: [{ id: t.id, lines: [{ sku: line.product_code, received_quantity: 1, lot_number: 'LOT-NEW-1', effective_date: '2026-11-20' }] }] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await stock(line.product_code, t.company_code, 'LOT-NEW-1')).toBe(1);
  });
});
