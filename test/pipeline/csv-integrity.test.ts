import { describe, expect, it } from 'vitest';
import { adminState, useEmulator } from '../support/emulator.js';
import { korr, runInboundOnce, workspace } from './helpers.js';

// End to end: the mapping's file-level errors reach error/ with a reason, and a stray
// quote never makes lines disappear from the result file.
const emu = useEmulator({ resetEachTest: true });
const adjustmentCount = async () => (await adminState(emu, ['adjustments'])).adjustments.length;

describe('CSV that would lose rows silently', () => {
  it('a header naming a column twice sends the file to error/ with the column named, nothing applied', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const file = Buffer.from('Artikel;Menge;Grund;Beleg;Datum;Charge;Menge\nSKU-00001;1;Fund;K-1;19.11.2026;;2\n', 'latin1');
    ws.drop('KORR_dup.csv', file);
    const report = (await runInboundOnce(ws)).files[0];
    expect(report.outcome).toBe('rejected');
    expect(report.reason).toBe('FILE_LAYOUT: KORR_dup.csv, line 1: the header names column "Menge" twice (columns 2 and 7): rename one of them in the file');
    expect(ws.files('error')).toEqual(['KORR_dup.csv', 'KORR_dup.csv.error.txt']);
    expect(ws.read('error', 'KORR_dup.csv.error.txt')).toContain('column "Menge" twice');
    expect(await adjustmentCount()).toBe(0);
  });

  it('an unclosed quote sends the file to error/ naming the line where the quote opens', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_open.csv', korr(['SKU-00001;1;Fund;K-1;19.11.2026;;', 'SKU-00002;1;"Fund;K-2;19.11.2026;;', 'SKU-00003;1;Fund;K-3;19.11.2026;;']));
    const report = (await runInboundOnce(ws)).files[0];
    expect(report.outcome).toBe('rejected');
    expect(report.reason).toMatch(/^FILE_UNREADABLE: KORR_open\.csv, line 3: a quoted field is not closed before the end of the file \(its quote opens on this line/);
    expect(ws.files('error')).toEqual(['KORR_open.csv', 'KORR_open.csv.error.txt']);
    expect(await adjustmentCount()).toBe(0);
  });

  it('a stray quote closed further down: every input line has exactly one row in the result file', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_stray.csv', korr([
      'SKU-00001;1;Fund;K-1;19.11.2026;;',
      'SKU-00002;"1;Fund;K-2;19.11.2026;;',
      'SKU-00003;1;Fund;K-3;19.11.2026;;',
      'SKU-00004;1";Fund;K-4;19.11.2026;;',
      'SKU-00005;1;Fund;K-5;19.11.2026;;',
    ]));
    const report = (await runInboundOnce(ws)).files[0];
    const rows = ws.result('KORR_stray.result.csv');
    expect(rows.map((r) => [r.line, r.status])).toEqual([['2', 'ok'], ['3', 'error'], ['4', 'error'], ['5', 'error'], ['6', 'ok']]);
    expect(rows[1].message).toBe(rows[3].message);
    expect(rows[1].message).toContain('line 3, column Menge');
    expect(report.rows).toEqual({ ok: 2, error: 3, skipped: 0, uncertain: 0 });
    expect(await adjustmentCount()).toBe(2);
  });
});

describe('control totals end to end', () => {
  const totals = `document: inventory.adjustments
files: "TOT_*.csv"
dialect: { delimiter: ";" }
control_totals:
  footer: [LABEL, COUNT]
  checks: [{ column: COUNT, count: records }]
request:
  fields: { product_code: SKU, quantity: { column: QTY, type: number }, company_code: { value: ACME } }
`;
  it('a footer count that does not match sends the file to error/ and applies nothing; a matching one applies every row', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, extraMappings: { 'totals-adjustments': totals } });
    ws.drop('TOT_1.csv', 'SKU;QTY\nSKU-00001;1\nSKU-00002;1\nTOTAL;3\n');
    const bad = (await runInboundOnce(ws)).files[0];
    expect(bad.outcome).toBe('rejected');
    expect(bad.reason).toBe('FILE_LAYOUT: TOT_1.csv, line 4: control total COUNT is 3, but the file has 2 records');
    expect(ws.files('error')).toEqual(['TOT_1.csv', 'TOT_1.csv.error.txt']);
    expect(await adjustmentCount()).toBe(0);

    ws.drop('TOT_2.csv', 'SKU;QTY\nSKU-00001;1\nSKU-00002;1\nTOTAL;2\n');
    const good = (await runInboundOnce(ws)).files[0];
    expect(ws.result('TOT_2.result.csv').map((r) => r.status)).toEqual(['ok', 'ok', 'skipped']);
    expect(good.rows).toEqual({ ok: 2, error: 0, skipped: 1, uncertain: 0 });
    expect(await adjustmentCount()).toBe(2);
  });
});
