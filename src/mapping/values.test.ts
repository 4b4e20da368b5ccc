import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileDatePattern, zonedIso } from './dates.js';
import type { FieldSpec, Transform } from './definition-schema.js';
import { compileFormat, compileParse, compileTransform, escapeFormula, Fail } from './values.js';

describe('number parsing', () => {
  it('gives the same double as Number() of the normalized text, for every separator combination', () => {
    const formats = [
      { decimal: '.', thousands: '' }, { decimal: ',', thousands: '.' }, { decimal: ',', thousands: '' },
      { decimal: '.', thousands: ',' }, { decimal: ',', thousands: ' ' }, { decimal: '.', thousands: "'" },
    ] as const;
    const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 24 });
    fc.assert(fc.property(fc.constantFrom('', '-', '+'), digits, fc.option(digits), fc.constantFrom(...formats), (sign, whole, frac, f) => {
      const parse = compileParse({ type: 'number', decimal: f.decimal, thousands: f.thousands }, []);
      const text = `${sign}${whole}${frac === null ? '' : f.decimal + frac}`;
      expect(Object.is(parse(text), Number(`${sign}${whole}${frac === null ? '' : '.' + frac}`))).toBe(true);
    }), { numRuns: 5000 });
    const parse = compileParse({ type: 'number', decimal: ',', thousands: '.' }, []);
    expect(parse('1.234.567,25')).toBe(1234567.25);
    expect(Object.is(parse('-0'), -0)).toBe(true);
    expect(parse('9007199254740993,5')).toBe(Number('9007199254740993.5'));
    expect(parse('0,12345678901234567890123')).toBe(Number('0.12345678901234567890123'));
  });
});

const t = (tr: Transform, s: string, tables = {}) => {
  const r = compileTransform(tr, tables, [])(s);
  return r instanceof Fail ? `FAIL ${r.reason}` : r;
};
const p = (spec: FieldSpec, s: string) => {
  const r = compileParse(spec, [])(s);
  return r instanceof Fail ? `FAIL ${r.reason}` : r;
};

describe('transforms', () => {
  it('trim, trim_start, trim_end, upper, lower, collapse_spaces', () => {
    expect(t('trim', '  a b  ')).toBe('a b');
    expect(t('trim_start', '  a ')).toBe('a ');
    expect(t('trim_end', '  a ')).toBe('  a');
    expect(t('upper', 'süß')).toBe('SÜSS');
    expect(t('lower', 'ABC')).toBe('abc');
    expect(t('collapse_spaces', ' a \n\t b  ')).toBe('a b');
  });
  it('pad left and right, leaving empty values empty', () => {
    expect(t({ pad: { length: 6, char: '0', side: 'left' } }, '42')).toBe('000042');
    expect(t({ pad: { length: 4, char: '.', side: 'right' } }, 'ab')).toBe('ab..');
    expect(t({ pad: { length: 4, char: '0', side: 'left' } }, '')).toBe('');
    expect(t({ pad: { length: 2, char: '0', side: 'left' } }, '12345')).toBe('12345');
  });
  it('substring with and without length', () => {
    expect(t({ substring: { start: 2, length: 3 } }, 'ABCDEFG')).toBe('CDE');
    expect(t({ substring: { start: 4 } }, 'ABCDEFG')).toBe('EFG');
  });
  it('regex extracts a numbered or named group, and refuses values that do not match', () => {
    expect(t({ regex: { pattern: 'SO-(\\d+)', group: 1 } }, 'order SO-77 x')).toBe('77');
    expect(t({ regex: { pattern: '(?<n>\\d+)$', group: 'n' } }, 'PKG-0042')).toBe('0042');
    expect(t({ regex: { pattern: '^\\d+$', group: 0 } }, 'abc')).toBe('FAIL does not match /^\\d+$/');
  });
  it('replace plain text (every occurrence) and regular expressions', () => {
    expect(t({ replace: { pattern: '-', with: '', regex: false } }, 'A-B-C')).toBe('ABC');
    expect(t({ replace: { pattern: '\\s+', with: '_', regex: true } }, 'a  b c')).toBe('a_b_c');
    expect(t({ replace: { pattern: '.', with: '', regex: false } }, 'a.b')).toBe('ab');
  });
  it('value maps with and without a default', () => {
    expect(t({ map: { values: { Y: 'yes' } } }, 'Y')).toBe('yes');
    expect(t({ map: { values: { Y: 'yes' } } }, 'Q')).toBe('FAIL is not in the value map (known: Y)');
    expect(t({ map: { values: { Y: 'yes' }, default: 'other' } }, 'Q')).toBe('other');
  });
  it('lookup tables shared through tables', () => {
    expect(t({ lookup: { table: 'c' } }, 'DE', { c: { DE: 'Germany' } })).toBe('Germany');
    expect(t({ lookup: { table: 'c' } }, 'FR', { c: { DE: 'Germany' } })).toBe('FAIL is not in the value map (known: DE)');
    expect(() => compileTransform({ lookup: { table: 'nope' } }, {}, ['x'])).toThrow('lookup table "nope" is not defined under tables');
  });
});

