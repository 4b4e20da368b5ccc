import { describe, expect, it } from 'vitest';
import { HeldBytes } from './held-bytes.js';

describe('HeldBytes', () => {
  it('takes what fits, refuses what does not (taking nothing), and takes again what was given back', () => {
    const budget = new HeldBytes(100);
    expect(budget.take(60)).toBe(true);
    expect(budget.take(50)).toBe(false);
    expect(budget.held).toBe(60);
    expect(budget.take(40)).toBe(true);
    expect(budget.take(1)).toBe(false);
    budget.give(60);
    expect(budget.held).toBe(40);
    expect(budget.take(50)).toBe(true);
    budget.give(1000);
    expect(budget.held).toBe(0);
  });
});
