import { describe, expect, it } from 'vitest';
import { shipResponse } from '../../src/contract/index.js';
import { adminState, records, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ resetEachTest: true });
const ACK = '/v1/customer-shipments/acknowledge.json';
const SHIP = '/v1/customer-shipments/ship.json';

async function productFlags(): Promise<Map<string, any>> {
  const s = await adminState(emu, ['products']);
  return new Map(s.products.map((p: any) => [p.code, p]));
}
/** A pending warehouse-1 shipment with 2+ lines of 2+ units, all plain products. */
async function multiLine(): Promise<any> {
  const flags = await productFlags();
  const all = await records(emu, 'customer_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending');
  return all.find((r) => r.lines.length >= 2 && r.lines.every((l: any) => l.quantity >= 2 && !flags.get(l.product_code).lot_tracked && !flags.get(l.product_code).serial_tracked));
}
const stockOf = async (code: string, company: string) =>
  (await adminState(emu, ['inventory'])).inventory.filter((i: any) => i.warehouse_id === 1 && i.company_code === company && i.product_code === code).reduce((s: number, i: any) => s + i.quantity, 0);

describe('acknowledge (per-item)', () => {
  it('acknowledges pending shipments: 200, acknowledged_at set, listed as open', async () => {
    const s = await multiLine();
    const res = await emu.request('PUT', ACK, { shipments: [{ id: s.id }] });
    expect(res.status).toBe(200);
    expect(res.body.shipments[0]).toMatchObject({ id: s.id, errors: null });
    expect(res.body.shipments[0].acknowledged_at).toMatch(/[+-]\d\d:\d\d$/);
    const open = await emu.get(`/v1/customer-shipments.json?status=open&ids=${s.id}`);
    expect(open.body.data).toHaveLength(1);
    const pending = await emu.get(`/v1/customer-shipments.json?ids=${s.id}`);
    expect(pending.body.data).toHaveLength(0);
  });

  it('207 with per-item errors for cancelled, already acknowledged and unknown shipments; the valid ones still succeed', async () => {
    const [canceled] = await records(emu, 'customer_shipments', (r) => r.state === 'canceled');
    const [open] = await records(emu, 'customer_shipments', (r) => r.list_status === 'open');
    const good = await multiLine();
    const res = await emu.request('PUT', ACK, { shipments: [{ id: canceled.id }, { id: good.id }, { id: open.id }, { id: 999999 }, { id: 'x' }] });
    expect(res.status).toBe(207);
    const [c, g, o, u, x] = res.body.shipments;
    expect(c.errors[0]).toMatch(/cancel/);
    expect(g.errors === null || g.errors.length === 0).toBe(true);
    expect(o.errors[0]).toMatch(/already acknowledged/);
    expect(u.errors[0]).toMatch(/not found/);
    expect(x).toMatchObject({ id: null, acknowledged_at: null });
    expect(x.errors.length).toBeGreaterThan(0);
    expect((await records(emu, 'customer_shipments', (r) => r.id === good.id))[0].acknowledged_at).not.toBeNull();
  });

  it('of 20 concurrent acknowledges of one shipment exactly one succeeds', async () => {
    const s = await multiLine();
    const results = await Promise.all(Array.from({ length: 20 }, () => emu.request('PUT', ACK, { shipments: [{ id: s.id }] })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 207)).toHaveLength(19);
  });
});

