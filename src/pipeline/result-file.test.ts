import { describe, expect, it } from 'vitest';
import { TextBuffer } from '../util/text-buffer.js';
import { csvField, csvRow, resultFileName, resultRow, writeResultRows, type RowOutcome } from './result-file.js';

describe('result file cells', () => {
  it('neutralises spreadsheet formulas in text but keeps numbers (also plain numbers as text), quotes what needs it', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+49 30 1234')).toBe("'+49 30 1234");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('-2')).toBe('-2');
    expect(csvField('-2.5')).toBe('-2.5');
    expect(csvField('+1')).toBe('+1');
    expect(csvField('-1+1')).toBe("'-1+1");
    expect(csvField('\uFF0D2')).toBe("'\uFF0D2");
    expect(csvField(-2.5)).toBe('-2.5');
    expect(csvField(-3)).toBe('-3');
    expect(csvField('\uFF1DSUM(A1)')).toBe("'\uFF1DSUM(A1)");
    expect(csvField('-oops')).toBe("'-oops");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('bare\rcr')).toBe('"bare\rcr"');
    expect(csvField(null)).toBe('');
    expect(csvRow([1, 'SO-1', 'ok'])).toBe('1,SO-1,ok\r\n');
  });
  it('splits what the service returned into the fixed columns and the rest', () => {
    const shipped = { docKey: 'SO-7', status: 'ok' as const, result: { id: 7, shipped_at: '2026-11-22T10:00:00+00:00', split_shipment_id: 9, errors: null }, messages: [], hint: null };
    expect(resultRow(1, shipped)).toBe('1,SO-7,ok,7,,2026-11-22T10:00:00+00:00,,,split_shipment_id=9,,\r\n');
    expect(resultRow(1, { ...shipped, result: null })).toBe('1,SO-7,ok,,,,,,,,\r\n');
  });
  it('writes one row per line: the answer columns, quoted and neutralized text, messages and hint', () => {
    const counts: Record<string, number> = {};
    const ok = { docKey: 'SKU-1', status: 'ok' as const, result: { move_id: 4711, id: 12, number: undefined, note: 'a,b' }, messages: [], hint: null };
    expect(resultRow(2, ok, undefined, counts)).toBe('2,SKU-1,ok,12,,,4711,,"note=a,b",,\r\n');
    const refused = { docKey: '=Größe "XL"', status: 'error' as const, result: null, messages: ['quantity: must not be 0'], hint: null };
    expect(resultRow(3, refused, undefined, counts)).toBe(`3,"'=Größe ""XL""",error,,,,,,,quantity: must not be 0,\r\n`);
    const open = { docKey: null, status: 'sent' as const, result: null, messages: [], hint: null };
    expect(resultRow(4, open, undefined, counts)).toBe('4,,uncertain,,,,,,,,the bridge stopped before this row was decided\r\n');
    expect(resultRow(5, ok, { status: 'error', message: 'file refused' }, counts)).toBe('5,SKU-1,error,12,,,4711,,"note=a,b",file refused,\r\n');
    expect(counts).toEqual({ ok: 1, error: 2, uncertain: 1 });
  });
  it('names the result file after the input without its extension', () => {
    expect(resultFileName('KORR_20261120.csv')).toBe('KORR_20261120.result.csv');
    expect(resultFileName('OTSHIP.txt')).toBe('OTSHIP.result.csv');
    expect(resultFileName('noext')).toBe('noext.result.csv');
  });

  it('writes the rows of a record of several lines as row by row: the same bytes and counts, with or without messages', () => {
    const outcomes: RowOutcome[] = [
      { docKey: 'SKU-1', status: 'ok', result: { move_id: 7, note: 'a, b' }, hint: null, messages: [] },
      { docKey: 'SO-1', status: 'sent', result: null, hint: null, messages: [] },
      { docKey: 'SO-2', status: 'error', result: null, hint: 'check it', messages: ['f.csv, line 99, column QTY: "x" is not a number', 'closed'] },
    ];
    for (const o of outcomes) {
      for (const lines of [[7], [9, 10, 11], [99, 100, 1000]]) {
        const counts: Record<string, number> = {};
        const together = new TextBuffer(16);
        writeResultRows(together, lines, o, counts);
        const oneByOne: Record<string, number> = {};
        expect([together.toString(), counts]).toEqual([lines.map((l) => resultRow(l, o, undefined, oneByOne)).join(''), oneByOne]);
      }
    }
  });
});
