import type { JournalTransactions } from '../journal/index.js';

/** How long a request's outcome may wait for the next request's commit before it is committed on its own. */
export const COMPLETION_WAIT_MS = 20;

/**
 * Group commit of request outcomes. With `synchronous=FULL` every commit is an fsync (1–3 ms on the main thread):
 * a request's outcome waits here for the next request's record transaction and is committed with it, one fsync
 * for both, or on its own after COMPLETION_WAIT_MS when no request follows (and always before the file ends).
 * A crash before that commit leaves the request `sent`, which resume settles like a crash between the answer and
 * its commit always was (read back, or uncertain): nothing is applied twice; the window is the one extra wait.
 */
export class CompletionQueue {
  private queued: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;
  /** A commit on the timer that failed: rethrown to the file's flow at its next commit. */
  private failure: { error: unknown } | undefined;

  constructor(private readonly journal: JournalTransactions) {}

  /** `store` writes one request's outcome; it runs inside a journal transaction. */
  add(store: () => void): void {
    this.queued.push(store);
    this.timer ??= setTimeout(() => {
      try {
        this.flush();
      } catch (error) {
        this.failure ??= { error };
      }
    }, COMPLETION_WAIT_MS).unref();
  }

  /**
   * Runs `write` (the next request's record) in one transaction with what is queued. If it fails, the queued
   * outcomes were rolled back with it and stay queued.
   */
  commitWith<T>(write: () => T): T {
    if (this.failure) throw this.failure.error;
    const queued = this.queued;
    this.queued = [];
    this.clearTimer();
    try {
      return this.journal.transaction(() => {
        for (const store of queued) store();
        return write();
      });
    } catch (error) {
      this.queued = [...queued, ...this.queued];
      throw error;
    }
  }

  /** Commits what is queued now. */
  flush(): void {
    this.clearTimer();
    if (this.failure) throw this.failure.error;
    if (this.queued.length > 0) this.commitWith(() => undefined);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
