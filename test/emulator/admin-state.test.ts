import { describe, expect, it } from 'vitest';
import { multiLineRecord, recordById, useEmulator } from '../support/emulator.js';

const emu = useEmulator({ resetEachTest: true });

const multiLine = (family: string) => multiLineRecord(emu, family);
const one = (family: string, id: number) => recordById(emu, family, id);

describe('GET /_admin/state shows everything a write carried', () => {
  it('a ship with a pallet of packages: tree, items, serial numbers, consumables, SSCC override, and tracking numbers at both levels', async () => {
    const s = await multiLine('customer_shipments');
    const [l0, l1] = s.lines;
    const ship = {
      id: s.id, carrier: 'UPS', carrier_service: 'UPS_GROUND', tracking_number: 'SHIP-TRK', cost: 12.5, cost_currency_code: 'EUR',
      packages: [{
        tracking_number: 'PAL-TRK', medium: 'pallet', override_sscc: '003401234500000017',
        children: [
          { tracking_number: 'PKG-1', reference: 'BOX-A', items: [{ product_code: l0.product_code, quantity: l0.quantity, serial_numbers: ['SN-1', 'SN-2'] }], consumables: [{ product_code: 'CARTON-S', quantity: 1 }] },
          { items: [{ product_code: l1.product_code, quantity: l1.quantity }] },
        ],
      }],
    };
    const res = await emu.request('PUT', '/v1/customer-shipments/ship.json', { shipments: [ship] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    const after = await one('customer_shipments', s.id);
    // The shipment-level number is kept although every package carries one of its own.
    expect(after.tracking_numbers).toEqual(['SHIP-TRK', 'PKG-1', 'PAL-TRK']);
    const [pallet, first, second] = after.packages;
    expect(after.packages).toHaveLength(3);
    expect(pallet).toMatchObject({ parent_id: null, sscc: '003401234500000017', sscc_overridden: true, tracking_number: 'PAL-TRK', medium: 'pallet' });
    expect(first).toMatchObject({
      parent_id: pallet.id, tracking_number: 'PKG-1', reference: 'BOX-A', sscc_overridden: false,
      items: [{ product_code: l0.product_code, quantity: l0.quantity, serial_numbers: ['SN-1', 'SN-2'] }], consumables: [{ product_code: 'CARTON-S', quantity: 1 }],
    });
    expect(first.sscc).toMatch(/^\d{18}$/);
    expect(second).toMatchObject({ parent_id: pallet.id, tracking_number: 'PAL-TRK', items: [{ product_code: l1.product_code, quantity: l1.quantity }] });
    expect(after.writes).toEqual([{ endpoint: 'customerShipments.ship', at: expect.stringMatching(/[+-]\d\d:\d\d$/), item: ship }]);
  });

  it('a supplier receipt keeps lot expiry dates, EPCs and tpl_reference; a return keeps its reasons; an inbound transfer its references', async () => {
    const asn = await multiLine('supplier_shipments');
    const receipt = {
      id: asn.id, tpl_reference: 'GR-77', receiving_strategy: 'split_and_keep_open',
      lines: [{ sku: asn.lines[0].product_code, received_quantity: 1, lot_number: 'L-NEW', lot_expiry_date: '2027-06-30', epc: 'EPC-0001' }],
    };
    expect((await emu.request('PUT', '/v1/supplier-shipments/receive.json', { shipments: [receipt] })).status).toBe(200);
    expect((await one('supplier_shipments', asn.id)).writes.map((w: any) => w.item)).toEqual([receipt]);

    const rma = await multiLine('customer_return_shipments');
    const back = { id: rma.id, items: [{ sku: rma.lines[0].product_code, received_quantity: 1, return_reason: 2 }, { sku: rma.lines[1].product_code, damaged_quantity: 1, return_reason: 1 }] };
    expect((await emu.request('PUT', '/v1/customer-return-shipments/receive.json', { shipments: [back] })).status).toBe(200);
    expect((await one('customer_return_shipments', rma.id)).writes).toEqual([expect.objectContaining({ endpoint: 'customerReturns.receive', item: back })]);

    const it = await multiLine('inbound_transfers');
    const arrival = { id: it.id, tpl_reference: 'WE-9', lines: it.lines.map((l: any) => ({ sku: l.product_code, received_quantity: l.quantity, tpl_reference: `WE-9-${l.id}`, effective_date: '2026-11-20' })) };
    expect((await emu.request('PUT', '/v1/inbound-transfers/receive.json', { shipments: [arrival] })).status).toBe(200);
    expect((await one('inbound_transfers', it.id)).writes).toEqual([expect.objectContaining({ endpoint: 'inboundTransfers.receive', item: arrival })]);
  });

  it('a refused write leaves nothing behind', async () => {
    const s = await multiLine('customer_shipments');
    const res = await emu.request('PUT', '/v1/customer-shipments/ship.json', { shipments: [{ id: s.id, tracking_number: 'X', lines: [{ product_code: 'SKU-99999', quantity: 1 }] }] });
    expect(res.status).toBe(400);
    const after = await one('customer_shipments', s.id);
    expect([after.writes, after.packages, after.tracking_numbers]).toEqual([[], [], []]);
  });
});