describe('change-status and failed', () => {
  it('PATCH and its POST alias set picking_status; invalid values and shipped shipments give per-item errors', async () => {
    const s = await multiLine();
    const patch = await emu.request('PATCH', '/v1/customer-shipments/change-status.json', { shipments: [{ id: s.id, picking_status: 'in-progress' }] });
    expect(patch.status).toBe(200);
    expect(patch.body.shipments[0]).toMatchObject({ id: s.id, picking_status: 'in-progress', errors: null });
    const post = await emu.request('POST', '/v1/customer-shipments/change-status.json', { shipments: [{ id: s.id, picking_status: 'exception' }, { id: s.id, picking_status: 'packed' }] });
    expect(post.status).toBe(207);
    expect(post.body.shipments[1].errors[0]).toMatch(/picking_status/);
    const [shipped] = await records(emu, 'customer_shipments', (r) => r.state === 'shipped');
    const [canceled] = await records(emu, 'customer_shipments', (r) => r.state === 'canceled');
    const refused = await emu.request('PATCH', '/v1/customer-shipments/change-status.json', { shipments: [{ id: shipped.id, picking_status: 'done' }, { id: canceled.id, picking_status: 'done' }] });
    expect(refused.status).toBe(207);
    expect(refused.body.shipments.every((r: any) => r.errors.length === 1)).toBe(true);
    const after = (await records(emu, 'customer_shipments', (r) => r.id === s.id))[0];
    expect(after.picking_status).toBe('exception');
    expect(after.list_status).toBe('pending'); // picking status does not change the listing status
    expect((await emu.request('PUT', '/v1/customer-shipments/change-status.json', { shipments: [] })).status).toBe(405);
  });

  it('failed sets tpl_status sending_error and keeps the error text (PATCH and POST)', async () => {
    const s = await multiLine();
    const res = await emu.request('POST', '/v1/customer-shipments/failed.json', { shipments: [{ id: s.id, error: 'label printer jammed' }, { id: 424242, error: 'x' }] });
    expect(res.status).toBe(207);
    expect(res.body.shipments[0]).toMatchObject({ id: s.id, tpl_status: 'sending_error', errors: null });
    expect(res.body.shipments[1].errors[0]).toMatch(/not found/);
    const after = (await records(emu, 'customer_shipments', (r) => r.id === s.id))[0];
    expect(after).toMatchObject({ tpl_status: 'sending_error', tpl_error: 'label printer jammed' });
    expect((await emu.request('PATCH', '/v1/customer-shipments/failed.json', { shipments: [{ id: s.id, error: 'again' }] })).status).toBe(200);
  });
});

