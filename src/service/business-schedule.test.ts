import { describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { expectedFileViews, scheduleOf } from '../schedule/index.js';
import { expectedTable } from '../console/pages-misc.js';
import { formatExpected } from './status.js';

const config = configSchema.parse({
  services: { main: { url: 'http://127.0.0.1:1', token: { env: 'T' } } },
  drops: { wms: { type: 'local', root: '/tmp/x' } },
  calendars: { 'de-by': { country: 'DE', region: 'BY' } },
  inbound: [{
    name: 'stock', drop: 'wms', service: 'main',
    expect: [{ pattern: '^STOCK_', cutoff: { cron: '0 6 * * *', timezone: 'Europe/Berlin', calendar: 'de-by' }, grace_minutes: 120 }],
  }],
});
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('schedules on a business calendar', () => {
  it('skip weekends and holidays, forwards and backwards; the grace period shifts every tick', () => {
    const due = scheduleOf({ cron: '0 6 * * *', timezone: 'Europe/Berlin', calendar: 'de-by' }, config);
    // Thursday 24 December (a bank holiday, not counted) → Monday 28 December (25, 26 holidays, 27 Sunday).
    expect(iso(due.next(Date.parse('2026-12-23T06:00:00Z')))).toBe('2026-12-24T05:00:00.000Z');
    expect(iso(due.next(Date.parse('2026-12-24T05:00:00Z')))).toBe('2026-12-28T05:00:00.000Z');
    expect(iso(due.previous(Date.parse('2026-12-27T12:00:00Z')))).toBe('2026-12-24T05:00:00.000Z');
    const alert = scheduleOf({ cron: '0 6 * * *', timezone: 'Europe/Berlin', calendar: 'de-by' }, config, 120 * 60_000);
    expect(iso(alert.next(Date.parse('2026-12-24T06:00:00Z')))).toBe('2026-12-24T07:00:00.000Z');
    expect(iso(alert.next(Date.parse('2026-12-24T07:00:00Z')))).toBe('2026-12-28T07:00:00.000Z');
    expect(iso(alert.previous(Date.parse('2026-12-28T06:59:59Z')))).toBe('2026-12-24T07:00:00.000Z');
    expect(due.dayOff(Date.parse('2026-12-25T10:00:00Z'))).toBe('1. Weihnachtstag (DE-BY public holiday)');
    expect(due.toString()).toBe('0 6 * * * (Europe/Berlin) on working days of de-by');
  });
  it('without a calendar, every cron time', () => {
    const plain = scheduleOf({ cron: '0 6 * * *', timezone: 'UTC' }, config);
    expect(iso(plain.next(Date.parse('2026-12-24T06:00:00Z')))).toBe('2026-12-25T06:00:00.000Z');
  });
  it('status and the console show the next due and alert times of each expected file', () => {
    const views = expectedFileViews(config, Date.parse('2026-12-25T10:00:00Z'));
    expect(views).toEqual([{
      job: 'stock', pattern: '^STOCK_', schedule: '0 6 * * * (Europe/Berlin) on working days of de-by, alert 120 min later',
      nextDue: '2026-12-28T05:00:00.000Z', alertAt: '2026-12-28T07:00:00.000Z', todayOff: '1. Weihnachtstag (DE-BY public holiday)',
    }]);
    const text = formatExpected(views);
    expect(text).toContain('stock  ^STOCK_  2026-12-28 05:00  2026-12-28 07:00');
    expect(text).toContain('no file due: 1. Weihnachtstag (DE-BY public holiday)');
    const page = expectedTable(views).text;
    expect(page).toContain('<td>stock</td><td><code>^STOCK_</code></td>');
    expect(page).toMatch(/2026-12-28 05:00.*2026-12-28 07:00.*no file due: 1\. Weihnachtstag/s);
  });
  it('the configuration names unknown calendars, countries and regions', () => {
    const r = configSchema.safeParse({
      services: { main: { url: 'http://127.0.0.1:1', token: { env: 'T' } } },
      drops: { wms: { type: 'local', root: '/tmp/x' } },
      calendars: { bad: { country: 'DE', region: 'ZZ' } },
      inbound: [{ name: 'stock', drop: 'wms', service: 'main', schedule: { cron: '0 2 * * *', calendar: 'nope' } }],
    });
    expect(r.success).toBe(false);
    const messages = r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(messages).toContain('inbound.0.schedule.calendar: unknown calendar "nope" (known: bad)');
    expect(messages.some((m) => m.startsWith('calendars.bad.region: unknown region "ZZ" of DE'))).toBe(true);
  });
});
