import { Cron } from 'croner';
import { WisbridgeError } from '../errors.js';

/** When something fires: the scheduler's view of a cron expression, with or without a business calendar. */
export interface Schedule {
  readonly timezone: string;
  /** The first tick strictly after `after`; null when it never fires again. */
  next(after: number): number | null;
  /** The latest tick at or before `at`. */
  previous(at: number): number | null;
  toString(): string;
}

/** A cron expression read in a time zone; croner computes the times, the scheduler owns the timers. */
export class CronSchedule implements Schedule {
  private readonly cron: Cron;

  constructor(readonly expression: string, readonly timezone: string) {
    try {
      this.cron = new Cron(expression, { timezone, paused: true });
    } catch (error) {
      throw new WisbridgeError('CONFIG_INVALID', `cron "${expression}" (${timezone}): ${(error as Error).message}`);
    }
  }

  /** The first run strictly after `after`. */
  next(after: number): number | null {
    return this.cron.nextRun(new Date(after))?.getTime() ?? null;
  }

  /** The latest run at or before `at`. */
  previous(at: number): number | null {
    const next = this.cron.nextRun(new Date(at - 1));
    if (next !== null && next.getTime() === at) return at;
    return this.cron.previousRuns(1, new Date(at))[0]?.getTime() ?? null;
  }

  toString(): string {
    return `${this.expression} (${this.timezone})`;
  }
}
