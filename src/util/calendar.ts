import { createRequire } from 'node:module';
import type Holidays from 'date-holidays';

let holidaysClass: typeof Holidays | undefined;
/**
 * date-holidays, loaded the first time a calendar names a country: its rules of every country take a while to load,
 * which every start of the bridge (a `wisbridge batch` from cron, a status check) paid without a calendar
 * (docs/performance.md, "Settings chosen by measurement").
 */
function holidaysOf(country?: string, region?: string, types?: { types: HolidayType[] }): Holidays {
  holidaysClass ??= createRequire(import.meta.url)('date-holidays') as typeof Holidays;
  if (country === undefined) return new holidaysClass();
  return region === undefined ? new holidaysClass(country, types) : new holidaysClass(country, region, types);
}

/**
 * Business calendars: which days are working days, for expected files and schedules. Holidays come from
 * `date-holidays` (country and region codes, holidays of the types the configuration names) and/or an explicit
 * list of dates; weekends from `working_days`. Days are calendar dates in the time zone of the schedule that asks.
 */

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** date-holidays' types: only those a calendar names count as days off (24 December is `bank` in Germany). */
export const HOLIDAY_TYPES = ['public', 'bank', 'school', 'optional', 'observance'] as const;
export type HolidayType = (typeof HOLIDAY_TYPES)[number];

export interface CalendarSpec {
  country?: string;
  region?: string;
  holiday_types: readonly HolidayType[];
  working_days: readonly Weekday[];
  /** Extra days off, YYYY-MM-DD (a company shutdown, a holiday the library lacks). */
  holidays: readonly string[];
  /** Days that are working days whatever the rest says, YYYY-MM-DD (a Saturday the warehouse works). */
  working_dates: readonly string[];
}

/** Problems of a calendar's country and region codes, in words (empty when they are known). */
export function calendarProblems(spec: Pick<CalendarSpec, 'country' | 'region'>): string[] {
  if (spec.country === undefined) return spec.region === undefined ? [] : ['region needs a country'];
  const countries = holidaysOf().getCountries();
  if (!countries[spec.country.toUpperCase()]) return [`unknown country "${spec.country}" (ISO 3166 codes such as DE, AT, US)`];
  if (spec.region === undefined) return [];
  const states = holidaysOf().getStates(spec.country.toUpperCase()) ?? {};
  if (!states[spec.region.toUpperCase()]) {
    const known = Object.keys(states);
    return [`unknown region "${spec.region}" of ${spec.country.toUpperCase()}${known.length ? ` (known: ${known.join(', ')})` : ' (the country has no regions)'}`];
  }
  return [];
}

export class BusinessCalendar {
  private readonly holidays?: Holidays;
  private readonly days: Set<number>;
  private readonly extra: Set<string>;
  private readonly working: Set<string>;
  /** Holidays of the configured types per year: date → name. */
  private readonly years = new Map<number, Map<string, string>>();

  constructor(readonly name: string, private readonly spec: CalendarSpec) {
    const types = { types: [...spec.holiday_types] };
    if (spec.country !== undefined) {
      this.holidays = holidaysOf(spec.country.toUpperCase(), spec.region?.toUpperCase(), types);
    }
    this.days = new Set(spec.working_days.map((d) => WEEKDAYS.indexOf(d)));
    this.extra = new Set(spec.holidays);
    this.working = new Set(spec.working_dates);
  }

  /** Why `day` is not a working day ("Saturday", "1. Weihnachtstag (DE-BY public holiday)"), or undefined when it is one. */
  dayOff(day: LocalDay): string | undefined {
    if (this.working.has(day.ymd)) return undefined;
    if (this.extra.has(day.ymd)) return `a holiday listed in calendar ${this.name}`;
    const holiday = this.holidayOn(day.ymd);
    if (holiday) return holiday;
    return this.days.has(day.weekday) ? undefined : `not a working day of calendar ${this.name} (${WEEKDAYS[day.weekday]})`;
  }

  private holidayOn(ymd: string): string | undefined {
    if (!this.holidays) return undefined;
    const year = Number(ymd.slice(0, 4));
    let map = this.years.get(year);
    if (!map) {
      // A holiday counts for its whole date, also one that starts at 14:00 (Christmas Eve as a bank holiday).
      map = new Map(this.holidays.getHolidays(year).map((h) => [h.date.slice(0, 10), `${h.name} (${this.where()} ${h.type} holiday)`]));
      if (this.years.size > 8) this.years.clear();
      this.years.set(year, map);
    }
    return map.get(ymd);
  }

  private where(): string {
    return [this.spec.country, this.spec.region].filter(Boolean).join('-').toUpperCase();
  }
}

export interface LocalDay { ymd: string; weekday: number }

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar date (YYYY-MM-DD) and weekday (0 = Sunday) of an instant in a time zone. */
export function localDay(at: number, timeZone: string): LocalDay {
  let f = formatters.get(timeZone);
  if (!f) formatters.set(timeZone, (f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'short' })));
  const parts = f.formatToParts(new Date(at));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { ymd: `${get('year')}-${get('month')}-${get('day')}`, weekday: WEEKDAYS.indexOf(get('weekday').toLowerCase().slice(0, 3) as Weekday) };
}
