import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { items, mapText, mappingOf, problemsOf, rejection } from './helpers.js';

const adj = (dialect: string, fields = 'product_code: SKU\n    quantity: { column: QTY, type: number }', extra = '') => `
document: inventory.adjustments
files: "*.csv"
dialect:
${dialect}
${extra}
request:
  fields:
    ${fields}
`;

describe('CSV dialect options', () => {
  it('delimiter, quote and escape', async () => {
    const m = adj('  delimiter: "|"\n  quote: "\'"\n  escape: "\\\\"');
    const s = await mapText(m, "SKU|QTY\n'A|1'|2\n'B \\'x\\''|3\n");
    expect(items(s)).toEqual([{ product_code: 'A|1', quantity: 2 }, { product_code: "B 'x'", quantity: 3 }]);
  });
  it('a multi-character delimiter', async () => {
    const s = await mapText(adj('  delimiter: "::"'), 'SKU::QTY\nA::2\n');
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 2 }]);
  });
  it('header row matched by name, in any order, with surrounding blanks', async () => {
    const s = await mapText(adj('  delimiter: ","'), 'QTY , SKU\n5,A\n');
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 5 }]);
  });
  it('positional columns by number and by name from columns', async () => {
    const byNumber = await mapText(adj('  header: false', 'product_code: 2\n    quantity: { column: 3, type: integer }'), 'x,A,4\n');
    expect(items(byNumber)).toEqual([{ product_code: 'A', quantity: 4 }]);
    const byName = await mapText(adj('  header: false', 'product_code: SKU\n    quantity: { column: QTY, type: integer }', 'columns: [SKU, QTY]'), 'B,6\n');
    expect(items(byName)).toEqual([{ product_code: 'B', quantity: 6 }]);
  });
  it('UTF-8 with and without a BOM (the BOM never reaches the first header name)', async () => {
    const text = 'SKU,QTY\nÄ-1,1\n';
    for (const bytes of [Buffer.from(text), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])]) {
      expect(items(await mapText(adj('  delimiter: ","'), bytes))).toEqual([{ product_code: 'Ä-1', quantity: 1 }]);
    }
  });
  it('windows-1252 and ISO-8859-1 decode to the right characters', async () => {
    const text = 'SKU;QTY\nStörung€;1\n';
    const cp = await mapText(adj('  delimiter: ";"\n  encoding: windows-1252'), iconv.encode(text, 'win1252'));
    expect(items(cp)).toEqual([{ product_code: 'Störung€', quantity: 1 }]);
    const latin = await mapText(adj('  delimiter: ";"\n  encoding: iso-8859-1'), iconv.encode('SKU;QTY\nÅsa;1\n', 'latin1'));
    expect(items(latin)).toEqual([{ product_code: 'Åsa', quantity: 1 }]);
  });
  it('a UTF-8 BOM wins over a declared single-byte encoding', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('SKU;QTY\nStörung;1\n')]);
    const s = await mapText(adj('  delimiter: ";"\n  encoding: windows-1252'), bytes);
    expect(items(s)).toEqual([{ product_code: 'Störung', quantity: 1 }]);
  });
  it('skip_lines before the header, comment lines, empty and trailing empty lines', async () => {
    const m = adj('  delimiter: ","\n  skip_lines: 2\n  comment: "#"');
    const s = await mapText(m, 'REPORT\n2026-11-20\nSKU,QTY\n# note, with comma\nA,1\n\nB#2,2\n,\n\n\n');
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1 }, { product_code: 'B#2', quantity: 2 }]);
  });
  it('empty lines can be kept (and then fail as rows)', async () => {
    const s = await mapText(adj('  delimiter: ","\n  skip_empty_lines: false'), 'SKU,QTY\nA,1\n,\n');
    expect(s.rejected.map((r) => r.lines)).toEqual([[3]]);
  });
  it('CRLF line endings and quoted newlines keep line numbers right', async () => {
    const m = adj('  delimiter: ","\n  record_delimiter: crlf', 'product_code: SKU\n    quantity: { column: QTY, type: number }\n    reason: NOTE');
    const s = await mapText(m, 'SKU,QTY,NOTE\r\nA,1,"two\r\nlines"\r\n\r\nB,x,\r\n');
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1, reason: 'two\r\nlines' }]);
    expect(s.rejected).toEqual([{ key: '', lines: [5], errors: ['in.csv, line 5, column QTY: "x" is not a number'] }]);
  });
  it('a record with the wrong number of fields is a row error', async () => {
    const s = await mapText(adj('  delimiter: ","'), 'SKU,QTY\nA,1,extra\nB,2\n');
    expect(s.rejected).toEqual([{ key: '', lines: [2], errors: ['in.csv, line 2: 3 fields, the header has 2'] }]);
    expect(items(s)).toEqual([{ product_code: 'B', quantity: 2 }]);
  });
  it('an unclosed quote stops at max_record_size with a FILE_UNREADABLE error naming the line', async () => {
    const m = mappingOf(adj('  delimiter: ","\n  max_record_size: 1024'));
    const e = await rejection(mapText(m, 'SKU,QTY\nA,1\n"B,2\n' + 'x,1\n'.repeat(500)));
    expect(e.code).toBe('FILE_UNREADABLE');
    expect(e.message).toMatch(/^in\.csv, line \d+: a record is longer than dialect.max_record_size \(an unclosed quote\?\)$/);
  });
  it('a header without a column the mapping needs is a FILE_LAYOUT error', async () => {
    const e = await rejection(mapText(adj('  delimiter: ","'), 'SKU,AMOUNT\nA,1\n'));
    expect(e.code).toBe('FILE_LAYOUT');
    expect(e.message).toBe('in.csv, line 1: column "QTY" named by the mapping is not in the header (found: SKU, AMOUNT)');
    const near = await rejection(mapText(adj('  delimiter: ","'), 'SKU,QTYS\nA,1\n'));
    expect(near.message).toBe('in.csv, line 1: column "QTY" named by the mapping is not in the header; the closest there is "QTYS" (found: SKU, QTYS)');
  });
  it('an empty file gives no outcomes', async () => {
    expect(await mapText(adj('  delimiter: ","'), '')).toEqual({ requests: [], rejected: [], skipped: [] });
  });
});

