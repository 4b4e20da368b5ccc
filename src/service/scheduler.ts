import { silentLogger, type Logger } from '../log.js';
import type { Clock } from './clock.js';
import type { Schedule } from '../schedule/index.js';

/** Timers are re-armed at least this often, so long waits survive setTimeout's limit and clock jumps. */
const MAX_TIMER_MS = 60 * 60 * 1000;

export interface ScheduleEntry {
  /** Unique key, e.g. `job:nightly-export` or `expect:inventory#0`. */
  key: string;
  schedule: Schedule;
  /**
   * Called at each due time with that time (epoch ms); a rejected promise is logged, never fatal. `signal`, for a
   * tick shared by the instances of a journal, aborts when another instance took the tick over: stop, leave its
   * effects to that instance.
   */
  onTick(scheduledAt: number, signal?: AbortSignal): void | Promise<void>;
}

/**
 * Fires cron entries on an injected clock. Knows nothing about jobs: overlap, catch-up and alerts are the
 * callers' business (JobSlot, Service). A tick that comes late (process suspended, slow event loop) fires
 * once; the ticks in between are not replayed.
 */
export class Scheduler {
  private readonly entries = new Map<string, { entry: ScheduleEntry; due: number | null; timer?: unknown }>();
  private running = false;

  constructor(private readonly clock: Clock, private readonly logger: Logger = silentLogger) {}

  add(entry: ScheduleEntry): void {
    if (this.entries.has(entry.key)) throw new Error(`scheduler: duplicate key ${entry.key}`);
    const state = { entry, due: entry.schedule.next(this.clock.now()) };
    this.entries.set(entry.key, state);
    if (this.running) this.arm(entry.key);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (const [key, state] of this.entries) {
      state.due = state.entry.schedule.next(this.clock.now());
      this.arm(key);
    }
  }

  stop(): void {
    this.running = false;
    for (const state of this.entries.values()) {
      if (state.timer !== undefined) this.clock.clearTimer(state.timer);
      state.timer = undefined;
    }
  }

  /** Next due time of an entry (epoch ms), null when the expression never fires again. */
  nextRun(key: string): number | null {
    return this.entries.get(key)?.due ?? null;
  }

  private arm(key: string): void {
    const state = this.entries.get(key);
    if (!state || !this.running || state.due === null) return;
    const wait = Math.min(Math.max(0, state.due - this.clock.now()), MAX_TIMER_MS);
    state.timer = this.clock.setTimer(() => this.wake(key), wait);
  }

  private wake(key: string): void {
    const state = this.entries.get(key);
    if (!state || !this.running || state.due === null) return;
    state.timer = undefined;
    const now = this.clock.now();
    if (now >= state.due) {
      const due = state.due;
      state.due = state.entry.schedule.next(Math.max(due, now));
      try {
        Promise.resolve(state.entry.onTick(due)).catch((error: unknown) => this.logger.error({ err: error, schedule: key }, 'scheduled tick failed'));
      } catch (error) {
        this.logger.error({ err: error, schedule: key }, 'scheduled tick failed');
      }
    }
    this.arm(key);
  }
}
