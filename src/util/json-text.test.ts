import { describe, expect, it } from 'vitest';
import { JsonTextWriter } from './json-text.js';

describe('JsonTextWriter', () => {
  it('writes strings and numbers as JSON.stringify does', () => {
    const w = new JsonTextWriter();
    const texts = ['', 'SKU-1', 'Größe-XL', 'a"b\\c', 'tab\there\nnext', '\u0001', '😀 pair', 'lone \ud800 surrogate', 'ab\u2028cd', null];
    for (const t of texts) expect(w.text(t).end()).toBe(JSON.stringify(t));
    for (const n of [0, 7, 10, 99, 100, 12345, 2 ** 31, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER, -5, 1.5, 1e21, NaN, Infinity]) {
      expect(w.number(n).end()).toBe(JSON.stringify(n));
    }
  });

  it('grows past its first buffer and starts empty after each end', () => {
    const w = new JsonTextWriter();
    const long = 'é'.repeat(70_000);
    expect(w.raw('[').text(long).raw(',').number(42).raw(']').end()).toBe(JSON.stringify([long, 42]));
    expect(w.raw('[]').end()).toBe('[]');
  });
});