describe('line numbers', () => {
  const m = adj('  delimiter: ","', 'product_code: SKU\n    quantity: { column: QTY, type: number }\n    reason: NOTE');
  it('count a quoted CRLF once and a lone CR or LF once (as csv-parse does), with skipped lines between', async () => {
    for (const nl of ['\n', '\r\n']) {
      const text = ['SKU,QTY,NOTE', `A,1,"a${nl}b${nl}c"`, '', `B,2,"x\ry"`, 'C,z,', ''].join(nl);
      const s = await mapText(m, text);
      expect(s.rejected.map((r) => r.lines)).toEqual([[8]]);
    }
  });
});

describe('line numbers with comment lines (csv-parse info)', () => {
  it('stay right after comments, empty lines and quoted CRLF', async () => {
    const m = adj('  delimiter: ","\n  comment: "#"', 'product_code: SKU\n    quantity: { column: QTY, type: number }\n    reason: NOTE');
    const text = ['# head', 'SKU,QTY,NOTE', '# c1', 'A,1,"x\r\ny"', '', '# c2', 'B,q,', ''].join('\r\n');
    const s = await mapText(m, text);
    expect(s.rejected.map((r) => r.lines)).toEqual([[8]]);
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1, reason: 'x\r\ny' }]);
  });
});

describe('line numbers without comment lines (counted from the records)', () => {
  it('count skip_lines, empty lines and blank-only records', async () => {
    const s = await mapText(adj('  delimiter: ","\n  skip_lines: 2'), 'TITLE\nDATE\nSKU,QTY\nA,1\n\n , \nB,x\n');
    expect(s.rejected).toEqual([{ key: '', lines: [7], errors: ['in.csv, line 7, column QTY: "x" is not a number'] }]);
  });
});

