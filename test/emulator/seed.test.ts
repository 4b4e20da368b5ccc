import { describe, expect, it } from 'vitest';
import { adminState, useEmulator } from '../support/emulator.js';

const emu = useEmulator();

describe('small seed', () => {
  it('holds what the issue promises', async () => {
    const s = await adminState(emu);
    expect(s.warehouses.map((w: any) => [w.id, w.lot_inventory, w.companies.length])).toEqual([[1, true, 2], [2, false, 1]]);
    const goods = s.products.filter((p: any) => p.type === 'goods');
    expect(goods.length).toBeGreaterThanOrEqual(250);
    expect(s.products.length).toBeGreaterThan(goods.length);
    expect(goods.some((p: any) => p.lot_tracked)).toBe(true);
    expect(goods.some((p: any) => p.serial_tracked)).toBe(true);
    const lotOnly = goods.filter((p: any) => p.lot_tracked && !p.serial_tracked).map((p: any) => p.code);
    expect(s.inventory.some((i: any) => lotOnly.includes(i.product_code) && i.lot_number !== null && i.quantity > 0)).toBe(true);

    const wh1 = (family: string, status: string) => s[family].filter((r: any) => r.warehouse_id === 1 && r.list_status === status);
    expect(wh1('customer_shipments', 'pending').length).toBeGreaterThanOrEqual(120);
    for (const status of ['open', 'done', 'canceled']) expect(wh1('customer_shipments', status).length, status).toBeGreaterThanOrEqual(5);
    expect(wh1('outbound_transfers', 'pending').length).toBeGreaterThanOrEqual(5);
    expect(s.inbound_transfers.filter((r: any) => r.warehouse_id === 1 && r.state === 'shipped' && !r.acknowledged_at).length).toBeGreaterThanOrEqual(5);
    expect(s.supplier_shipments.filter((r: any) => r.warehouse_id === 1 && r.state === 'inbound').length).toBeGreaterThanOrEqual(5);
    expect(s.customer_return_shipments.filter((r: any) => r.warehouse_id === 1 && r.state === 'draft').length).toBeGreaterThanOrEqual(5);
    expect(s.customer_shipments.filter((r: any) => r.warehouse_id === 2 && r.list_status === 'pending').length).toBeGreaterThanOrEqual(5);

    for (const family of ['customer_shipments', 'outbound_transfers', 'inbound_transfers', 'supplier_shipments', 'customer_return_shipments']) {
      const pending = s[family].filter((r: any) => r.list_status === 'pending');
      expect(pending.some((r: any) => r.lines.length >= 2 && r.lines.every((l: any) => l.quantity >= 2)), family).toBe(true);
    }
  });

  it('on-hand stock covers what the pending shipments need', async () => {
    const s = await adminState(emu, ['customer_shipments', 'inventory']);
    const need = new Map<string, number>();
    for (const r of s.customer_shipments.filter((x: any) => x.state === 'assigned')) {
      for (const l of r.lines) {
        const k = `${r.warehouse_id}|${r.company_code}|${l.product_code}`;
        need.set(k, (need.get(k) ?? 0) + l.quantity);
      }
    }
    const have = new Map<string, number>();
    for (const i of s.inventory) {
      const k = `${i.warehouse_id}|${i.company_code}|${i.product_code}`;
      have.set(k, (have.get(k) ?? 0) + i.quantity);
    }
    for (const [k, q] of need) expect(have.get(k) ?? 0, k).toBeGreaterThanOrEqual(q);
  });
});

describe('seed data that exercises the filters and the edges of a work list', () => {
  const DAY = 86_400_000;

  it('spreads products\' and records\' updated_at over weeks, so updated_at_min/max split the seed', async () => {
    const s = await adminState(emu, ['products', 'customer_shipments']);
    const span = (xs: { updated_at: string }[]) => {
      const times = xs.map((x) => Date.parse(x.updated_at));
      return (Math.max(...times) - Math.min(...times)) / DAY;
    };
    expect(span(s.products)).toBeGreaterThan(14);
    expect(span(s.customer_shipments.filter((r: any) => r.list_status === 'pending'))).toBeGreaterThan(14);
    const times = s.products.map((p: any) => p.updated_at).sort();
    const middle = times[Math.floor(times.length / 2)];
    const count = async (query: string) => {
      let n = 0;
      for (let page = 1; ; page += 1) {
        const res = await emu.get(`/v1/products.json?${query}&page=${page}`);
        expect(res.status).toBe(200);
        n += res.body.products.length;
        if (res.body.products.length < 100) return n;
      }
    };
    const before = await count(`updated_at_max=${encodeURIComponent(middle)}`);
    const after = await count(`updated_at_min=${encodeURIComponent(middle)}`);
    expect(before).toBeGreaterThan(10);
    expect(after).toBeGreaterThan(10);
    expect(before + after).toBe((await count('')) + 1);
  });

  it('has pending lines in the thousands, and customer text starting with = + - @', async () => {
    const pending = await emu.get('/v1/customer-shipments.json?ids=1011,1021,1036,1061,1086');
    const byNumber = new Map(pending.body.data.map((r: any) => [r.number, r]));
    expect((byNumber.get('SO-1021') as any).lines[0].quantity).toBeGreaterThanOrEqual(1000);
    expect(['SO-1011', 'SO-1036', 'SO-1061', 'SO-1086'].map((n) => [(byNumber.get(n) as any).customer.name[0], (byNumber.get(n) as any).delivery_address.address1[0]]))
      .toEqual([['=', '='], ['+', '+'], ['-', '-'], ['@', '@']]);
  });
});
