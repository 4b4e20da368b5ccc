import type { FieldSpec, Transform } from './definition-schema.js';
import { compileDatePattern, fieldsInZone, isoDateOf, parseIsoDate, zonedIso, zoneFormatter, type DatePattern } from './dates.js';

/** A cell that cannot be turned into a value; `reason` completes `column X: "raw" <reason>`. */
export class Fail {
  constructor(readonly reason: string) {}
}

/** A problem in a definition found while compiling it; `path` points into the YAML document. */
export class DefinitionError extends Error {
  constructor(message: string, readonly path: (string | number)[]) {
    super(message);
  }
}

/** Several DefinitionErrors found in one pass (every unknown request field, say): each is reported. */
export class DefinitionErrors extends Error {
  constructor(readonly errors: DefinitionError[]) {
    super(errors.map((e) => e.message).join('; '));
  }
}

export type TextStep = (s: string) => string | Fail;

/** The parse of string fields (recognised by compile.ts, which skips calling it). */
export const identity = (s: string) => s;
const ok = identity;

export function compileTransform(t: Transform, tables: Record<string, Record<string, string>>, path: (string | number)[]): TextStep {
  if (typeof t === 'string') {
    switch (t) {
      case 'trim': return (s) => s.trim();
      case 'trim_start': return (s) => s.trimStart();
      case 'trim_end': return (s) => s.trimEnd();
      case 'upper': return (s) => s.toUpperCase();
      case 'lower': return (s) => s.toLowerCase();
      case 'collapse_spaces': return (s) => s.replace(/\s+/g, ' ').trim();
    }
  }
  if ('pad' in t) {
    const { length, char, side } = t.pad;
    return side === 'left' ? (s) => (s === '' ? s : s.padStart(length, char)) : (s) => (s === '' ? s : s.padEnd(length, char));
  }
  if ('substring' in t) {
    const { start, length } = t.substring;
    return length === undefined ? (s) => s.slice(start) : (s) => s.slice(start, start + length);
  }
  if ('regex' in t) {
    const re = regex(t.regex.pattern, '', [...path, 'regex', 'pattern']);
    const group = t.regex.group;
    return (s) => {
      if (s === '') return s;
      const m = re.exec(s);
      if (!m) return new Fail(`does not match /${t.regex.pattern}/`);
      return (typeof group === 'number' ? m[group] : m.groups?.[group]) ?? '';
    };
  }
  if ('replace' in t) {
    const { pattern, with: by } = t.replace;
    if (t.replace.regex) {
      const re = regex(pattern, 'g', [...path, 'replace', 'pattern']);
      return (s) => s.replace(re, by);
    }
    return (s) => s.replaceAll(pattern, by);
  }
  const table = 'map' in t ? t.map.values : tables[t.lookup.table];
  if (!table) throw new DefinitionError(`lookup table "${'lookup' in t ? t.lookup.table : ''}" is not defined under tables`, [...path, 'lookup', 'table']);
  const fallback = 'map' in t ? t.map.default : t.lookup.default;
  const known = Object.keys(table);
  const lookup = new Map(Object.entries(table));
  return (s) => {
    if (s === '') return s;
    const v = lookup.get(s) ?? fallback;
    return v ?? new Fail(`is not in the value map (known: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''})`);
  };
}

function regex(pattern: string, flags: string, path: (string | number)[]): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    throw new DefinitionError(`invalid regular expression /${pattern}/: ${(error as Error).message}`, path);
  }
}

export type Parse = (s: string) => unknown | Fail;
export type Format = (v: unknown) => string;

const DEFAULT_TRUE = ['true', 'yes', 'y', '1'];
const DEFAULT_FALSE = ['false', 'no', 'n', '0'];

function numberRegex(decimal: string, thousands: string, integer: boolean): RegExp {
  const d = decimal === '.' ? '\\.' : decimal;
  const t = thousands === '.' ? '\\.' : thousands;
  const whole = t ? `(?:\\d+|\\d{1,3}(?:${t}\\d{3})+)` : '\\d+';
  return new RegExp(`^[+-]?${whole}${integer ? '' : `(?:${d}\\d+)?`}$`);
}

const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => 10 ** k);
/**
 * The value of a text that matched numberRegex, without building the normalized text: all digits as an integer
 * N and the count k of digits after the decimal separator give N / 10^k. With N < 2^53 and k <= 22 both are exact
 * doubles, so the one rounding of the division gives the correctly rounded value, the same double as Number()
 * of the normalized text (the classic exact fast path of decimal conversion). Otherwise undefined.
 */
function decimalValue(s: string, decimal: number): number | undefined {
  let n = 0;
  let k = -1;
  let i = 0;
  const first = s.charCodeAt(0);
  if (first === 45 || first === 43) i = 1;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      if (k >= 0) k++;
    } else if (c === decimal) k = 0;
  }
  if (n > Number.MAX_SAFE_INTEGER || k > 22) return undefined;
  const v = k > 0 ? n / POWERS_OF_TEN[k] : n;
  return first === 45 ? -v : v;
}

