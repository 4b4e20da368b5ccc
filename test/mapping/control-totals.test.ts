import { describe, expect, it } from 'vitest';
import { mapInbound, type InboundOutcome } from '../../src/mapping/index.js';
import { items, mapText, mappingOf, problemsOf, rejection, sourceOf } from './helpers.js';

const edi = (totals: string) => `
document: customerShipments.ship
files: "*.txt"
dialect: { delimiter: "|", header: false }
record_types:
  types:
    H: { columns: [H_TYPE, ORDER, H_LINES] }
    D: { columns: [D_TYPE, SKU, QTY], emit: true }
    T: { columns: [T_TYPE, T_RECORDS, T_LINES, T_QTY] }
grouping: { sorted: true }
control_totals:
${totals}
request:
  key: ORDER
  fields: { id: { column: ORDER, type: integer } }
  lists:
    lines: { fields: { product_code: SKU, quantity: { column: QTY, type: number, decimal: "," } } }
`;
const fileTotals = `  trailer: T
  checks:
    - { column: T_RECORDS, count: records }
    - { column: T_LINES, count: D }
    - { column: T_QTY, sum: QTY, decimal: "," }`;
const body = 'H|1|2\nD|A|1,5\nD|B|2\nH|2|1\nD|C|3\n';

/** Every outcome until the end or the error: nothing may come out of a file refused for its totals. */
async function outcomesOf(yaml: string, text: string): Promise<{ outcomes: InboundOutcome[]; error?: Error }> {
  const outcomes: InboundOutcome[] = [];
  try {
    for await (const o of mapInbound(sourceOf(text), mappingOf(yaml), { fileName: 'in.txt' })) outcomes.push(o);
  } catch (error) {
    return { outcomes, error: error as Error };
  }
  return { outcomes };
}

describe('control totals in a trailer record', () => {
  it('matching totals: the file maps, the trailer line is reported as checked', async () => {
    const s = await mapText(edi(fileTotals), body + 'T|5|3|6,5\n');
    expect(items(s).map((i) => i.id)).toEqual([1, 2]);
    expect(s.skipped).toEqual([{ line: 6, reason: 'control record T: its totals were checked' }]);
  });
  it('a count or a sum that does not match refuses the whole file before any outcome comes out', async () => {
    const r = await outcomesOf(edi(fileTotals), body + 'T|6|3|7\n');
    expect(r.outcomes).toEqual([]);
    expect((r.error as { code?: string }).code).toBe('FILE_LAYOUT');
    expect(r.error!.message).toBe('in.txt, line 6: control total T_RECORDS is 6, but the file has 5 records; in.txt, line 6: control total T_QTY is 7, but the QTY values add up to 6.5');
  });
  it('a missing trailer (a truncated file) and a trailer value that is not a number refuse the file', async () => {
    expect((await rejection(mapText(edi(fileTotals), body))).message).toBe('in.csv: the T control record with the control totals is missing (a truncated file?)');
    expect((await rejection(mapText(edi(fileTotals), body + 'T|5|x|6,5\n'))).message).toBe('in.csv, line 6: control total T_LINES "x" is not a number (the file has 3 D records)');
  });
});

describe('control totals name the cause', () => {
  it('totals are shown parsed on both sides, not as the raw trailer cell', async () => {
    const e = await rejection(mapText(edi(fileTotals), body + 'T|0005|3|00000015,500\n'));
    expect(e.message).toBe('in.csv, line 6: control total T_QTY is 15.5, but the QTY values add up to 6.5');
  });
  it('a summed cell that is not a number refuses the file naming its line and column, not a mismatch of a silent 0', async () => {
    const bad = 'H|1|2\nD|A|1,5\nD|B|0000x,000\nH|2|1\nD|C|3\nT|5|3|00000015,500\n';
    const r = await outcomesOf(edi(fileTotals), bad);
    expect(r.outcomes).toEqual([]);
    expect((r.error as { code?: string }).code).toBe('FILE_LAYOUT');
    expect(r.error!.message).toBe('in.txt, line 3, column QTY: "0000x,000" is not a number, so control total T_QTY cannot be checked');
  });
  it('a short detail line is named too', async () => {
    const e = await rejection(mapText(edi(fileTotals), 'H|1|2\nD|A|1,5\nD|B\nH|2|1\nD|C|3\nT|5|3|4,5\n'));
    expect(e.message).toBe('in.csv, line 3, column QTY: the value is missing (an empty cell or a short line), so control total T_QTY cannot be checked');
  });
  it('a bad trailer value is still reported beside a bad cell; past ten bad cells the rest are counted', async () => {
    const lines = ['H|1|12', ...Array.from({ length: 12 }, (_, i) => `D|S${i}|x${i}`), 'T|13|12|zz'];
    const e = await rejection(mapText(edi(fileTotals), lines.join('\n') + '\n'));
    const parts = e.message.split('; ');
    expect(parts).toHaveLength(12);
    expect(parts[0]).toBe('in.csv, line 2, column QTY: "x0" is not a number, so control total T_QTY cannot be checked');
    expect(parts[9]).toBe('in.csv, line 11, column QTY: "x9" is not a number, so control total T_QTY cannot be checked');
    expect(parts[10]).toBe('in.csv, line 14: control total T_QTY "zz" is not a number (the QTY values add up to 0)');
    expect(parts[11]).toBe('in.csv: 2 more summed cells are not numbers');
  });
  it('a document sum names the bad cell of its document', async () => {
    const docSum = `  documents:\n    - { column: H_LINES, sum: QTY, decimal: "," }\n  on_mismatch: document`;
    const s = await mapText(edi(docSum), 'H|1|3,5\nD|A|1,5\nD|B|2\nH|2|3\nD|C|3x\n');
    expect(items(s).map((i) => i.id)).toEqual([1]);
    expect(s.rejected).toEqual([{ key: '2', lines: [4, 5], errors: expect.arrayContaining(['in.csv, line 5, column QTY: "3x" is not a number, so control total H_LINES of the document "2" cannot be checked']) }]);
  });
});

