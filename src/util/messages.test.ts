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
    expect(joinMessages(['a'.repeat(10), 'b'.repeat(10)], undefined, 20)).toBe(`${'a'.repeat(10)} | … 1 more (2 messages in all)`);
  });

  it('a first message longer than the bound is cut', () => {
    expect(joinMessages(['x'.repeat(50)], undefined, 20)).toBe(`${'x'.repeat(20)}…`);
    expect(joinMessages(['x'.repeat(50), 'y'], undefined, 20)).toBe(`${'x'.repeat(20)}… | … 1 more (2 messages in all)`);
  });

  it('when they do not all fit, the messages that name the row\'s line come first', () => {
    const messages = Array.from({ length: 300 }, (_, i) => `MANY.csv, line ${i + 2}, column QTY: "x${i}" is not a number`);
    messages.push('MANY.csv, line 200: the document has no lines left');
    const row = joinMessages(messages, 200);
    expect(row.startsWith('MANY.csv, line 200, column QTY: "x198" is not a number | MANY.csv, line 200: the document has no lines left | MANY.csv, line 2, ')).toBe(true);
    expect(row).toMatch(/ \| … \d+ more \(301 messages in all\)$/);
    expect(joinMessages(messages, 2).startsWith('MANY.csv, line 2, column QTY: "x0" is not a number | MANY.csv, line 3, ')).toBe(true);
    expect(joinMessages(messages, 9999).startsWith('MANY.csv, line 2, ')).toBe(true);
    // Short enough: as they are, whichever line asks.
    expect(joinMessages(messages.slice(0, 3), 4)).toBe(messages.slice(0, 3).join(' | '));
  });
});

