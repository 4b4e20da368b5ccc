import { describe, expect, it } from 'vitest';
import { Limiter } from '../util/limiter.js';
import { UndecidedShare } from './undecided.js';

describe('UndecidedShare', () => {
  it('grants from the slots of the requests a commit decides first, then from the service\'s free slots', () => {
    const budget = new Limiter(4);
    const a = new UndecidedShare(budget);
    const b = new UndecidedShare(budget);
    expect(a.grant(3, 0)).toBe(3);
    a.settle(0, 3);
    expect(b.grant(3, 0)).toBe(1);
    b.settle(0, 1);
    expect(budget.held).toBe(4);
    // a decides two and may record three: the two slots, nothing more free
    expect(a.grant(3, 2)).toBe(2);
    // a failed commit: nothing decided, nothing recorded, nothing given back that a request still needs
    a.settle(0, 0);
    expect(budget.held).toBe(4);
    expect(a.grant(3, 2)).toBe(2);
    a.settle(2, 1);
    expect(budget.held).toBe(3);
  });

  it('waits for a slot another file gives back, and gives back all it holds when its flow ends', async () => {
    const budget = new Limiter(1);
    const a = new UndecidedShare(budget);
    const b = new UndecidedShare(budget);
    expect(a.grant(1, 0)).toBe(1);
    a.settle(0, 1);
    expect(b.grant(1, 0)).toBe(0);
    const waiting = b.wait();
    a.settle(1, 0);
    await waiting;
    // the slot waited for is b's next grant
    expect(b.grant(2, 0)).toBe(1);
    b.settle(0, 1);
    b.close();
    expect(budget.held).toBe(0);
    const stop = new AbortController();
    a.grant(1, 0);
    const aborted = b.wait(stop.signal);
    stop.abort(new Error('shutdown'));
    await expect(aborted).rejects.toThrow('shutdown');
  });
});
