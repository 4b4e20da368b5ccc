import { describe, expect, it } from 'vitest';
import { labelledBars, niceTicks } from './chart-axes.js';

describe('chart axes', () => {
  it('y ticks at 1, 2 or 5 × 10^n from 0 to the first tick at or above the maximum', () => {
    expect(niceTicks(80_043)).toEqual([0, 20_000, 40_000, 60_000, 80_000, 100_000]);
    expect(niceTicks(40_000)).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(3)).toEqual([0, 1, 2, 3]);
    expect(niceTicks(1)).toEqual([0, 1]);
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(12)).toEqual([0, 5, 10, 15]);
    expect(niceTicks(999)).toEqual([0, 200, 400, 600, 800, 1000]);
  });

  it('x labels on every bar with something in it, regular ones where they leave room', () => {
    const totals = Array.from({ length: 24 }, (_, i) => (i === 22 ? 5 : 0));
    // Every fourth bar is regular; the bar at 22 takes the place of the one at 20 (2 bars apart, the gap is 3).
    expect(labelledBars(totals, (i) => i % 4 === 0, 3)).toEqual([0, 4, 8, 12, 16, 22]);
    expect(labelledBars([1, 1, 1, 1], () => false, 2)).toEqual([0, 2]);
  });
});
