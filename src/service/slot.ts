/** Why a job run started. */
export type Trigger = 'schedule' | 'catch-up' | 'watch' | 'start' | 'manual';

/**
 * Keeps a job from overlapping itself: `tryRun` skips when the job is busy (a scheduled tick), `runWhenFree` waits
 * its turn (a file the watcher found must not be dropped). `runShared` is for the watcher's files, several at once
 * (the job's files_in_flight, bounded by the caller): they run beside each other, never beside a whole run.
 */
export class JobSlot {
  private current: Promise<unknown> | undefined;
  private currentTrigger: Trigger | undefined;
  private readonly shared = new Set<Promise<unknown>>();
  private sharedTrigger: Trigger | undefined;

  constructor(readonly name: string) {}

  get busy(): boolean {
    return this.current !== undefined || this.shared.size > 0;
  }

  get runningTrigger(): Trigger | undefined {
    return this.currentTrigger ?? (this.shared.size > 0 ? this.sharedTrigger : undefined);
  }

  /** Runs fn unless the job is busy; `{ skipped: true }` then, without calling fn. */
  async tryRun<T>(trigger: Trigger, fn: () => Promise<T>): Promise<{ skipped: true } | { skipped: false; value: T }> {
    if (this.busy) return { skipped: true };
    return { skipped: false, value: await this.hold(trigger, fn) };
  }

  async runWhenFree<T>(trigger: Trigger, fn: () => Promise<T>): Promise<T> {
    while (this.busy) await this.settled();
    return this.hold(trigger, fn);
  }

  /** Runs fn once no whole run holds the job, beside the other shared runs. */
  async runShared<T>(trigger: Trigger, fn: () => Promise<T>): Promise<T> {
    while (this.current) await this.current.catch(() => undefined);
    const run = fn();
    this.shared.add(run);
    this.sharedTrigger = trigger;
    try {
      return await run;
    } finally {
      this.shared.delete(run);
    }
  }

  /** Resolves when the job is idle (shutdown). */
  async idle(): Promise<void> {
    while (this.busy) await this.settled();
  }

  private async settled(): Promise<void> {
    await Promise.allSettled([this.current, ...this.shared]);
  }

  private async hold<T>(trigger: Trigger, fn: () => Promise<T>): Promise<T> {
    const run = fn();
    this.current = run;
    this.currentTrigger = trigger;
    try {
      return await run;
    } finally {
      this.current = undefined;
      this.currentTrigger = undefined;
    }
  }
}
