import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { exportBytes, items, mapText, mappingOf, problemsOf, rejection } from './helpers.js';

const flat = (extra = '') => `
document: inventory.adjustments
files: "*.txt"
dialect:
  format: fixed
${extra}
columns:
  - { name: SKU, start: 1, length: 10 }
  - { name: QTY, start: 11, length: 6 }
  - { name: REASON, start: 17, length: 12 }
request:
  fields:
    product_code: SKU
    quantity: { column: QTY, type: number }
    reason: REASON
`;

describe('fixed-width inbound files', () => {
  it('columns by start and length, values trimmed, short lines, CRLF, a BOM and empty lines', async () => {
    const text = '\ufeffSKU-1     000012damaged     \r\nSKU-2     -00003\r\n\r\nSKU-3        1.5counted\r\n';
    const s = await mapText(flat(), text);
    expect(items(s)).toEqual([
      { product_code: 'SKU-1', quantity: 12, reason: 'damaged' },
      { product_code: 'SKU-2', quantity: -3 },
      { product_code: 'SKU-3', quantity: 1.5, reason: 'counted' },
    ]);
  });
  it('row errors name the line and column as for CSV; skip_lines and windows-1252', async () => {
    const bytes = iconv.encode('REPORT 2026-11-20\nSKU-1     00001xBruch\nSKU-Ä     000002Zählung\n', 'win1252');
    const s = await mapText(flat('  skip_lines: 1\n  encoding: windows-1252'), bytes);
    expect(s.rejected).toEqual([{ key: '', lines: [2], errors: ['in.csv, line 2, column QTY: "00001x" is not a number'] }]);
    expect(items(s)).toEqual([{ product_code: 'SKU-Ä', quantity: 2, reason: 'Zählung' }]);
  });
  it('record types: the code is read where the first column of each type says; an unknown code is a row error', async () => {
    const m = `
document: customerShipments.failed
files: "*.txt"
dialect: { format: fixed }
record_types:
  types:
    HD: { columns: [{ name: HT, start: 1, length: 2 }, { name: ORDER, start: 3, length: 6 }] }
    DT: { columns: [{ name: DT, start: 1, length: 2 }, { name: TEXT, start: 3, length: 20 }] }
request:
  key: ORDER
  fields:
    id: { column: ORDER, type: integer }
    error: TEXT
`;
    const s = await mapText(m, 'HD000005\nDTout of stock\nXX??\nHD000006\nDTdamaged carton\n');
    expect(items(s)).toEqual([{ id: 5, error: 'out of stock' }, { id: 6, error: 'damaged carton' }]);
    expect(s.rejected).toEqual([{ key: '', lines: [3], errors: ['in.csv, line 3: record type "XX" is not one of HD, DT'] }]);
  });
  it('a line longer than max_record_size without a line end refuses the file', async () => {
    const e = await rejection(mapText(flat('  max_record_size: 1024'), 'SKU-1     000001\n' + 'x'.repeat(3000)));
    expect(e.code).toBe('FILE_UNREADABLE');
    expect(e.message).toBe('in.csv, line 2: a record is longer than dialect.max_record_size');
  });
  it('layout mistakes are refused at load', () => {
    expect(problemsOf(flat().replace('  - { name: QTY, start: 11, length: 6 }', '  - QTY'))[0]).toMatch(/columns\.1: with dialect\.format fixed, give each column as \{ name, start, length \} \("QTY" has no position\)/);
    expect(problemsOf(flat().replace('  format: fixed', '  format: csv'))[0]).toMatch(/columns\.0: start and length are for fixed-width files/);
    expect(problemsOf(flat('  comment: "#"'))[0]).toMatch(/dialect\.comment: comment lines are for CSV files/);
    const codes = 'document: customerShipments.failed\nfiles: x\ndialect: { format: fixed }\nrecord_types:\n  types:\n    H: { columns: [{ name: HT, start: 1, length: 1 }, { name: O, start: 2, length: 3 }] }\n    D: { columns: [{ name: DT, start: 2, length: 1 }, { name: T, start: 3, length: 3 }] }\nrequest:\n  key: O\n  fields: { id: { column: O, type: integer }, error: T }\n';
    expect(problemsOf(codes)[0]).toMatch(/the type code column must have the same start and length in every record type \(D differs\)/);
    expect(mappingOf(codes.replace('{ name: DT, start: 2, length: 1 }', '{ name: DT, start: 1, length: 1 }')).inbound?.fixed?.typed?.types.size).toBe(2);
  });
});

describe('fixed-width exports', () => {
  const m = (length = 8) => `
document: products.list
files: "*.txt"
dialect: { format: fixed, record_delimiter: crlf }
export:
  columns:
    - { name: SKU, path: code, length: ${length} }
    - { name: PRICE, path: list_price, length: 8, align: right, pad_char: "0" }
    - { name: NAME, path: name, length: 6 }
`;
  it('pads every cell to its width (left or right aligned), writes no header and never quotes', async () => {
    const bytes = await exportBytes(m(), [{ code: 'A-1', list_price: -1.5, name: 'a "b"' }, { code: 'B,2', list_price: 10, name: '' }]);
    expect(bytes.toString()).toBe('A-1     -00001.5a "b" \r\nB,2     00000010      \r\n');
  });
  it('a value longer than its column fails the export instead of being cut', async () => {
    const e = await rejection(exportBytes(m(3), [{ code: 'TOO-LONG', list_price: 1, name: 'x' }]));
    expect(e.code).toBe('ROW_INVALID');
    expect(e.message).toBe('export column SKU: "TOO-LONG" is longer than its 3 characters');
    const broken = await rejection(exportBytes(m(), [{ code: 'A', list_price: 1, name: 'a\nb' }]));
    expect(broken.message).toBe('export column NAME: "a\nb" holds a line break, which would split the fixed-width record');
  });
  it('length is required for fixed exports and refused for CSV ones', () => {
    expect(problemsOf(m().replace(', length: 8 }', ' }'))[0]).toMatch(/column "SKU": a fixed-width export gives each column a length/);
    expect(problemsOf(m().replace('format: fixed', 'format: csv'))[0]).toMatch(/column "SKU": length, align and pad_char are for dialect.format: fixed/);
  });
});
