import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileParse } from './values.js';

describe('number parsing', () => {
  it('gives the same double as Number() of the normalized text, for every separator combination', () => {
    const formats = [
      { decimal: '.', thousands: '' }, { decimal: ',', thousands: '.' }, { decimal: ',', thousands: '' },
      { decimal: '.', thousands: ',' }, { decimal: ',', thousands: ' ' }, { decimal: '.', thousands: "'" },
    ] as const;
    const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 24 });
    fc.assert(fc.property(fc.constantFrom('', '-', '+'), digits, fc.option(digits), fc.constantFrom(...formats), (sign, whole, frac, f) => {
      const parse = compileParse({ type: 'number', decimal: f.decimal, thousands: f.thousands }, []);
      const text = `${sign}${whole}${frac === null ? '' : f.decimal + frac}`;
      expect(Object.is(parse(text), Number(`${sign}${whole}${frac === null ? '' : '.' + frac}`))).toBe(true);
    }), { numRuns: 5000 });
    const parse = compileParse({ type: 'number', decimal: ',', thousands: '.' }, []);
    expect(parse('1.234.567,25')).toBe(1234567.25);
    expect(Object.is(parse('-0'), -0)).toBe(true);
    expect(parse('9007199254740993,5')).toBe(Number('9007199254740993.5'));
    expect(parse('0,12345678901234567890123')).toBe(Number('0.12345678901234567890123'));
  });
});