describe('typed parsing', () => {
  it('numbers with a decimal point or comma and thousands separators', () => {
    expect(p({ type: 'number' }, '-12.5')).toBe(-12.5);
    expect(p({ type: 'number', decimal: ',' }, '1,5')).toBe(1.5);
    expect(p({ type: 'number', decimal: ',', thousands: '.' }, '1.234.567,89')).toBe(1234567.89);
    expect(p({ type: 'number', decimal: '.', thousands: ',' }, '1,234.5')).toBe(1234.5);
    expect(p({ type: 'number', decimal: ',', thousands: ' ' }, '12 000')).toBe(12000);
    expect(p({ type: 'number', thousands: "'" }, "1'000")).toBe(1000);
    expect(p({ type: 'number', decimal: ',' }, '1,5x')).toBe('FAIL is not a number');
    expect(p({ type: 'number', decimal: ',', thousands: '.' }, '1.23,5')).toBe('FAIL is not a number');
    expect(p({ type: 'number' }, '1,5')).toBe('FAIL is not a number');
    expect(p({ type: 'number' }, 'Infinity')).toBe('FAIL is not a number');
    expect(() => compileParse({ type: 'number', decimal: ',', thousands: ',' }, [])).toThrow('must differ');
  });
  it('integers', () => {
    expect(p({ type: 'integer' }, '42')).toBe(42);
    expect(p({ type: 'integer' }, '+7')).toBe(7);
    expect(p({ type: 'integer', decimal: ',' }, '3,0')).toBe(3);
    expect(p({ type: 'integer', decimal: ',' }, '3,5')).toBe('FAIL is not a whole number');
    expect(p({ type: 'integer' }, 'x')).toBe('FAIL is not a whole number');
  });
  it('booleans with default and configured words', () => {
    expect(p({ type: 'boolean' }, 'Yes')).toBe(true);
    expect(p({ type: 'boolean' }, '0')).toBe(false);
    expect(p({ type: 'boolean', true: ['J', 'ja'], false: ['N', 'nein'] }, 'ja')).toBe(true);
    expect(p({ type: 'boolean', true: ['J'], false: ['N'] }, 'n')).toBe(false);
    expect(p({ type: 'boolean', true: ['J'], false: ['N'] }, 'Y')).toBe('FAIL is not a yes/no value (j, n)');
  });
  it('dates with patterns, checking the calendar', () => {
    expect(p({ type: 'date' }, '2026-02-28')).toBe('2026-02-28');
    expect(p({ type: 'date' }, '2026-02-29')).toBe('FAIL is not a date (yyyy-MM-dd)');
    expect(p({ type: 'date', format: 'dd.MM.yyyy' }, '29.02.2024')).toBe('2024-02-29');
    expect(p({ type: 'date', format: 'dd.MM.yyyy' }, '31.11.2026')).toBe('FAIL is not a date (dd.MM.yyyy)');
    expect(p({ type: 'date', format: 'd.M.yyyy' }, '1.2.2026')).toBe('2026-02-01');
    expect(p({ type: 'date', format: 'yyyyMMdd' }, '20261120')).toBe('2026-11-20');
    expect(p({ type: 'date', format: 'yyyyMMdd' }, '2026112')).toBe('FAIL is not a date (yyyyMMdd)');
    expect(p({ type: 'date', format: 'MM/dd/yy' }, '11/20/26')).toBe('2026-11-20');
    expect(p({ type: 'date', format: 'MM/dd/yyyy' }, '13/01/2026')).toBe('FAIL is not a date (MM/dd/yyyy)');
  });
  it('datetimes with a pattern and a time zone, across daylight saving time', () => {
    const berlin = { type: 'datetime', format: 'MM/dd/yyyy HH:mm', time_zone: 'Europe/Berlin' } as const;
    expect(p(berlin, '11/20/2026 14:30')).toBe('2026-11-20T14:30:00+01:00');
    expect(p(berlin, '07/01/2026 14:30')).toBe('2026-07-01T14:30:00+02:00');
    expect(p({ type: 'datetime', format: "yyyy-MM-dd'T'HH:mm:ss", time_zone: 'America/New_York' }, '2026-03-08T12:00:00')).toBe('2026-03-08T12:00:00-04:00');
    expect(p({ type: 'datetime', format: 'dd.MM.yyyy HH:mm' }, '20.11.2026 06:05')).toBe('2026-11-20T06:05:00Z');
    expect(p({ type: 'datetime', format: 'dd.MM.yyyy HH:mm' }, '20.11.2026 25:05')).toBe('FAIL is not a datetime (dd.MM.yyyy HH:mm)');
    expect(p({ type: 'datetime' }, '2026-11-20T06:05:00+01:00')).toBe('2026-11-20T06:05:00+01:00');
    expect(p({ type: 'datetime', time_zone: 'Asia/Kolkata' }, '2026-11-20 06:05')).toBe('2026-11-20T06:05:00+05:30');
    expect(p({ type: 'datetime' }, 'yesterday')).toBe('FAIL is not a datetime (ISO 8601)');
  });
  it('refuses unusable patterns and zones at load time', () => {
    expect(() => compileParse({ type: 'date', format: 'dd.QQ.yyyy' }, [])).toThrow('unknown letter "Q"');
    expect(() => compileParse({ type: 'date', format: 'dd.MM' }, [])).toThrow('needs a year, a month and a day');
    expect(() => compileParse({ type: 'datetime', time_zone: 'Mars/Olympus' }, [])).toThrow('unknown time zone "Mars/Olympus"');
  });
  it('zonedIso picks the offset valid at the wall-clock time', () => {
    expect(zonedIso({ y: 2026, M: 10, d: 25, H: 1, m: 30, s: 0, S: 0 }, 'Europe/Berlin')).toBe('2026-10-25T01:30:00+02:00');
    expect(zonedIso({ y: 2026, M: 10, d: 25, H: 4, m: 0, s: 0, S: 0 }, 'Europe/Berlin')).toBe('2026-10-25T04:00:00+01:00');
  });
});

