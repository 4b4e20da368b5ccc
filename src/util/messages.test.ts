import { describe, expect, it } from 'vitest';
import { joinMessages, MESSAGE_CHARS } from './messages.js';

describe('a document\'s messages in one cell', () => {
  it('as they are while they fit', () => {
    expect(joinMessages([])).toBe('');
    expect(joinMessages(['one'])).toBe('one');
    expect(joinMessages(['one', 'two'])).toBe('one | two');
  });

  it('whole messages up to the bound, then how many more', () => {
    const messages = Array.from({ length: 1000 }, (_, i) => `product SKU-${String(i).padStart(5, '0')} is not on customer shipment 1001`);
    const text = joinMessages(messages);
    expect(text.length).toBeLessThanOrEqual(MESSAGE_CHARS + 40);
    expect(text.startsWith(`${messages[0]} | ${messages[1]} | `)).toBe(true);
    const shown = text.split(' | ').length - 1;
    expect(text.endsWith(` | … ${1000 - shown} more (1000 messages in all)`)).toBe(true);
    expect(joinMessages(['a'.repeat(10), 'b'.repeat(10)], 20)).toBe(`${'a'.repeat(10)} | … 1 more (2 messages in all)`);
  });

  it('a first message longer than the bound is cut', () => {
    expect(joinMessages(['x'.repeat(50)], 20)).toBe(`${'x'.repeat(20)}…`);
    expect(joinMessages(['x'.repeat(50), 'y'], 20)).toBe(`${'x'.repeat(20)}… | … 1 more (2 messages in all)`);
  });
});