describe('ship (fail-fast)', () => {
  it('ships everything: done, shipped_at set, stock decremented, response satisfies the contract', async () => {
    const s = await multiLine();
    const before = await stockOf(s.lines[0].product_code, s.company_code);
    const flags = await productFlags();
    // one line by product_id, the others by product_code
    const lines = s.lines.map((l: any, i: number) => (i === 0 ? { product_id: flags.get(l.product_code).id, quantity: l.quantity } : { product_code: l.product_code, quantity: l.quantity }));
    const res = await emu.request('PUT', SHIP, { shipments: [{ id: s.id, carrier: 'UPS', carrier_service: 'UPS_GROUND', tracking_number: '1ZFULL', lines }] });
    expect(res.status).toBe(200);
    expect(shipResponse.safeParse(res.body).success).toBe(true);
    expect(res.body.shipments[0].shipped_at).not.toBeNull();
    const after = (await records(emu, 'customer_shipments', (r) => r.id === s.id))[0];
    expect(after).toMatchObject({ state: 'shipped', list_status: 'done', tracking_numbers: ['1ZFULL'] });
    expect(await stockOf(s.lines[0].product_code, s.company_code)).toBe(before - s.lines[0].quantity);
    const done = await emu.get(`/v1/customer-shipments.json?status=done&ids=${s.id}`);
    expect(done.body.data).toHaveLength(1);
    const labels = await emu.get(`/v1/customer-shipments/${s.id}/sscc.json`);
    expect(labels.body.packages).toHaveLength(1); // a flat lines list is one default package
  });

  it('of 10 concurrent full ships of one shipment exactly one succeeds and stock is taken once', async () => {
    const s = await multiLine();
    const before = await stockOf(s.lines[0].product_code, s.company_code);
    const body = { shipments: [{ id: s.id, lines: s.lines.map((l: any) => ({ product_code: l.product_code, quantity: l.quantity })) }] };
    const results = await Promise.all(Array.from({ length: 10 }, () => emu.request('PUT', SHIP, body)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(await stockOf(s.lines[0].product_code, s.company_code)).toBe(before - s.lines[0].quantity);
  });

  it('ship_as_available (default) ships the given items in their own split shipment and leaves the rest on the original', async () => {
    const s = await multiLine();
    const [l0, l1] = s.lines;
    const res = await emu.request('PUT', SHIP, { shipments: [{ id: s.id, tracking_number: 'SPLIT-1', lines: [{ product_code: l0.product_code, quantity: 1 }] }] });
    expect(res.status).toBe(200);
    const split = (await records(emu, 'customer_shipments', (r) => r.id === res.body.shipments[0].split_shipment_id))[0];
    expect(split).toMatchObject({ state: 'shipped', origin_id: s.id, origin_kind: 'split', tracking_numbers: ['SPLIT-1'] });
    expect(split.lines).toEqual([expect.objectContaining({ product_code: l0.product_code, quantity: 1 })]);
    const original = (await records(emu, 'customer_shipments', (r) => r.id === s.id))[0];
    expect(original.state).toBe('assigned');
    expect(original.lines.find((l: any) => l.product_code === l0.product_code).quantity).toBe(l0.quantity - 1);
    expect(original.lines.find((l: any) => l.product_code === l1.product_code).quantity).toBe(l1.quantity);
  });

  it('defer_unshipped ships the given items now and moves the rest to a new deferred shipment', async () => {
    const s = await multiLine();
    const [l0, l1] = s.lines;
    const res = await emu.request('PUT', SHIP, { shipments: [{ id: s.id, ship_strategy: 'defer_unshipped', lines: [{ product_code: l0.product_code, quantity: l0.quantity }] }] });
    expect(res.status).toBe(200);
    const original = (await records(emu, 'customer_shipments', (r) => r.id === s.id))[0];
    expect(original.state).toBe('shipped');
    expect(original.lines.map((l: any) => l.product_code)).toEqual([l0.product_code]);
    const deferred = (await records(emu, 'customer_shipments', (r) => r.id === res.body.shipments[0].deferred_shipment_id))[0];
    expect(deferred).toMatchObject({ state: 'assigned', origin_kind: 'deferred', acknowledged_at: null });
    expect(deferred.lines.map((l: any) => [l.product_code, l.quantity])).toEqual(s.lines.slice(1).map((l: any) => [l.product_code, l.quantity]));
    const listed = await emu.get(`/v1/customer-shipments.json?ids=${deferred.id}`);
    expect(listed.body.data[0].lines[0].product.code).toBe(l1.product_code);
  });

  it('ship_all_together holds until complete and accumulates tracking numbers on the same shipment', async () => {
    const s = await multiLine();
    const [l0, ...rest] = s.lines;
    const first = await emu.request('PUT', SHIP, { shipments: [{ id: s.id, ship_strategy: 'ship_all_together', tracking_number: 'T-1', lines: [{ product_code: l0.product_code, quantity: l0.quantity }] }] });
    expect(first.status).toBe(200);
    expect(first.body.shipments[0].shipped_at).toBeNull();
    let original = (await records(emu, 'customer_shipments', (r) => r.id === s.id))[0];
    expect(original.state).toBe('assigned');
    const second = await emu.request('PUT', SHIP, { shipments: [{ id: s.id, split: false, tracking_number: 'T-2', lines: rest.map((l: any) => ({ product_code: l.product_code, quantity: l.quantity })) }] });
    expect(second.status).toBe(200);
    original = (await records(emu, 'customer_shipments', (r) => r.id === s.id))[0];
    expect(original).toMatchObject({ state: 'shipped', tracking_numbers: ['T-1', 'T-2'] });
    expect((await records(emu, 'customer_shipments', (r) => r.origin_id === s.id))).toHaveLength(0);
    const state = await adminState(emu, []);
    expect(state.deprecations.map((d: any) => d.field)).toContain('split');
  });

  it('both lines and packages is a 400; any bad item makes the whole request change nothing', async () => {
    const a = await multiLine();
    const lines = a.lines.map((l: any) => ({ product_code: l.product_code, quantity: l.quantity }));
    const both = await emu.request('PUT', SHIP, { shipments: [{ id: a.id, lines, packages: [{ items: lines }] }] });
    expect(both.status).toBe(400);
    expect(both.body.error.issues.some((i: any) => /mutually exclusive/.test(i.message))).toBe(true);
    const tooMany = await emu.request('PUT', SHIP, { shipments: [{ id: a.id, lines }, { id: a.id + 1, lines: [{ product_code: 'SKU-99999', quantity: 1 }] }] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.issues[0].path).toBe('shipments.1');
    const zero = await emu.request('PUT', SHIP, { shipments: [{ id: a.id, lines: [{ product_code: a.lines[0].product_code, quantity: 0 }] }] });
    expect(zero.status).toBe(400);
    const after = (await records(emu, 'customer_shipments', (r) => r.id === a.id))[0];
    expect(after.state).toBe('assigned');
    expect(after.tracking_numbers).toEqual([]);
    const state = await adminState(emu, ['customer_shipments']);
    expect(state.customer_shipments.filter((r: any) => r.origin_id !== null)).toHaveLength(0);
  });

  it('packages (nested, with consumables) and aliases carrier_code / carrier_service_code are accepted', async () => {
    const s = await multiLine();
    const [l0, l1] = s.lines;
    const res = await emu.request('PUT', SHIP, { shipments: [{
      id: s.id, carrier_code: 'DHL', carrier_service_code: 'DHL_EXPRESS',
      packages: [{ tracking_number: 'PALLET', children: [
        { tracking_number: 'BOX-1', items: [{ product_code: l0.product_code, quantity: l0.quantity }], consumables: [{ product_code: 'TAPE', quantity: 2 }] },
        { tracking_number: 'BOX-2', override_sscc: '003456789012345678', items: s.lines.slice(1).map((l: any) => ({ product_code: l.product_code, quantity: l.quantity })) },
      ] }],
    }] });
    expect(res.status).toBe(200);
    const after = (await records(emu, 'customer_shipments', (r) => r.id === s.id))[0];
    expect(after).toMatchObject({ state: 'shipped', carrier_code: 'DHL', service_code: 'DHL_EXPRESS' });
    expect(after.tracking_numbers).toEqual(expect.arrayContaining(['BOX-1', 'BOX-2']));
    expect(l1).toBeDefined();
    const fields = (await adminState(emu, [])).deprecations.map((d: any) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['carrier_code', 'carrier_service_code']));
    const labels = await emu.get(`/v1/customer-shipments/${s.id}/sscc.json`);
    expect(labels.body.packages.some((p: any) => p.sscc === '003456789012345678')).toBe(true);
  });

  it('lot-tracked SKUs need a lot and serial-tracked SKUs need serial numbers; quantity beyond the order is refused', async () => {
    const flags = await productFlags();
    const pending = await records(emu, 'customer_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending');
    const withLot = pending.find((r) => r.lines.some((l: any) => flags.get(l.product_code).lot_tracked));
    const lotLine = withLot.lines.find((l: any) => flags.get(l.product_code).lot_tracked);
    const noLot = await emu.request('PUT', SHIP, { shipments: [{ id: withLot.id, lines: [{ product_code: lotLine.product_code, quantity: 1 }] }] });
    expect(noLot.status).toBe(400);
    expect(noLot.body.error.message).toMatch(/lot/);
    const ok = await emu.request('PUT', SHIP, { shipments: [{ id: withLot.id, lines: [{ product_code: lotLine.product_code, quantity: 1, lot: { number: lotLine.lot_number } }] }] });
    expect(ok.status).toBe(200);
    const s = await multiLine();
    const over = await emu.request('PUT', SHIP, { shipments: [{ id: s.id, lines: [{ sale_line_id: s.lines[0].id, quantity: s.lines[0].quantity + 1 }] }] });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/left/);
  });
});

describe('SSCC labels', () => {
  it('answers with signed URLs that serve a PDF and refuse a tampered signature', async () => {
    const s = await multiLine();
    const res = await emu.get(`/v1/customer-shipments/${s.id}/sscc.json`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(s.id);
    expect(res.body.label_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_labels\/shipments\/\d+\.pdf\?expires=\d+&signature=[0-9a-f]{64}$/);
    expect(res.body.packages.length).toBeGreaterThan(0);
    const pdf = await fetch(res.body.packages[0].label_url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect((await pdf.text()).startsWith('%PDF')).toBe(true);
    const tampered = await fetch(res.body.label_url.replace(/signature=(.)/, (_: string, c: string) => `signature=${c === '0' ? '1' : '0'}`));
    expect(tampered.status).toBe(403);
    expect((await emu.get('/v1/customer-shipments/99999999/sscc.json')).status).toBe(404);
  });
});
