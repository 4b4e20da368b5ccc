import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ControlNumbers } from './control-numbers.js';

describe('control numbers seen', () => {
  it('tells a repeated control number as a set of strings does, in any order', () => {
    const control = fc.oneof(fc.integer({ min: 0, max: 40 }).map((n) => String(n).padStart(4, '0')), fc.integer({ min: 0, max: 40 }).map(String), fc.constantFrom('A1B2', 'ZZZZ'));
    fc.assert(fc.property(fc.array(control, { maxLength: 200 }), (controls) => {
      const seen = new ControlNumbers();
      const model = new Set<string>();
      for (const c of controls) {
        expect(seen.add(c)).toBe(!model.has(c));
        model.add(c);
      }
    }), { numRuns: 300 });
  });

  it('keeps a million consecutive control numbers as one range', () => {
    const seen = new ControlNumbers();
    for (let i = 1; i <= 1_000_000; i++) seen.add(String(i).padStart(4, '0'));
    // 0001–9999 (four digits) and 10000–99999, 100000–999999, 1000000 (by length).
    expect(seen.size).toBe(4);
    expect(seen.add('0500')).toBe(false);
  });
});
