import { describe, expect, it } from 'vitest';
import { records, useEmulator } from '../support/emulator.js';

// List pages are served from JSON stored per record (records.rendered, kept fresh by triggers) and page ends are
// remembered between requests: these prove a listing shows every kind of write right away.
const emu = useEmulator({ resetEachTest: true });

const listed = async (id: number, status = 'pending') => {
  const res = await emu.get(`/v1/customer-shipments.json?status=${status}&ids=${id}`);
  expect(res.status).toBe(200);
  return res.body.data[0];
};

describe('list pages follow writes', () => {
  it('a write to a record, its lines, or a product it names shows in its listing at once', async () => {
    const [s] = await records(emu, 'customer_shipments', (r) => r.list_status === 'pending' && r.warehouse_id === 1 && r.lines.length >= 2);
    const before = await listed(s.id);
    expect(before.lines.map((l: any) => l.id)).toEqual(s.lines.map((l: any) => l.id));
    const [l0, l1] = s.lines;

    const touched = await fetch(`${emu.url}/_admin/touch-products`, { method: 'POST', body: JSON.stringify({ codes: [l1.product_code], name: 'Renamed "lamp"' }) });
    expect(touched.status).toBe(200);
    expect((await listed(s.id)).lines.find((l: any) => l.product.code === l1.product_code).product.name).toBe('Renamed "lamp"');


    const status = await emu.request('PATCH', '/v1/customer-shipments/change-status.json', { shipments: [{ id: s.id, picking_status: 'in-progress' }] });
    expect(status.status).toBe(200);
    const picked = await listed(s.id);
    expect(picked.picking_status).toBe('in-progress');
    expect(picked.updated_at > before.updated_at).toBe(true);

    const ship = await emu.request('PUT', '/v1/customer-shipments/ship.json', { shipments: [{ id: s.id, tracking_number: 'R-1', lines: [{ product_code: l0.product_code, quantity: 1 }] }] });
    expect(ship.status).toBe(200);
    const rest = await listed(s.id);
    expect(rest.lines.find((l: any) => l.product.code === l0.product_code)?.quantity ?? 0).toBe(l0.quantity - 1);
    expect(rest.lines.find((l: any) => l.product.code === l1.product_code).quantity).toBe(l1.quantity);
    const split = await listed(ship.body.shipments[0].split_shipment_id, 'done');
    expect(split).toMatchObject({ origin_id: s.id, origin_kind: 'split', status: 'done', tracking_numbers: ['R-1'] });
    expect(split.lines).toEqual([expect.objectContaining({ quantity: 1, product: expect.objectContaining({ code: l0.product_code }) })]);

    const cancel = await fetch(`${emu.url}/_admin/cancel`, { method: 'POST', body: JSON.stringify({ ids: [s.id] }) });
    expect(cancel.status).toBe(200);
    expect(await listed(s.id)).toBeUndefined();
    expect((await listed(s.id, 'canceled')).status).toBe('canceled');
  });

  it('pages read after an acknowledgement shift as offset paging says, although page ends were remembered', async () => {
    const page = async (n: number) => (await emu.get(`/v1/customer-shipments.json?page=${n}`)).body.data.map((r: any) => r.id) as number[];
    const first = await page(1);
    const second = await page(2);
    expect(second.length).toBeGreaterThan(1);
    const ack = await emu.request('PUT', '/v1/customer-shipments/acknowledge.json', { shipments: [{ id: first[0] }] });
    expect(ack.status).toBe(200);
    const again = await page(1);
    expect(again[again.length - 1]).toBe(second[0]);
    expect((await page(2))[0]).toBe(second[1]);
  });
});
