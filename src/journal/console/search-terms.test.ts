import { describe, expect, it } from 'vitest';
import { elementsAt, resultOf } from './search-terms.js';

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
