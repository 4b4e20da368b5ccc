import { describe, expect, it } from 'vitest';
import {
  adjustmentItem, cycleCountRequest, inboundTransferReceiveLine, returnReceiveLine, shipPackage, shipRequestItem,
  supplierReceiveLine, splitToStrategy,
} from './index.js';

const line = { product_code: 'SKU-1', quantity: 1 };

describe('ship request item', () => {
  it('accepts lines or packages, refuses both and neither', () => {
    expect(shipRequestItem.safeParse({ id: 1, lines: [line] }).success).toBe(true);
    expect(shipRequestItem.safeParse({ id: 1, packages: [{ items: [line] }] }).success).toBe(true);
    const both = shipRequestItem.safeParse({ id: 1, lines: [line], packages: [{ items: [line] }] });
    expect(both.success).toBe(false);
    expect(JSON.stringify(both.error?.issues)).toContain('mutually exclusive');
    expect(shipRequestItem.safeParse({ id: 1 }).success).toBe(false);
  });
  it('requires quantity of at least 1 and an item reference', () => {
    expect(shipRequestItem.safeParse({ id: 1, lines: [{ product_code: 'A', quantity: 0 }] }).success).toBe(false);
    expect(shipRequestItem.safeParse({ id: 1, lines: [{ quantity: 2 }] }).success).toBe(false);
    expect(shipRequestItem.safeParse({ id: 1, lines: [{ sale_line_id: 9, quantity: 2 }] }).success).toBe(true);
    expect(shipRequestItem.safeParse({ id: 1, lines: [{ product_code: 'A', quantity: '2' }] }).success).toBe(false);
  });
  it('accepts aliases and refuses contradicting aliases', () => {
    expect(shipRequestItem.safeParse({ id: 1, lines: [line], carrier_code: 'UPS', carrier_service_code: 'GND', split: true }).success).toBe(true);
    expect(shipRequestItem.safeParse({ id: 1, lines: [line], carrier: 'UPS', carrier_code: 'DHL' }).success).toBe(false);
    expect(shipRequestItem.safeParse({ id: 1, lines: [line], split: false, ship_strategy: 'ship_as_available' }).success).toBe(false);
    expect(splitToStrategy(false)).toBe('ship_all_together');
    expect(splitToStrategy(true)).toBe('ship_as_available');
  });
  it('nests packages: items xor children at each level; consumables need quantity >= 1', () => {
    expect(shipPackage.safeParse({ children: [{ items: [line] }, { items: [line] }] }).success).toBe(true);
    expect(shipPackage.safeParse({ items: [line], children: [{ items: [line] }] }).success).toBe(false);
    expect(shipPackage.safeParse({ children: [{ children: [{}] }] }).success).toBe(false);
    expect(shipPackage.safeParse({ items: [line], consumables: [{ product_code: 'TAPE', quantity: 0 }] }).success).toBe(false);
  });
  it('rejects an unknown ship strategy', () => {
    expect(shipRequestItem.safeParse({ id: 1, lines: [line], ship_strategy: 'whenever' }).success).toBe(false);
  });
});

describe('receive lines', () => {
  for (const [name, schema] of [['inbound', inboundTransferReceiveLine], ['supplier', supplierReceiveLine], ['return', returnReceiveLine]] as const) {
    it(`${name}: needs received or damaged quantity; quantity is an alias`, () => {
      expect(schema.safeParse({ sku: 'A' }).success).toBe(false);
      expect(schema.safeParse({ sku: 'A', damaged_quantity: 1 }).success).toBe(true);
      expect(schema.safeParse({ sku: 'A', quantity: 2 }).success).toBe(true);
      expect(schema.safeParse({ sku: 'A', quantity: 2, received_quantity: 3 }).success).toBe(false);
      expect(schema.safeParse({ sku: 'A', received_quantity: -1 }).success).toBe(false);
    });
  }
  it('supplier: lot_expiry_date requires lot_number and is a real date', () => {
    expect(supplierReceiveLine.safeParse({ sku: 'A', quantity: 1, lot_expiry_date: '2027-01-01' }).success).toBe(false);
    expect(supplierReceiveLine.safeParse({ sku: 'A', quantity: 1, lot_number: 'L', lot_expiry_date: '2027-02-30' }).success).toBe(false);
    expect(supplierReceiveLine.safeParse({ sku: 'A', quantity: 1, lot_number: 'L', lot_expiry_date: '2028-02-29' }).success).toBe(true);
  });
});

describe('inventory', () => {
  it('adjustment quantity is a non-zero number', () => {
    expect(adjustmentItem.safeParse({ product_code: 'A', quantity: -3 }).success).toBe(true);
    expect(adjustmentItem.safeParse({ product_code: 'A', quantity: 0 }).success).toBe(false);
    expect(adjustmentItem.safeParse({ product_code: 'A', quantity: '3' }).success).toBe(false);
  });
  it('cycle count needs date, reason and at least one integer item', () => {
    const ok = { date: '2026-01-01', reason: 'yearly', items: [{ product_code: 'A', quantity: 4 }] };
    expect(cycleCountRequest.safeParse(ok).success).toBe(true);
    expect(cycleCountRequest.safeParse({ ...ok, items: [] }).success).toBe(false);
    expect(cycleCountRequest.safeParse({ ...ok, items: [{ product_code: 'A', quantity: 1.5 }] }).success).toBe(false);
    expect(cycleCountRequest.safeParse({ ...ok, date: '2026-13-01' }).success).toBe(false);
    expect(cycleCountRequest.safeParse({ ...ok, reason: undefined }).success).toBe(false);
  });
});