/** Typed parsing of a non-empty text, compiled once per field. */
export function compileParse(spec: FieldSpec, path: (string | number)[]): Parse {
  const type = spec.type ?? 'string';
  switch (type) {
    case 'string':
      return ok;
    case 'number':
    case 'integer': {
      const decimal = spec.decimal ?? '.';
      const thousands = spec.thousands ?? '';
      if (decimal === thousands) throw new DefinitionError('decimal and thousands separators must differ', [...path, 'thousands']);
      const re = numberRegex(decimal, thousands, false);
      const what = type === 'integer' ? 'a whole number' : 'a number';
      const plain = decimal === '.' && thousands === '';
      const dec = decimal.charCodeAt(0);
      const slow = (s: string) => {
        let t = s;
        if (!plain) {
          if (thousands !== '' && t.includes(thousands)) t = t.replaceAll(thousands, '');
          if (decimal !== '.' && t.includes(decimal)) t = t.replace(decimal, '.');
        }
        return Number(t);
      };
      return (s) => {
        if (!re.test(s)) return new Fail(`is not ${what}`);
        const n = decimalValue(s, dec) ?? slow(s);
        if (type === 'integer' && !Number.isInteger(n)) return new Fail('is not a whole number');
        return n;
      };
    }
    case 'boolean': {
      const t = new Set((spec.true ?? DEFAULT_TRUE).map((w) => w.toLowerCase()));
      const f = new Set((spec.false ?? DEFAULT_FALSE).map((w) => w.toLowerCase()));
      const words = [...t, ...f].join(', ');
      return (s) => {
        const w = s.toLowerCase();
        return t.has(w) ? true : f.has(w) ? false : new Fail(`is not a yes/no value (${words})`);
      };
    }
    case 'date': {
      const p = pattern(spec.format, path, spec.two_digit_years_from);
      return (s) => {
        const f = p ? p.parse(s) : parseIsoDate(s);
        return f ? isoDateOf(f) : new Fail(`is not a date (${spec.format ?? 'yyyy-MM-dd'})`);
      };
    }
    case 'datetime': {
      const p = pattern(spec.format, path, spec.two_digit_years_from);
      const zone = zone_(spec.time_zone, path);
      return (s) => {
        if (!p) {
          if (/[zZ]$|[+-]\d\d:?\d\d$/.test(s) && !Number.isNaN(Date.parse(s))) return s;
          const f = ISO_LOCAL.exec(s);
          const fields = f ? { y: +f[1], M: +f[2], d: +f[3], H: +f[4], m: +f[5], s: +(f[6] ?? 0), S: 0 } : undefined;
          return fields && parseIsoDate(isoDateOf(fields)) ? zonedIso(fields, zone) : new Fail('is not a datetime (ISO 8601)');
        }
        const f = p.parse(s);
        return f ? zonedIso(f, zone) : new Fail(`is not a datetime (${spec.format})`);
      };
    }
  }
}
const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/;

function pattern(format: string | undefined, path: (string | number)[], twoDigitYearsFrom?: number): DatePattern | undefined {
  if (format === undefined) return undefined;
  try {
    return compileDatePattern(format, twoDigitYearsFrom);
  } catch (error) {
    throw new DefinitionError((error as Error).message, [...path, 'format']);
  }
}

function zone_(zone: string | undefined, path: (string | number)[]): string {
  if (!zone) return 'UTC';
  try {
    zoneFormatter(zone);
    return zone;
  } catch {
    throw new DefinitionError(`unknown time zone "${zone}" (use an IANA name such as Europe/Berlin)`, [...path, 'time_zone']);
  }
}

/** The reverse of compileParse, for exports: an API value → the text the legacy WMS expects. */
export function compileFormat(spec: Pick<FieldSpec, 'type' | 'decimal' | 'true' | 'false' | 'format' | 'time_zone'>, path: (string | number)[]): Format {
  const type = spec.type ?? 'string';
  const str = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  switch (type) {
    case 'string':
      return str;
    case 'number':
    case 'integer': {
      if ((spec.decimal ?? '.') === '.') return str;
      return (v) => str(v).replace('.', ',');
    }
    case 'boolean': {
      const t = (spec.true ?? DEFAULT_TRUE)[0];
      const f = (spec.false ?? DEFAULT_FALSE)[0];
      return (v) => (v === true || v === 'true' ? t : v === false || v === 'false' ? f : str(v));
    }
    case 'date': {
      const p = pattern(spec.format, path);
      return (v) => {
        const f = typeof v === 'string' ? parseIsoDate(v.slice(0, 10)) : undefined;
        return f && p ? p.format(f) : str(v);
      };
    }
    case 'datetime': {
      const p = pattern(spec.format, path);
      const zone = zone_(spec.time_zone, path);
      return (v) => {
        const f = typeof v === 'string' && p ? fieldsInZone(v, zone) : undefined;
        return f && p ? p.format(f) : str(v);
      };
    }
  }
}

/** The bridge's one formula-neutralization rule (src/util/csv.ts). */
export { neutralizeFormula as escapeFormula } from '../util/csv.js';
