import { describe, expect, it } from 'vitest';
import { documentKey } from './document-key.js';

describe('documentKey', () => {
  it('keeps the mapping grouping key', () => {
    expect(documentKey('customerShipments.ship', 'SO-1126', { id: 1126 })).toBe('SO-1126');
  });
  it('falls back to the SKU of an adjustment, the reference or date of a count, the id of a shipment', () => {
    expect(documentKey('inventory.adjustments', '', { product_code: 'SKU-1', quantity: 2 })).toBe('SKU-1');
    expect(documentKey('inventory.counts', '', { reference: 'CC-7', date: '2026-11-20' })).toBe('CC-7');
    expect(documentKey('inventory.counts', '', { date: '2026-11-20' })).toBe('2026-11-20');
    expect(documentKey('customerShipments.changeStatus', '', { id: 1001, picking_status: 'done' })).toBe('1001');
    expect(documentKey('customerShipments.failed', '', {})).toBe('');
  });
});
