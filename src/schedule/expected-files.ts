import type { Config } from '../config/schema.js';
import { scheduleOf } from './business-schedule.js';

/** An expected file as `status` and the console show it: when the next one is due and when it would be alerted. */
export interface ExpectedFileView {
  job: string;
  pattern: string;
  /** `0 6 * * * (Europe/Berlin) on working days of de-by`. */
  schedule: string;
  nextDue: string | null;
  alertAt: string | null;
  /** Why today has no due time (a holiday, a weekend), when it has none. */
  todayOff?: string;
}

/** The next due and alert times of every expected file of the configuration, from `now`. */
export function expectedFileViews(config: Pick<Config, 'inbound' | 'calendars'>, now: number): ExpectedFileView[] {
  return config.inbound.flatMap((job) => job.expect.map((e) => {
    const due = scheduleOf(e.cutoff, config);
    const next = due.next(now);
    const alert = next === null ? null : next + e.grace_minutes * 60_000;
    const off = due.dayOff(now);
    return {
      job: job.name, pattern: e.pattern, schedule: `${due.toString()}${e.grace_minutes ? `, alert ${e.grace_minutes} min later` : ''}`,
      nextDue: next === null ? null : new Date(next).toISOString(), alertAt: alert === null ? null : new Date(alert).toISOString(), ...(off ? { todayOff: off } : {}),
    };
  }));
}

export interface MissedFileAlert {
  job: string;
  pattern: string;
  cutoff: string;
  since: string;
}
