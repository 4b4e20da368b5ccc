/** Why a job run started. */
export type Trigger = 'schedule' | 'catch-up' | 'watch' | 'start' | 'manual';

/**
 * Keeps a job from overlapping itself: `tryRun` skips when the job is busy (a scheduled tick),
 * `runWhenFree` waits its turn (a file the watcher found must not be dropped).
 */
export class JobSlot {
  private current: Promise<unknown> | undefined;
  private currentTrigger: Trigger | undefined;

  constructor(readonly name: string) {}

  get busy(): boolean {
    return this.current !== undefined;
  }

  get runningTrigger(): Trigger | undefined {
    return this.currentTrigger;
  }

  /** Runs fn unless the job is busy; `{ skipped: true }` then, without calling fn. */
  async tryRun<T>(trigger: Trigger, fn: () => Promise<T>): Promise<{ skipped: true } | { skipped: false; value: T }> {
    if (this.current) return { skipped: true };
    return { skipped: false, value: await this.hold(trigger, fn) };
  }

  async runWhenFree<T>(trigger: Trigger, fn: () => Promise<T>): Promise<T> {
    while (this.current) await this.current.catch(() => undefined);
    return this.hold(trigger, fn);
  }

  /** Resolves when the job is idle (shutdown). */
  async idle(): Promise<void> {
    while (this.current) await this.current.catch(() => undefined);
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
