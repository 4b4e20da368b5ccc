import { describe, expect, it } from 'vitest';
import { blockIndex, IndexProbe, type BlockIndexPart } from './search-index.js';

/** The items of a block's index that carried `term`, as a search finds them: its part's tokens, then its part's entries. */
function carried(index: BlockIndexPart[], term: string): number[] {
  const probe = new IndexProbe(term);
  const part = index.find((p) => p.part === probe.part);
  return part === undefined || !probe.mayHold(part.tokens) ? [] : probe.items(part.entries);
}

describe('block term index', () => {
  it('finds the items that carried a term as document key or body value, any case; not a part of a value, a number or a long text', () => {
    const items = [{ docKey: 'SO-1011' }, { docKey: 'so-1012' }, { docKey: null }, {}];
    const bodies = [
      { order_number: 'SO-1011', lines: [{ product_code: 'SKU-7', quantity: 3 }] },
      { order_number: 'SO-1012', note: 'x'.repeat(200), carrier: { asn: 'ASN-9' } },
      { lines: [{ product_code: 'sku-7' }], ref: 'SO-10' },
      { quantity: 1011, text: 'Größe-XL' },
    ];
    const index = blockIndex(items, bodies);
    expect(carried(index, 'so-1011')).toEqual([0]);
    expect(carried(index, 'so-1012')).toEqual([1]);
    expect(carried(index, 'sku-7')).toEqual([0, 2]);
    expect(carried(index, 'asn-9')).toEqual([1]);
    expect(carried(index, 'größe-xl')).toEqual([3]);
    expect(carried(index, 'so-101')).toEqual([]);
    expect(carried(index, '1011')).toEqual([]);
    expect(carried(index, 'x'.repeat(200))).toEqual([]);
  });

  it('holds the item indexes of big blocks (wider entries) and says no to terms it never held', () => {
    const n = 5000;
    const items = Array.from({ length: n }, (_, i) => ({ docKey: `SKU-${i % 700}` }));
    const bodies = Array.from({ length: n }, (_, i) => ({ product_code: `SKU-${i % 700}`, reference: `R-${i}` }));
    const index = blockIndex(items, bodies);
    expect(index.length).toBe(16);
    expect(carried(index, 'r-4999')).toEqual([4999]);
    expect(carried(index, 'sku-5')).toEqual(Array.from({ length: 8 }, (_, k) => 5 + 700 * k).filter((i) => i < n));
    let found = 0;
    let maybe = 0;
    for (let i = 0; i < 20_000; i++) {
      found += carried(index, `po-${i}`).length;
      const probe = new IndexProbe(`po-${i}`);
      if (probe.mayHold(index.find((p) => p.part === probe.part)!.tokens)) maybe++;
    }
    expect(found).toBe(0);
    // 5,700 distinct terms over 16 parts, a 22-bit token each: about 356 / 2^18 of the terms it never held pass.
    expect(maybe).toBeLessThan(80);
    // Tokens are kept once per distinct term: 5,700 terms of 3 characters.
    expect(index.reduce((n, p) => n + p.tokens.length, 0)).toBe(3 * 5700);
  });
});
