/**
 * A counting semaphore: at most `size` holders at once, the others wait in arrival order. One per service
 * (the transport's), so every request to the service — the writes of every file and job, listings, read-backs —
 * takes a slot, and the service never sees more than `services.<name>.max_requests_in_flight` from this process.
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

  release(): void {
    if (this.#held === 0) throw new Error('limiter: release without a slot');
    this.#held--;
    const next = this.#waiting.shift();
    next?.grant();
  }
}
