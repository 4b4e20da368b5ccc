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

  it('grows past its first buffer, writes texts of megabytes (then lets that buffer go), and starts empty after each end', () => {
    const w = new JsonTextWriter();
    const long = 'é'.repeat(70_000);
    expect(w.raw('[').text(long).raw(',').number(42).raw(']').end()).toBe(JSON.stringify([long, 42]));
    expect(w.raw('[]').end()).toBe('[]');
    const huge = 'x'.repeat(3 * 1024 * 1024);
    expect(w.text(huge).end()).toBe(JSON.stringify(huge));
    expect(new JsonTextWriter().raw('[1]').end()).toBe('[1]');
  });
});

describe('JsonTextWriter.value', () => {
  it('writes any value as JSON.stringify does', () => {
    const w = new JsonTextWriter();
    const values: unknown[] = [
      { move_id: 4711 }, {}, { a: undefined, b: 'x', c: null, d: [1, 'é', { e: 2 }, undefined], f: { g: true, h: NaN, i: -0 } },
      { 'quo"te': 'line\nbreak', ünï: '😀' }, new Date(0), [1, 2], { toJSON: () => 'own' }, Object.assign(Object.create(null), { n: 1 }),
      'text', 12, false, null, { fn: () => 1, s: Symbol('s'), kept: 1 },
    ];
    for (const v of values) expect(w.value(v).end()).toBe(JSON.stringify(v));
  });
});
