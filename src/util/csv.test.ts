import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvWriter, neutralizeFormula, RFC4180, type CsvDialect } from './csv.js';

const dialects: CsvDialect[] = [
  RFC4180,
  { delimiter: ';', quote: '"', escape: '"', recordDelimiter: '\n' },
  { delimiter: '\t', quote: "'", escape: '\\', recordDelimiter: '\n' },
  { delimiter: '||', quote: '"', escape: '"', recordDelimiter: '\r\n' },
];
const text = fc.string({ unit: fc.constantFrom(...'aZ09 ,;|"\'\\\t\r\n=+-@é'.split('')), maxLength: 10 });
const rows = fc.array(fc.array(text, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 });

describe('the one CSV writer', () => {
  for (const d of dialects) {
    it(`writes what csv-stringify writes, and csv-parse reads it back (${JSON.stringify(d)})`, () => {
      const writer = new CsvWriter(d);
      const options = { delimiter: d.delimiter, quote: d.quote, escape: d.escape, record_delimiter: d.recordDelimiter === '\r\n' ? 'windows' : 'unix', quoted_match: /[\r\n]/ } as const;
      fc.assert(fc.property(rows, (records) => {
        const out = records.map((r) => writer.row(r)).join('');
        expect(out).toBe(stringify(records, options));
        const back = parse(out, { delimiter: d.delimiter, quote: d.quote, escape: d.escape, relax_column_count: true }) as string[][];
        expect(back).toEqual(records);
      }), { numRuns: 200 });
    });
  }

  it('one formula rule: what a spreadsheet evaluates gets a leading quote; plain signed numbers stay as they are', () => {
    const evaluated = ['=1+1', '-1+1', '+1-', '-2e3', '+', '-', '-.', '--2', '- 2', '-2 ', '-1,5', '@SUM(A1)', '+A1', '-A1', '\tx', '\t1', '\rx', '\r-2',
      '\uFF1D1', '\uFF0B1', '\uFF0D1', '\uFF0D2.5', '\uFF20SUM(A1)', '-\uFF12'];
    for (const s of evaluated) expect(neutralizeFormula(s), JSON.stringify(s)).toBe(`'${s}`);
    for (const s of ['-2', '-2.5', '+1', '+1.25', '-0', '-.5', '-2.', '0', '12', 'a=1', 'SO-1', '', ' =x']) expect(neutralizeFormula(s), s).toBe(s);
    // A decimal comma is a plain number only where the writer's numbers use one (a German export column).
    expect(neutralizeFormula('-1,5', ',')).toBe('-1,5');
    expect(neutralizeFormula('-1.5', ',')).toBe("'-1.5");
    expect(neutralizeFormula('-1,5+1', ',')).toBe("'-1,5+1");
    const csv = new CsvWriter(RFC4180);
    expect(csv.cells([-5, '-5', '-1+1', '=cmd', null, { a: 1 }, 'a "b"'])).toBe(`-5,-5,'-1+1,'=cmd,,"{""a"":1}","a ""b"""\r\n`);
  });
});
