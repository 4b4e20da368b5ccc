import type { Limiter } from '../util/limiter.js';

/**
 * One file's share of its service's undecided requests (Runtime.undecided): a request is recorded as sent only with
 * a slot of the service's budget, held until its outcome is committed. So whatever `files_in_flight` and the jobs
 * add up to, a crash leaves at most `max_requests_in_flight` requests of a service in doubt (read back, or reported
 * uncertain), the bound `requests_in_flight` gives one file.
 *
 * A commit that decides some of the file's requests and records new ones hands the decided ones' slots on to the new
 * ones (one unit of work: never more undecided at once); it takes more from the budget only for the rest.
 */
export class UndecidedShare {
  /** Slots this file holds of the budget. */
  #held = 0;
  /** Of them, requests recorded as sent and not yet decided (their outcome not committed). */
  #undecided = 0;

  constructor(private readonly budget: Limiter) {}

  /** At a commit deciding `deciding` of the file's requests: how many of `room` new ones it may record. */
  grant(room: number, deciding: number): number {
    const free = this.#held - (this.#undecided - deciding);
    const taken = free >= room ? 0 : this.budget.tryAcquireUpTo(room - free);
    this.#held += taken;
    return Math.min(room, free + taken);
  }

  /** After that commit (or a failed one: 0, 0): the slots no request needs go back. */
  settle(decided: number, recorded: number): void {
    this.#undecided += recorded - decided;
    const spare = this.#held - this.#undecided;
    if (spare > 0) {
      this.budget.release(spare);
      this.#held -= spare;
    }
  }

  /** Until a slot of the budget is free (taken for the next commit); rejects when `signal` aborts first. */
  async wait(signal?: AbortSignal): Promise<void> {
    await this.budget.acquire(signal ? [signal] : []);
    this.#held++;
  }

  /** The file's flow ended: its slots go back (requests it leaves undecided are the journal's to reconcile). */
  close(): void {
    this.budget.release(this.#held);
    this.#held = 0;
    this.#undecided = 0;
  }
}
