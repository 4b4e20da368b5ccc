import { isTimeZone } from './time-zone.js';

/** `{date:PATTERN}` or `{date:PATTERN@ZONE}`: PATTERN of yyyy yy MM dd HH mm ss and literal separators. */
export const DATE_PLACEHOLDER = /\{date:([^}@]+)(?:@([^}]+))?\}/g;
const DATE_TOKENS = /yyyy|yy|MM|dd|HH|mm|ss/g;

/**
 * A date stamp as partners' WMSs name their files (`SO_{date:yyyyMMdd}.csv`): the business date is the warehouse's,
 * so it is formatted in the machine's time zone, or in the zone named after `@` (an IANA name, e.g. Europe/Berlin).
 */
export function formatDateStamp(at: Date, pattern: string, zone?: string): string {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-GB', {
    timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(at).map((p) => [p.type, p.value]));
  const values: Record<string, string> = {
    yyyy: parts.year, yy: parts.year.slice(-2), MM: parts.month, dd: parts.day, HH: parts.hour, mm: parts.minute, ss: parts.second,
  };
  return pattern.replace(DATE_TOKENS, (token) => values[token]);
}

/** The problem of a file-name pattern's date placeholders (an unknown zone), or undefined: checked with the configuration. */
export function fileNameProblem(pattern: string): string | undefined {
  for (const [, , zone] of pattern.matchAll(DATE_PLACEHOLDER)) {
    if (zone !== undefined && !isTimeZone(zone)) return `{date:…@${zone}}: "${zone}" is not a time zone (an IANA name such as Europe/Berlin)`;
  }
  return undefined;
}
