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
