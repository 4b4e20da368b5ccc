import { describe, expect, it } from 'vitest';
import { TextBuffer } from './text-buffer.js';

describe('TextBuffer', () => {
  it('writes numbers as String does and text as UTF-8', () => {
    const out = new TextBuffer(8);
    const numbers = [0, 7, 10, 99, 100, 12345, 2 ** 31, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, -5, -0, 1.5, 1e21, NaN, -Infinity];
    for (const n of numbers) out.number(n).ascii(';');
    expect(out.toString()).toBe(numbers.map((n) => `${String(n)};`).join(''));
    out.clear();
    const texts = ['', 'SKU-1', 'Größe-XL', '😀', 'lone \ud800'];
    for (const t of texts) out.text(t).ascii('|');
    expect(out.bytes()).toEqual(Buffer.from(texts.map((t) => `${t}|`).join(''), 'utf8'));
  });

  it('grows past its first buffer and keeps what it holds', () => {
    const out = new TextBuffer(4);
    const long = 'é'.repeat(10_000);
    out.ascii('head:').text(long).number(42);
    expect(out.toString()).toBe(`head:${long}42`);
    expect(out.length).toBe(5 + 2 * 10_000 + 2);
    out.clear();
    expect(out.length).toBe(0);
  });
});
