import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { exportBytes, rejection } from './helpers.js';
import { createExportWriter } from '../../src/mapping/index.js';
import { mappingOf } from './helpers.js';

const records = [
  { id: 1, number: 'SO-1', customer: { name: 'Zoë' }, lines: [{ id: 10, product: { code: 'A' }, quantity: 2 }, { id: 11, product: { code: 'B' }, quantity: -1.5 }] },
  { id: 2, number: '=SO-2', customer: { name: '@evil' }, lines: [] },
];

const flat = (dialect = '', col = '') => `
document: customerShipments.list
files: "*.csv"
dialect: { delimiter: ",", ${dialect} }
export:
  rows: lines
  columns:
    - { name: NO, path: number }
    - { name: CUSTOMER, path: customer.name }
    - { name: SKU, path: line.product.code }
    - { name: QTY, path: line.quantity, type: number${col} }
`;

describe('exports: records to rows', () => {
  it('one row per line with header fields repeated; a record without lines still gets a row; formulas neutralized, numbers kept', async () => {
    const out = (await exportBytes(flat(), records)).toString('utf8');
    expect(out).toBe("NO,CUSTOMER,SKU,QTY\nSO-1,Zoë,A,2\nSO-1,Zoë,B,-1.5\n'=SO-2,'@evil,,\n");
  });
  it('a decimal comma column keeps its plain numbers under the formula guard', async () => {
    const out = (await exportBytes(flat('', ', decimal: ","'), records)).toString('utf8');
    expect(out).toBe("NO,CUSTOMER,SKU,QTY\nSO-1,Zoë,A,2\nSO-1,Zoë,B,\"-1,5\"\n'=SO-2,'@evil,,\n");
  });
  it('escape_formulas can be switched off per column', async () => {
    const out = (await exportBytes(flat('', ', decimal: ",", escape_formulas: false'), records)).toString('utf8');
    expect(out).toBe("NO,CUSTOMER,SKU,QTY\nSO-1,Zoë,A,2\nSO-1,Zoë,B,\"-1,5\"\n'=SO-2,'@evil,,\n");
  });
  it('escape_formulas can be switched off for the whole dialect', async () => {
    const out = (await exportBytes(flat('escape_formulas: false'), records)).toString('utf8');
    expect(out).toContain('=SO-2,@evil,,');
  });
  it('a UTF-8 BOM, CRLF line ends, no header row', async () => {
    const out = await exportBytes(flat('bom: true, record_delimiter: crlf, header: false'), records.slice(0, 1));
    expect([...out.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(out.subarray(3).toString('utf8')).toBe("SO-1,Zoë,A,2\r\nSO-1,Zoë,B,-1.5\r\n");
  });
  it('windows-1252 output, semicolons, and quoting of delimiters, quotes, CR and LF', async () => {
    const recs = [{ number: 'a;b', customer: { name: 'say "hi"\rnow' }, lines: [{ product: { code: 'x\ny' }, quantity: 1 }] }];
    const out = await exportBytes(flat('delimiter: ";", encoding: windows-1252').replace('delimiter: ",", ', ''), recs);
    expect(iconv.decode(out, 'win1252')).toBe('NO;CUSTOMER;SKU;QTY\n"a;b";"say ""hi""\rnow";"x\ny";1\n');
    expect(iconv.decode(await exportBytes(flat('encoding: windows-1252'), records.slice(0, 1)), 'win1252')).toContain('Zoë');
    expect((await exportBytes(flat('encoding: windows-1252'), records.slice(0, 1))).includes(Buffer.from([0xeb]))).toBe(true);
  });
  it('header/line record types', async () => {
    const m = `
document: outboundTransfers.list
files: "*.csv"
dialect: { delimiter: ";" }
export:
  rows: lines
  header_record: { type: H, columns: [{ name: NO, path: number }, { name: DATE, path: planned_date, type: date, format: dd.MM.yyyy }] }
  line_record: { type: D, columns: [{ name: SKU, path: line.product.code }, { name: Q, path: line.quantity, type: number, decimal: ",", escape_formulas: false }] }
`;
    const out = (await exportBytes(m, [{ number: 'OT-1', planned_date: '2026-11-20', lines: [{ product: { code: 'A' }, quantity: 1.5 }, { product: { code: 'B' }, quantity: 2 }] }])).toString();
    expect(out).toBe('H;OT-1;20.11.2026\nD;A;1,5\nD;B;2\n');
  });
  it('paths: filters on arrays, indexes, constants, defaults, joins, booleans, datetimes', async () => {
    const m = `
document: products.list
files: "*.csv"
export:
  columns:
    - { name: TPL, path: "codes[type=3pl_sku].value" }
    - { name: FIRST, path: "codes[0].type" }
    - { name: KIND, value: goods }
    - { name: BRAND, path: brand, default: none }
    - { name: TAGS, path: tags, join: "|" }
    - { name: SCAN, path: scan_required, type: boolean, true: [J], false: [N] }
    - { name: UPDATED, path: updated_at, type: datetime, format: "dd.MM.yyyy HH:mm", time_zone: Europe/Berlin }
`;
    const p = { codes: [{ type: 'upc', value: '123' }, { type: '3pl_sku', value: '3PL-1' }], tags: ['a', 'b'], scan_required: true, updated_at: '2026-07-01T10:00:00Z' };
    expect((await exportBytes(m, [p])).toString()).toBe('TPL,FIRST,KIND,BRAND,TAGS,SCAN,UPDATED\n3PL-1,upc,goods,none,a|b,J,01.07.2026 12:00\n');
  });
  it('an inbound mapping cannot write exports (USAGE)', async () => {
    const m = mappingOf('document: inventory.adjustments\nfiles: x\nrequest: { fields: { product_code: A } }\n');
    const e = await rejection(Promise.resolve().then(() => createExportWriter(m)));
    expect(e.code).toBe('USAGE');
  });
});
