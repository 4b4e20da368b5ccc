/**
 * A counting semaphore: at most `size` slots held at once, the waiters served in arrival order. Two per service, of
 * `services.<name>.max_requests_in_flight` slots each: the transport's (every request to the service — the writes of
 * every file and job, listings, read-backs — takes one for each attempt, so the service never sees more at once from
 * this process) and the runtime's undecided requests (src/pipeline/undecided.ts: requests recorded as sent and not
 * yet decided, what a crash leaves in doubt).
 */
export class Limiter {
  #held = 0;
  readonly #waiting: Array<{ grant: () => void }> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`a limiter needs at least one slot (got ${size})`);
  }

  /** Slots taken now. */
  get held(): number {
    return this.#held;
  }

  /** Takes a slot when one is free and nobody waits; false otherwise (nothing taken). */
  tryAcquire(): boolean {
    if (this.#held >= this.size || this.#waiting.length > 0) return false;
    this.#held++;
    return true;
  }

  /** Takes up to `most` of the free slots when nobody waits; how many it took. */
  tryAcquireUpTo(most: number): number {
    if (this.#waiting.length > 0) return 0;
    const taken = Math.max(0, Math.min(most, this.size - this.#held));
    this.#held += taken;
    return taken;
  }

  /**
   * Waits for a slot; rejects (without taking one) when a signal aborts first. The caller must `release()` the slot
   * it got, once.
   */
  acquire(signals: readonly AbortSignal[] = []): Promise<void> {
    if (signals.some((s) => s.aborted)) return Promise.reject(signals.find((s) => s.aborted)!.reason);
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          for (const s of signals) s.removeEventListener('abort', onAbort);
          this.#held++;
          resolve();
        },
      };
      const onAbort = (event: Event) => {
        const index = this.#waiting.indexOf(waiter);
        if (index < 0) return;
        this.#waiting.splice(index, 1);
        for (const s of signals) s.removeEventListener('abort', onAbort);
        reject((event.target as AbortSignal).reason);
      };
      for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** Gives back `count` slots (default one), each to the next waiter if any. */
  release(count = 1): void {
    if (count > this.#held) throw new Error(`limiter: ${count} released, ${this.#held} held`);
    for (let i = 0; i < count; i++) {
      this.#held--;
      this.#waiting.shift()?.grant();
    }
  }
}
