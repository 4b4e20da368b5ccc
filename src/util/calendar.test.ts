import { describe, expect, it } from 'vitest';
import { BusinessCalendar, calendarProblems, localDay, type CalendarSpec } from './calendar.js';

const spec = (s: Partial<CalendarSpec>): CalendarSpec => ({ holiday_types: ['public'], working_days: ['mon', 'tue', 'wed', 'thu', 'fri'], holidays: [], working_dates: [], ...s });
const day = (ymd: string) => localDay(Date.parse(`${ymd}T12:00:00Z`), 'UTC');

describe('business calendars', () => {
  it('public holidays of a country and region are days off; weekends too; other days are working days', () => {
    const by = new BusinessCalendar('de-by', spec({ country: 'DE', region: 'BY' }));
    expect(by.dayOff(day('2026-12-25'))).toBe('1. Weihnachtstag (DE-BY public holiday)');
    expect(by.dayOff(day('2026-11-01'))).toMatch(/Allerheiligen/); // Bavaria only
    expect(new BusinessCalendar('de', spec({ country: 'DE' })).dayOff(day('2026-11-02'))).toBeUndefined();
    expect(by.dayOff(day('2026-12-26'))).toMatch(/2\. Weihnachtstag/);
    expect(by.dayOff(day('2026-11-28'))).toBe('not a working day of calendar de-by (sat)');
    expect(by.dayOff(day('2026-11-27'))).toBeUndefined();
  });
  it('counts only the holiday types it names: 24 December is a bank holiday in Germany', () => {
    expect(new BusinessCalendar('de', spec({ country: 'DE' })).dayOff(day('2026-12-24'))).toBeUndefined();
    expect(new BusinessCalendar('de', spec({ country: 'DE', holiday_types: ['public', 'bank'] })).dayOff(day('2026-12-24'))).toMatch(/Heiliger Abend \(DE bank holiday\)/);
  });
  it('an explicit list without a country; working dates win over everything', () => {
    const own = new BusinessCalendar('own', spec({ holidays: ['2026-12-31'], working_days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat'], working_dates: ['2026-11-29'] }));
    expect(own.dayOff(day('2026-12-31'))).toBe('a holiday listed in calendar own');
    expect(own.dayOff(day('2026-11-28'))).toBeUndefined(); // a Saturday, a working day here
    expect(own.dayOff(day('2026-11-29'))).toBeUndefined(); // a Sunday listed as working
    expect(own.dayOff(day('2026-11-22'))).toMatch(/sun/);
  });
  it('names unknown countries and regions', () => {
    expect(calendarProblems({ country: 'XX' })).toEqual(['unknown country "XX" (ISO 3166 codes such as DE, AT, US)']);
    expect(calendarProblems({ country: 'DE', region: 'ZZ' })[0]).toMatch(/^unknown region "ZZ" of DE \(known: BB, BE, BW, BY/);
    expect(calendarProblems({ region: 'BY' })).toEqual(['region needs a country']);
    expect(calendarProblems({ country: 'de', region: 'by' })).toEqual([]);
  });
  it('a day is the calendar date in the time zone asked for', () => {
    expect(localDay(Date.parse('2026-12-24T23:30:00Z'), 'Europe/Berlin')).toEqual({ ymd: '2026-12-25', weekday: 5 });
    expect(localDay(Date.parse('2026-12-24T23:30:00Z'), 'UTC')).toEqual({ ymd: '2026-12-24', weekday: 4 });
  });
});
