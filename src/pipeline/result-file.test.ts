import { describe, expect, it } from 'vitest';
import { csvField, csvRow, resultFileName, returnedColumns } from './result-file.js';

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
    expect(returnedColumns({ id: 7, shipped_at: '2026-11-22T10:00:00+00:00', split_shipment_id: 9, errors: null })).toEqual([7, undefined, '2026-11-22T10:00:00+00:00', undefined, undefined, 'split_shipment_id=9']);
    expect(returnedColumns(null)).toEqual([null, null, null, null, null, '']);
  });
  it('names the result file after the input without its extension', () => {
    expect(resultFileName('KORR_20261120.csv')).toBe('KORR_20261120.result.csv');
    expect(resultFileName('OTSHIP.txt')).toBe('OTSHIP.result.csv');
    expect(resultFileName('noext')).toBe('noext.result.csv');
  });
});
