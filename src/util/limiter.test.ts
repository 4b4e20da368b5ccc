import { describe, expect, it } from 'vitest';
import { Limiter } from './limiter.js';

describe('Limiter', () => {
  it('gives out at most its size, then slots in arrival order as they come back', async () => {
    const limiter = new Limiter(2);
    const got: number[] = [];
    const waits = [1, 2, 3, 4].map((n) => limiter.acquire().then(() => got.push(n)));
    await Promise.resolve();
    await Promise.resolve();
    expect(got).toEqual([1, 2]);
    expect(limiter.held).toBe(2);
    limiter.release();
    await waits[2];
    expect(got).toEqual([1, 2, 3]);
    limiter.release();
    await waits[3];
    expect(got).toEqual([1, 2, 3, 4]);
    expect(limiter.held).toBe(2);
  });

  it('a wait ended by its signal takes no slot and leaves the queue', async () => {
    const limiter = new Limiter(1);
    await limiter.acquire();
    const stop = new AbortController();
    const aborted = limiter.acquire([stop.signal]);
    const next = limiter.acquire();
    stop.abort(new Error('shutdown'));
    await expect(aborted).rejects.toThrow('shutdown');
    limiter.release();
    await next;
    expect(limiter.held).toBe(1);
    await expect(limiter.acquire([AbortSignal.abort(new Error('already'))])).rejects.toThrow('already');
    expect(limiter.tryAcquire()).toBe(false);
    limiter.release();
    expect(limiter.tryAcquire()).toBe(true);
    expect(() => new Limiter(0)).toThrow(RangeError);
  });

  it('takes what is free of a number of slots, never ahead of a waiter, and gives several back at once', async () => {
    const limiter = new Limiter(5);
    expect(limiter.tryAcquireUpTo(3)).toBe(3);
    expect(limiter.tryAcquireUpTo(4)).toBe(2);
    expect(limiter.tryAcquireUpTo(1)).toBe(0);
    const waiting = limiter.acquire();
    limiter.release(3);
    await waiting;
    // the waiter got one of the three; the two others are free, but a new waiter would still come first
    expect(limiter.held).toBe(3);
    expect(limiter.tryAcquireUpTo(5)).toBe(2);
    expect(() => limiter.release(6)).toThrow(/6 released, 5 held/);
  });
});
