import type { Config } from '../config/schema.js';
import { WisbridgeError } from '../errors.js';
import { BusinessCalendar, localDay } from '../util/calendar.js';
import { CronSchedule, type Schedule } from './cron.js';

/** Days looked at before a schedule is taken to never fire again (ten years of daily ticks). */
const MAX_SKIPPED = 3660;

/**
 * A cron schedule that fires only on working days of a business calendar (the day of the cron time, in the cron's
 * time zone), shifted by `offsetMs` — the grace period of an expected file: due at 06:00, alert at 08:00.
 */
export class CalendarSchedule implements Schedule {
  readonly timezone: string;

  constructor(private readonly cron: CronSchedule, private readonly calendar: BusinessCalendar | undefined, private readonly offsetMs = 0) {
    this.timezone = cron.timezone;
  }

  /** The first tick strictly after `after`. */
  next(after: number): number | null {
    let due = this.cron.next(after - this.offsetMs);
    for (let i = 0; due !== null && i < MAX_SKIPPED && !this.working(due); i++) due = this.cron.next(due);
    return due === null || !this.working(due) ? null : due + this.offsetMs;
  }

  /** The latest tick at or before `at`. */
  previous(at: number): number | null {
    let due = this.cron.previous(at - this.offsetMs);
    for (let i = 0; due !== null && i < MAX_SKIPPED && !this.working(due); i++) due = this.cron.previous(due - 1);
    return due === null || !this.working(due) ? null : due + this.offsetMs;
  }

  /** Why the day of `at` has no tick (a holiday, a weekend), or undefined on a working day. */
  dayOff(at: number): string | undefined {
    return this.calendar?.dayOff(localDay(at, this.timezone));
  }

  private working(due: number): boolean {
    return !this.calendar || this.calendar.dayOff(localDay(due, this.timezone)) === undefined;
  }

  toString(): string {
    return `${this.cron.toString()}${this.calendar ? ` on working days of ${this.calendar.name}` : ''}${this.offsetMs ? ` + ${this.offsetMs / 60_000} min` : ''}`;
  }
}

const built = new WeakMap<object, Map<string, BusinessCalendar>>();

/** The configuration's calendars, built once per configuration. */
export function calendarsOf(config: Pick<Config, 'calendars'>): Map<string, BusinessCalendar> {
  let map = built.get(config.calendars);
  if (!map) built.set(config.calendars, (map = new Map(Object.entries(config.calendars).map(([name, spec]) => [name, new BusinessCalendar(name, spec)]))));
  return map;
}

/** A configured schedule (`cron`, `timezone`, optional `calendar`) as the scheduler runs it. */
export function scheduleOf(spec: { cron: string; timezone: string; calendar?: string }, config: Pick<Config, 'calendars'>, offsetMs = 0): CalendarSchedule {
  const calendar = spec.calendar === undefined ? undefined : calendarsOf(config).get(spec.calendar);
  if (spec.calendar !== undefined && !calendar) throw new WisbridgeError('CONFIG_INVALID', `unknown calendar "${spec.calendar}"`);
  return new CalendarSchedule(new CronSchedule(spec.cron, spec.timezone), calendar, offsetMs);
}