describe('formatting for exports', () => {
  it('reverses every typed parser', () => {
    expect(compileFormat({ type: 'number', decimal: ',' }, [])(-1.5)).toBe('-1,5');
    expect(compileFormat({ type: 'number', decimal: ',' }, [])('12.50')).toBe('12,50');
    expect(compileFormat({ type: 'boolean', true: ['J'], false: ['N'] }, [])(false)).toBe('N');
    expect(compileFormat({ type: 'date', format: 'dd.MM.yyyy' }, [])('2026-11-20')).toBe('20.11.2026');
    expect(compileFormat({ type: 'datetime', format: 'dd.MM.yyyy HH:mm', time_zone: 'Europe/Berlin' }, [])('2026-11-20T13:30:00Z')).toBe('20.11.2026 14:30');
    expect(compileFormat({}, [])(null)).toBe('');
    expect(compileFormat({}, [])({ a: 1 })).toBe('{"a":1}');
    expect(compileDatePattern('yyyyMMdd').format({ y: 2026, M: 1, d: 2, H: 0, m: 0, s: 0, S: 0 })).toBe('20260102');
  });
  it('neutralizes formulas', () => {
    for (const s of ['=1+1', '-1+1', '@SUM(A1)', '\tx', '\rx']) expect(escapeFormula(s)).toBe(`'${s}`);
    for (const s of ['a=1', '+1', '-1', '-2.5']) expect(escapeFormula(s)).toBe(s);
  });
});

describe('two-digit years', () => {
  it('default window 1970–2069; two_digit_years_from moves it (a 99 expiry placeholder is 2099, not 1999)', () => {
    for (const format of ['dd.MM.yy', 'd.M.yy']) {
      expect(p({ type: 'date', format }, '31.12.69')).toBe('2069-12-31');
      expect(p({ type: 'date', format }, '01.01.70')).toBe('1970-01-01');
      expect(p({ type: 'date', format }, '31.12.99')).toBe('1999-12-31');
      expect(p({ type: 'date', format, two_digit_years_from: 2000 }, '31.12.99')).toBe('2099-12-31');
      expect(p({ type: 'date', format, two_digit_years_from: 2000 }, '01.01.00')).toBe('2000-01-01');
      expect(p({ type: 'date', format, two_digit_years_from: 1950 }, '01.01.49')).toBe('2049-01-01');
      expect(p({ type: 'date', format, two_digit_years_from: 1950 }, '01.01.50')).toBe('1950-01-01');
    }
    expect(compileDatePattern('yyMMdd', 2000).parse('990229')).toBeUndefined(); // 2099 is no leap year
    expect(compileDatePattern('yyMMdd', 2000).format({ y: 2099, M: 12, d: 31, H: 0, m: 0, s: 0, S: 0 })).toBe('991231');
  });
});
