import { describe, expect, it } from 'vitest';
import { packBatch, packOkOutcomes } from './block-pack.js';
import type { PackedDoc } from './blocks.js';

describe('packBatch', () => {
  it('writes the PackedDoc list of a block as JSON.stringify would', () => {
    const items = [
      { seq: 2, docKey: 'SKU-1', lines: [2] },
      { seq: 3, docKey: null, lines: [3, 4, 5] },
      { seq: 7, docKey: 'Größe "XL"', lines: [9, 7] },
      { seq: 12_345_678, docKey: 'SO-1', lines: [12_345_678] },
    ];
    const expected: PackedDoc[] = [[2, 'SKU-1', 2, 2, null], [3, null, 3, 5, null], [7, 'Größe "XL"', 7, 9, [7, 9]], [12_345_678, 'SO-1', 12_345_678, 12_345_678, null]];
    expect(packBatch('inventory.adjustments', items).docs).toBe(JSON.stringify(expected));
  });

  it('gives the seqs as ranges, in order or not, and refuses a seq listed twice or not a whole number', () => {
    const item = (seq: number) => ({ seq, docKey: null, lines: [seq + 1] });
    expect(packBatch('inventory.adjustments', [1, 2, 3, 7, 8].map(item)).ranges).toEqual([[1, 3], [7, 8]]);
    expect(packBatch('inventory.adjustments', [8, 2, 7, 1, 3].map(item)).ranges).toEqual([[1, 3], [7, 8]]);
    expect(() => packBatch('inventory.adjustments', [1, 2, 1].map(item))).toThrow(/seq 1 is listed twice/);
    expect(() => packBatch('inventory.adjustments', [1, 2, 2].map(item))).toThrow(/seq 2 is listed twice/);
    expect(() => packBatch('inventory.adjustments', [1, 2.5].map(item))).toThrow(/invalid seq 2.5/);
  });

  it('writes a whole list after a block it refused half-way', () => {
    const refused = [{ seq: 1, docKey: 'A', lines: [1] }, { seq: 2, docKey: 'B', lines: [2], endpoint: 'customerShipments.ship' }];
    expect(() => packBatch('inventory.adjustments', refused)).toThrow(/item 2 is for customerShipments.ship/);
    expect(packBatch('inventory.adjustments', [{ seq: 3, docKey: 'C', lines: [3] }]).docs).toBe('[[3,"C",3,3,null]]');
  });
});

describe('packOkOutcomes', () => {
  it('packs the results of ok outcomes as the JSON of their [seq, result] pairs, and nothing when one is not ok', () => {
    const outcomes = [
      { seq: 2, status: 'ok' as const, result: { move_id: 4711 } },
      { seq: 3, status: 'ok' as const },
      { seq: 5, status: 'ok' as const, result: { id: 9, shipped_at: '2026-11-27T08:00:00Z', note: 'Größe "XL"' } },
    ];
    expect(packOkOutcomes(outcomes)).toEqual({ ok: 3, results: JSON.stringify([[2, { move_id: 4711 }], [5, outcomes[2].result]]) });
    expect(packOkOutcomes([{ seq: 3, status: 'ok' }])).toEqual({ ok: 1, results: null });
    expect(packOkOutcomes([...outcomes, { seq: 6, status: 'error', messages: ['no'] }])).toBeUndefined();
  });
});
