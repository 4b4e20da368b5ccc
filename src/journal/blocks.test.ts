import { describe, expect, it } from 'vitest';
import { packBatch, type PackedDoc } from './blocks.js';

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
});
