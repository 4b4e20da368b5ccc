// A small date pattern engine (dd.MM.yyyy, yyyyMMdd, MM/dd/yyyy HH:mm, 'T' literals) with IANA time zones via Intl.

type Part = 'y' | 'M' | 'd' | 'H' | 'm' | 's' | 'S';
interface Token { part?: Part; width: number; max?: number; literal?: string }

const TOKEN = /yyyy|yy|MM|M|dd|d|HH|H|mm|m|ss|s|SSS|'[^']*'|./g;
const WIDTHS: Record<string, [Part, number, number]> = {
  yyyy: ['y', 4, 4], yy: ['y', 2, 2], MM: ['M', 2, 2], M: ['M', 1, 2], dd: ['d', 2, 2], d: ['d', 1, 2],
  HH: ['H', 2, 2], H: ['H', 1, 2], mm: ['m', 2, 2], m: ['m', 1, 2], ss: ['s', 2, 2], s: ['s', 1, 2], SSS: ['S', 3, 3],
};

export interface DatePattern {
  readonly source: string;
  readonly hasTime: boolean;
  /** Parses a value into calendar fields, or undefined when it does not fit the pattern or the calendar. */
  parse(value: string): DateFields | undefined;
  format(fields: DateFields): string;
}
export interface DateFields { y: number; M: number; d: number; H: number; m: number; s: number; S: number }

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Two-digit years are read in the hundred years from this one on by default: 70–99 → 1970–1999, 00–69 → 2000–2069. */
export const DEFAULT_TWO_DIGIT_YEARS_FROM = 1970;

/** The full year of a two-digit year: the first year from `from` on that ends in those two digits. */
const fullYear = (yy: number, from: number) => {
  const y = from - (from % 100) + yy;
  return y < from ? y + 100 : y;
};

/** Compiles a pattern once; throws an Error with a readable message for an unusable pattern. */
export function compileDatePattern(pattern: string, twoDigitYearsFrom = DEFAULT_TWO_DIGIT_YEARS_FROM): DatePattern {
  const tokens: Token[] = [];
  for (const raw of pattern.match(TOKEN) ?? []) {
    const w = WIDTHS[raw];
    if (w) tokens.push({ part: w[0], width: w[1], max: w[2] });
    else if (raw.startsWith("'")) tokens.push({ literal: raw.length > 2 ? raw.slice(1, -1) : "'", width: 0 });
    else if (/[a-zA-Z]/.test(raw)) throw new Error(`date pattern "${pattern}": unknown letter "${raw}" (use yyyy yy MM M dd d HH H mm m ss s SSS, quote literals as 'T')`);
    else tokens.push({ literal: raw, width: 0 });
  }
  const parts = new Set(tokens.map((t) => t.part).filter(Boolean));
  for (const p of ['y', 'M', 'd'] as const) if (!parts.has(p)) throw new Error(`date pattern "${pattern}" needs a year, a month and a day`);
  const order: Part[] = [];
  const re = new RegExp('^' + tokens.map((t) => {
    if (t.literal !== undefined) return escapeRe(t.literal);
    order.push(t.part!);
    return `(\\d{${t.width},${t.max}})`;
  }).join('') + '$');
  const hasTime = parts.has('H');
  const fixed = fixedWidthParser(tokens, twoDigitYearsFrom);
  const shortYear = tokens.some((t) => t.part === 'y' && t.width === 2);
  return {
    source: pattern,
    hasTime,
    parse(value) {
      if (fixed) return fixed(value);
      const m = re.exec(value);
      if (!m) return undefined;
      const f: DateFields = { y: 0, M: 0, d: 0, H: 0, m: 0, s: 0, S: 0 };
      for (let i = 0; i < order.length; i++) f[order[i]] = Number(m[i + 1]);
      if (shortYear) f.y = fullYear(f.y, twoDigitYearsFrom);
      return validFields(f) ? f : undefined;
    },
    format(f) {
      return tokens.map((t) => t.literal ?? String(t.part === 'y' && t.width === 2 ? f.y % 100 : f[t.part!]).padStart(t.width, '0')).join('');
    },
  };
}

