import { describe, expect, it } from 'vitest';
import { bodyTerms, elementsAt, elementsHolding, resultOf, termFilter, termFilters, termPart, TermProbe } from './search-terms.js';

describe('search terms', () => {
  it('a block\'s filter holds every term put in it, and says no to nearly all others', () => {
    const terms = new Set(Array.from({ length: 3000 }, (_, i) => `so-${i}`));
    const filter = termFilter(terms, terms.size);
    for (const t of terms) expect(new TermProbe(t).mayHold(filter), t).toBe(true);
    let maybe = 0;
    for (let i = 0; i < 10_000; i++) if (new TermProbe(`po-${i}`).mayHold(filter)) maybe++;
    expect(maybe).toBeLessThan(10); // about 0.01 % by design
  });

  it('terms of a body: its short string values at any depth, lower-cased; numbers and long texts are not', () => {
    const found = new Set<string>();
    bodyTerms({ order_number: 'SO-1011', lines: [{ product_code: 'SKU-7', quantity: 3 }], note: 'x'.repeat(200), carrier: { asn: 'ASN-9' } }, found);
    expect([...found].sort()).toEqual(['asn-9', 'sku-7', 'so-1011']);
  });
});

describe('termFilters', () => {
  it('splits a block\'s terms over 16 parts by hash; a term is found in its part\'s filter', () => {
    const terms = new Set(Array.from({ length: 500 }, (_, i) => `sku-${i}`));
    const parts = new Map(termFilters(terms));
    expect(parts.size).toBe(16);
    for (const t of terms) expect(new TermProbe(t).mayHold(parts.get(termPart(t))!), t).toBe(true);
  });
});

describe('elementsHolding', () => {
  it('finds the bodies of a block that hold the term as a value, any case, not as a key or inside a longer value', () => {
    const bodies = JSON.stringify([{ ref: 'A-1', n: [1, 2] }, { ref: 'a-10', note: 'x, "A-1"' }, { 'a-1': 'key' }, { lines: [{ sku: 'A-1' }] }]);
    expect([...elementsHolding(bodies, 'a-1')]).toEqual([0, 3]);
  });
});

describe('elementsAt and resultOf', () => {
  it('parse only the elements asked for, strings with brackets and commas included', () => {
    const docs = JSON.stringify([[1, 'a,]', 2, 2, null], [2, 'b"[', 3, 9, [3, 5, 9]], [3, null, 10, 10, null], [4, '\\', 11, 11, null]]);
    expect([...elementsAt(docs, [1, 3])]).toEqual([[1, [2, 'b"[', 3, 9, [3, 5, 9]]], [3, [4, '\\', 11, 11, null]]]);
    expect([...elementsAt(docs, [0])]).toEqual([[0, [1, 'a,]', 2, 2, null]]]);
    expect(elementsAt('[]', [0]).size).toBe(0);
    const results = JSON.stringify([[7, { move_id: 1, lines: [[7, 8]] }], [17, { move_id: 2 }], [70, 'x']]);
    expect(resultOf(results, 17)).toEqual({ move_id: 2 });
    expect(resultOf(results, 7)).toEqual({ move_id: 1, lines: [[7, 8]] });
    expect(resultOf(results, 70)).toBe('x');
    expect(resultOf(results, 8)).toBeNull();
  });
});