describe('count: lines (trailers that count the physical lines of their file)', () => {
  const counted = `
document: inventory.adjustments
files: "*.csv"
dialect: { delimiter: ";", comment: "#" }
control_totals:
  footer: [F_LABEL, F_LINES]
  checks:
    - { column: F_LINES, count: lines }
request:
  fields: { product_code: SKU, quantity: { column: QTY, type: number } }
`;
  it('counts every physical line through the footer: header, comment and blank lines and the footer itself', async () => {
    const text = 'SKU;QTY\n# counted too\nA;1\n\nB;2.5\nTOTAL;6\n';
    const s = await mapText(counted, text);
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1 }, { product_code: 'B', quantity: 2.5 }]);
    expect((await rejection(mapText(counted, text.replace('TOTAL;6', 'TOTAL;5')))).message)
      .toBe('in.csv, line 6: control total F_LINES is 5, but the file has 6 lines through the control record');
  });
  it('counts the trailer record of an EDI-style file, and a quoted line break as the lines it spans', async () => {
    const s = await mapText(edi(`  trailer: T\n  checks:\n    - { column: T_RECORDS, count: lines }`), body + 'T|6|3|0\n');
    expect(items(s).map((i) => i.id)).toEqual([1, 2]);
    const quoted = await mapText(counted, 'SKU;QTY\n"A\nB";1\nTOTAL;4\n');
    expect(quoted.rejected).toEqual([]);
  });
});

describe('control totals per document', () => {
  const docs = (mode: string) => `  documents:\n    - { column: H_LINES, count: rows }\n  on_mismatch: ${mode}`;
  const wrong = 'H|1|3\nD|A|1\nD|B|2\nH|2|1\nD|C|3\n';
  it('on_mismatch: document rejects only that document, with every line of it', async () => {
    const s = await mapText(edi(docs('document')), wrong);
    expect(s.rejected).toEqual([{ key: '1', lines: [1, 2, 3], errors: ['in.csv, line 1: control total H_LINES is 3, but the document "1" has 2 rows'] }]);
    expect(items(s).map((i) => i.id)).toEqual([2]);
  });
  it('on_mismatch: file (the default) refuses the whole file; matching documents pass', async () => {
    const r = await outcomesOf(edi(docs('file')), wrong);
    expect(r.outcomes).toEqual([]);
    expect(r.error!.message).toBe('in.txt, line 1: control total H_LINES is 3, but the document "1" has 2 rows');
    expect(items(await mapText(edi(docs('file')), body)).map((i) => i.id)).toEqual([1, 2]);
  });
});

describe('control totals in a footer line', () => {
  const adj = `
document: inventory.adjustments
files: "*.csv"
dialect: { delimiter: ";" }
control_totals:
  footer: [F_LABEL, F_COUNT, F_SUM]
  checks:
    - { column: F_COUNT, count: records }
    - { column: F_SUM, sum: QTY }
request:
  fields: { product_code: SKU, quantity: { column: QTY, type: number } }
`;
  it('the last line is the footer, not a row', async () => {
    const s = await mapText(adj, 'SKU;QTY\nA;1\nB;2.5\nTOTAL;2;3.5\n');
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1 }, { product_code: 'B', quantity: 2.5 }]);
    expect(s.skipped).toEqual([{ line: 4, reason: 'footer line: its control totals were checked' }]);
  });
  it('a file cut before its footer fails its totals', async () => {
    const e = await rejection(mapText(adj, 'SKU;QTY\nA;1\nB;2.5\n'));
    expect(e.message).toBe('in.csv, line 3: control total F_COUNT is 2.5, but the file has 1 record; in.csv, line 3: control total F_SUM "" is not a number (the QTY values add up to 1)');
  });
});

describe('control totals are checked at load time', () => {
  it('names what is wrong', () => {
    expect(problemsOf(edi('  trailer: X'))[0]).toMatch(/control_totals\.trailer: trailer "X" is not one of the record types \(H, D, T\)/);
    expect(problemsOf(edi('  trailer: T\n  checks: [{ column: NOPE, count: records }]'))[0]).toMatch(/control_totals\.checks\.0\.column: column "NOPE" is not a column of the T record \(T_TYPE, T_RECORDS, T_LINES, T_QTY\)/);
    expect(problemsOf(edi('  trailer: T\n  checks: [{ column: T_LINES, count: Z }]'))[0]).toMatch(/count "Z": count records or lines, or the records of a type \(H, D, T\)/);
    expect(problemsOf(edi('  checks: [{ column: T_LINES, count: D }]'))[0]).toMatch(/give trailer or footer/);
    expect(problemsOf(edi('  trailer: T\n  checks: [{ column: T_LINES }]'))[0]).toMatch(/a check gives count or sum/);
  });
});