describe('header names and quotes that would lose lines', () => {
  const m = adj('  delimiter: ","', 'product_code: SKU\n    quantity: { column: QTY, type: number }\n    reason: NOTE');
  it('a header naming a column twice is a FILE_LAYOUT error naming the column', async () => {
    const e = await rejection(mapText(m, 'SKU,QTY,NOTE,QTY\nA,1,x,2\n'));
    expect(e.code).toBe('FILE_LAYOUT');
    expect(e.message).toBe('in.csv, line 1: the header names column "QTY" twice (columns 2 and 4): rename one of them in the file');
  });
  it('empty header names (trailing delimiters) may repeat', async () => {
    const s = await mapText(m, 'SKU,QTY,NOTE,,\nA,1,x,,\n');
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1, reason: 'x' }]);
  });
  it('an unclosed quote is reported at the line where it opens, on the fast path and through csv-parse', async () => {
    const text = 'SKU,QTY,NOTE\nA,1,x\nB,2,"open\nC,3,y\nD,4,z\n';
    for (const dialect of ['  delimiter: ","', '  delimiter: ","\n  comment: "#"', '  delimiter: ","\n  record_delimiter: crlf']) {
      const input = dialect.includes('crlf') ? text.replace(/\n/g, '\r\n') : dialect.includes('comment') ? text.replace('A,1,x\n', 'A,1,x\n# note\n\n') : text;
      const e = await rejection(mapText(adj(dialect, 'product_code: SKU\n    reason: NOTE'), input));
      expect(e.code).toBe('FILE_UNREADABLE');
      expect(e.message).toMatch(new RegExp(`^in\\.csv, line ${dialect.includes('comment') ? 5 : 3}: a quoted field is not closed before the end of the file \\(its quote opens on this line`));
    }
  });
  it('an unclosed quote that reaches max_record_size is reported where it opens', async () => {
    const e = await rejection(mapText(adj('  delimiter: ","\n  max_record_size: 1024'), 'SKU,QTY\nA,1\n"B,2\n' + 'x,1\n'.repeat(500)));
    expect(e.message).toMatch(/^in\.csv, line 3: a record is longer than dialect.max_record_size/);
  });
  it('a stray quote that swallows lines gives every swallowed line the outcome of its record', async () => {
    const s = await mapText(m, 'SKU,QTY,NOTE\nA,"1\nB,2,x\nC,3",y\nD,4,z\n');
    expect(s.rejected).toEqual([{ key: '', lines: [2, 3, 4], errors: ['in.csv, line 2, column QTY: "1\nB,2,x\nC,3" is not a number'] }]);
    expect(items(s)).toEqual([{ product_code: 'D', quantity: 4, reason: 'z' }]);
    const wide = await mapText(m, 'SKU,QTY,NOTE\nA,1,"x\nB,2,y\nC,3,z"\nD,4,w,extra\n');
    expect(items(wide)).toEqual([{ product_code: 'A', quantity: 1, reason: 'x\nB,2,y\nC,3,z' }]);
    expect(wide.rejected[0].lines).toEqual([5]);
    const split = await mapText(m, 'SKU,QTY,NOTE\nA,"1\nB",2,x\n');
    expect(split.rejected).toEqual([{ key: '', lines: [2, 3], errors: ['in.csv, line 2: 4 fields, the header has 3 (a quoted field runs from line 2 to line 3: a stray quote?)'] }]);
  });
  it('a skipped multi-line record skips each of its lines', async () => {
    const s = await mapText(adj('  delimiter: ","', 'product_code: SKU\n    reason: NOTE', 'skip: { column: SKU, equals: S }'), 'SKU,NOTE\nS,"a\nb"\nA,x\n');
    expect(s.skipped.map((k) => k.line)).toEqual([2, 3]);
  });
  it('quote: false reads quotes as ordinary characters, one record per line', async () => {
    const fields = 'product_code: SKU\n    quantity: { value: 1 }\n    reason: NOTE';
    const s = await mapText(adj('  delimiter: ";"\n  quote: false', fields), 'SKU;NOTE\nA;"12" pipe\nB;say "hi\nC;x\n');
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1, reason: '"12" pipe' }, { product_code: 'B', quantity: 1, reason: 'say "hi' }, { product_code: 'C', quantity: 1, reason: 'x' }]);
    const viaParser = await mapText(adj('  delimiter: ";"\n  quote: false\n  comment: "#"', fields), 'SKU;NOTE\n"A;x"\n');
    expect(items(viaParser)).toEqual([{ product_code: '"A', quantity: 1, reason: 'x"' }]);
  });
  it('quote: false is refused for an export', () => {
    expect(problemsOf('document: products.list\nfiles: "x.csv"\ndialect: { quote: false }\nexport: { columns: [{ name: SKU, path: sku }] }\n').join('\n')).toMatch(/dialect\.quote: quote: false is for inbound files/);
  });
});