/** Patterns of fixed-width tokens only (dd.MM.yyyy, yyyyMMdd) are parsed by position: no regex, no garbage. */
function fixedWidthParser(tokens: Token[], twoDigitYearsFrom: number): ((value: string) => DateFields | undefined) | undefined {
  if (tokens.some((t) => t.part !== undefined && t.width !== t.max)) return undefined;
  const steps: { at: number; part?: Part; width: number; literal?: string }[] = [];
  let at = 0;
  for (const t of tokens) {
    const width = t.literal !== undefined ? t.literal.length : t.width;
    steps.push({ at, part: t.part, width, literal: t.literal });
    at += width;
  }
  const length = at;
  const shortYear = tokens.some((t) => t.part === 'y' && t.width === 2);
  return (value) => {
    if (value.length !== length) return undefined;
    const f: DateFields = { y: 0, M: 0, d: 0, H: 0, m: 0, s: 0, S: 0 };
    for (const step of steps) {
      if (step.literal !== undefined) {
        if (!value.startsWith(step.literal, step.at)) return undefined;
        continue;
      }
      let n = 0;
      for (let i = step.at; i < step.at + step.width; i++) {
        const c = value.charCodeAt(i) - 48;
        if (c < 0 || c > 9) return undefined;
        n = n * 10 + c;
      }
      f[step.part!] = n;
    }
    if (shortYear) f.y = fullYear(f.y, twoDigitYearsFrom);
    return validFields(f) ? f : undefined;
  };
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function validFields(f: DateFields): boolean {
  if (f.M < 1 || f.M > 12 || f.d < 1 || f.H > 23 || f.m > 59 || f.s > 59) return false;
  const leap = f.M === 2 && (f.y % 4 === 0 && (f.y % 100 !== 0 || f.y % 400 === 0));
  return f.d <= DAYS[f.M - 1] + (leap ? 1 : 0);
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const two = (n: number) => (n < 10 ? '0' + n : String(n));
export const isoDateOf = (f: DateFields) => `${f.y >= 1000 ? f.y : pad(f.y, 4)}-${two(f.M)}-${two(f.d)}`;

const zoneFormatters = new Map<string, Intl.DateTimeFormat>();
/** Throws a RangeError for an unknown IANA zone (checked at load time). */
export function zoneFormatter(zone: string): Intl.DateTimeFormat {
  let f = zoneFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    zoneFormatters.set(zone, f);
  }
  return f;
}

/** Offset of a zone at a UTC instant, in minutes east of UTC. */
function offsetAt(zone: string, utcMs: number): number {
  const p: Record<string, number> = {};
  for (const x of zoneFormatter(zone).formatToParts(new Date(utcMs))) if (x.type !== 'literal') p[x.type] = Number(x.value);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((wall - Math.floor(utcMs / 1000) * 1000) / 60000);
}

/** Wall-clock fields in a zone → ISO 8601 with the zone's offset at that moment. */
export function zonedIso(f: DateFields, zone: string): string {
  const wall = Date.UTC(f.y, f.M - 1, f.d, f.H, f.m, f.s);
  let off = zone === 'UTC' ? 0 : offsetAt(zone, wall);
  if (zone !== 'UTC') off = offsetAt(zone, wall - off * 60000);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  const ms = f.S ? `.${pad(f.S, 3)}` : '';
  return `${isoDateOf(f)}T${pad(f.H)}:${pad(f.m)}:${pad(f.s)}${ms}${off === 0 ? 'Z' : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`}`;
}

/** An ISO datetime (with offset) → wall-clock fields in a zone, for exports. */
export function fieldsInZone(iso: string, zone: string): DateFields | undefined {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  const p: Record<string, number> = {};
  for (const x of zoneFormatter(zone).formatToParts(new Date(ms))) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return { y: p.year, M: p.month, d: p.day, H: p.hour, m: p.minute, s: p.second, S: new Date(ms).getUTCMilliseconds() };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
export function parseIsoDate(value: string): DateFields | undefined {
  const m = ISO_DATE.exec(value);
  if (!m) return undefined;
  const f = { y: Number(m[1]), M: Number(m[2]), d: Number(m[3]), H: 0, m: 0, s: 0, S: 0 };
  return validFields(f) ? f : undefined;
}
