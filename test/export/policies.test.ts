import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { records, useEmulator } from '../support/emulator.js';
import { acknowledgeDueForJob } from '../../src/export/index.js';
import { MAPPING_OF, admin, captureLogger, readCsv, readRows, setUp, type Setup } from './helpers.js';
import { testHooks } from '../../src/journal/testing.js';

const emu = useEmulator({ resetEachTest: true });
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

const SO = { work_type: 'customerShipments' as const, mapping: MAPPING_OF.customerShipments };
const pendingShipments = () => records(emu, 'customer_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending');

describe('files: names, sequence, size, empty files', () => {
  it('splits the work over files of at most max_records_per_file, numbered by a per-job sequence, each acknowledged', async () => {
    const pending = await pendingShipments();
    setup = await setUp(emu, [{ name: 'so', ...SO, max_records_per_file: 50, file_name: 'SO_WORK_{work_type}_{timestamp}_{seq}.csv' }]);
    const run = await setup.run('so');
    expect(run.files.map((f) => f.records)).toEqual([50, 50, pending.length - 100]);
    expect(run.files.map((f) => f.name)).toEqual([1, 2, 3].map((n) => expect.stringMatching(new RegExp(`^SO_WORK_customerShipments_\\d{14}_00000${n}\\.csv$`))));
    const numbers = run.files.map((f) => new Set(readRows(join(setup!.outbox, f.name)).map((r) => r.ORDER_NO)));
    expect(numbers.map((s) => s.size)).toEqual([50, 50, pending.length - 100]);
    expect(new Set(numbers.flatMap((s) => [...s]))).toEqual(new Set(pending.map((r) => r.number)));
    expect(run.acknowledgements.acknowledged).toBe(pending.length);
    expect(run.acknowledgements.resultFiles).toEqual(run.files.map((f) => `${f.name}.ack.csv`));
    expect(await pendingShipments()).toEqual([]);
  });

  it('writes no file when there is no work, unless empty_files asks for a header-only file', async () => {
    setup = await setUp(emu, [{ name: 'so', ...SO }, { name: 'so-empty', ...SO, empty_files: true }]);
    await setup.run('so');
    const before = setup.outboxFiles();
    expect((await setup.run('so')).files).toEqual([]);
    expect(setup.outboxFiles()).toEqual(before);
    const empty = await setup.run('so-empty');
    expect(empty.files).toEqual([{ name: expect.stringMatching(/^so-empty_\d{14}_000001\.csv$/), kind: 'work', records: 0, bytes: expect.any(Number) }]);
    expect(readCsv(join(setup.outbox, empty.files[0].name))).toEqual([[
      'ORDER_ID', 'ORDER_NO', 'COMPANY', 'PRIORITY', 'PLANNED_DATE', 'CUSTOMER', 'EMAIL', 'ADDRESS1', 'ZIP', 'CITY', 'COUNTRY', 'CARRIER', 'SERVICE',
      'LINE_ID', 'SKU', 'DESCRIPTION', 'QTY', 'UOM',
    ]]);
  });
});

describe('journaling large files (in parts, on a worker thread)', () => {
  const inParts = { tuning: { threadFrom: 1, chunk: 7 } };

  it('files journaled in parts of 7 records on the journal thread: the same files, every record recorded and acknowledged once', async () => {
    const pending = await pendingShipments();
    setup = await setUp(emu, [{ name: 'so', ...SO, max_records_per_file: 50 }]);
    const run = await setup.run('so', inParts);
    expect(run.files.map((f) => f.records)).toEqual([50, 50, pending.length - 100]);
    expect(run.acknowledgements.acknowledged).toBe(pending.length);
    const journal = await setup.journal();
    try {
      const exports = (await journal.listExports({ workType: 'customerShipments', limit: 10 })).reverse();
      expect(exports.map((e) => [e.fileName, e.status, e.recordCount])).toEqual(run.files.map((f) => [f.name, 'completed', f.records]));
      for (const [i, e] of exports.entries()) {
        const inFile = new Set(readRows(join(setup.outbox, run.files[i]!.name)).map((r) => r.ORDER_NO));
        const recorded = await testHooks(journal).exportRecords(e.exportId);
        expect(new Set(recorded.map((r) => r.number))).toEqual(inFile);
        expect(new Set(recorded.map((r) => r.ackStatus))).toEqual(new Set(['acknowledged']));
      }
    } finally {
      await journal.close();
    }
    expect(await pendingShipments()).toEqual([]);
    expect((await setup.run('so', inParts)).files).toEqual([]);
  });

  it('two jobs at once, both journaling in parts on threads: each record handed over once', async () => {
    const pending = await pendingShipments();
    setup = await setUp(emu, [{ name: 'a', ...SO, max_records_per_file: 20 }, { name: 'b', ...SO, max_records_per_file: 30 }]);
    const [a, b] = await Promise.all([setup.run('a', inParts), setup.run('b', inParts)]);
    const numbers = [...a.files, ...b.files].flatMap((f) => [...new Set(readRows(join(setup!.outbox, f.name)).map((r) => r.ORDER_NO))]);
    expect(numbers).toHaveLength(pending.length);
    expect(new Set(numbers)).toEqual(new Set(pending.map((r) => r.number)));
    expect(a.acknowledgements.errors + b.acknowledgements.errors).toBe(0);
    expect(await pendingShipments()).toEqual([]);
  });
});

describe('acknowledgement policies', () => {
  it('never: the work list is written, nothing is acknowledged, and the records are not exported again', async () => {
    const pending = await pendingShipments();
    setup = await setUp(emu, [{ name: 'so', ...SO, acknowledge: 'never' }]);
    const first = await setup.run('so');
    expect(first).toMatchObject({ exported: pending.length, acknowledgements: { acknowledged: 0 } });
    expect(await pendingShipments()).toHaveLength(pending.length);
    const journal = await setup.journal();
    expect(new Set((await testHooks(journal).exportRecords((await journal.listExports({ limit: 1 }))[0].exportId)).map((r) => r.ackStatus))).toEqual(new Set(['not-required']));
    await journal.close();
    const second = await setup.run('so');
    expect(second).toMatchObject({ listed: pending.length, skipped: pending.length, exported: 0, files: [] });
  });

  it('on-confirmation: records wait for the WMS confirmation; confirmed ones are acknowledged by the next run, a cancelled one reported', async () => {
    const pending = await pendingShipments();
    const log = captureLogger();
    setup = await setUp(emu, [{ name: 'so', ...SO, acknowledge: 'on-confirmation' }], { logger: log.logger });
    const first = await setup.run('so');
    expect(first).toMatchObject({ exported: pending.length, awaitingConfirmation: pending.length, acknowledgements: { acknowledged: 0 } });
    expect(await pendingShipments()).toHaveLength(pending.length);

    // What the inbound pipeline records when the WMS's confirmation file comes back.
    const confirmed = pending.slice(0, 10).map((r) => r.id);
    const journal = await setup.journal();
    expect(await journal.confirmRecords('customerShipments', confirmed)).toEqual({ confirmed, unknown: [] });
    await journal.close();
    await admin(emu, 'POST', 'cancel', { ids: [confirmed[9]] });

    const second = await setup.run('so');
    expect(second).toMatchObject({ exported: 0, awaitingConfirmation: pending.length - 10, exitCode: 1 });
    expect(second.acknowledgements).toMatchObject({ acknowledged: 9, errors: 1 });
    const open = await records(emu, 'customer_shipments', (r) => r.list_status === 'open' && confirmed.includes(r.id));
    expect(open.map((r) => r.id).sort()).toEqual(confirmed.slice(0, 9).sort());
    expect(await pendingShipments()).toHaveLength(pending.length - 10);
    expect(second.cancelled).toBe(1);
    const refused = log.lines.filter((l) => l.msg === 'export: acknowledgement refused');
    expect(refused).toEqual([expect.objectContaining({ level: 50, job: 'so', id: confirmed[9], number: pending[9].number, messages: [expect.stringMatching(/cancel/i)] })]);
    expect(JSON.stringify(log.lines)).not.toContain(emu.token);
  });
});

describe('acknowledging on its own', () => {
  it('acknowledgeDueForJob acknowledges just-confirmed records without listing or writing a work list', async () => {
    const pending = await pendingShipments();
    setup = await setUp(emu, [{ name: 'so', ...SO, acknowledge: 'on-confirmation', result_files: false }]);
    await setup.run('so');
    const files = setup.outboxFiles();
    const journal = await setup.journal();
    await journal.confirmRecords('customerShipments', pending.slice(0, 3).map((r) => r.id));
    await journal.close();
    const tally = await acknowledgeDueForJob(setup.runtime, setup.loaded.config.exports[0]);
    expect(tally).toEqual({ acknowledged: 3, alreadyAcknowledged: 0, errors: 0, uncertain: 0, resultFiles: [] });
    expect(setup.outboxFiles()).toEqual(files);
    expect(await pendingShipments()).toHaveLength(pending.length - 3);
  });
});

describe('spreadsheet safety end to end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-export-mappings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'catalog-export.yaml'), `
document: products.list
files: "CATALOG_*.csv"
dialect: { delimiter: ",", bom: true }
export:
  columns:
    - { name: SKU, path: code }
    - { name: NAME, path: name }
    - { name: PRICE, path: list_price, escape_formulas: false }
    - { name: DELTA, value: "-5", escape_formulas: false }
    - { name: DELTA_TEXT, value: "-5" }
    - { name: DECIMAL_TEXT, value: "-2.5" }
    - { name: PLUS_TEXT, value: "+1" }
    - { name: SUM_TEXT, value: "-1+1" }
    - { name: AT_TEXT, value: "@SUM(A1)" }
    - { name: WIDE_TEXT, value: "\uFF0D2" }
    - { name: COMMA, value: -1.5, type: number, decimal: "," }
    - { name: COMMA_TEXT, value: "-1,5" }
`);

  it('neutralizes = + - @ tab and CR at the start of text cells, keeps plain signed numbers; BOM on request', async () => {
    const names = ['=HYPERLINK("http://evil.example")', '+41 55 123', '-minus', '@SUM(A1)', '\tTabbed', '\rReturn', 'Plain name'];
    const codes = names.map((_, i) => `SKU-0000${i + 1}`);
    for (const [i, code] of codes.entries()) await admin(emu, 'POST', 'touch-products', { codes: [code], name: names[i] });
    setup = await setUp(emu, [{ name: 'catalog', work_type: 'products', mapping: 'catalog-export', file_name: 'CATALOG_{seq}.csv' }], { mappings: dir });
    const run = await setup.run('catalog');
    const file = join(setup.outbox, run.files[0].name);
    expect([...readFileSync(file).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = readRows(file);
    const bySku = new Map(rows.map((r) => [r.SKU, r]));
    expect(codes.map((c) => bySku.get(c)!.NAME)).toEqual([
      `'=HYPERLINK("http://evil.example")`, `'+41 55 123`, `'-minus`, `'@SUM(A1)`, `'\tTabbed`, `'\rReturn`, 'Plain name',
    ]);
    // Plain signed numbers stay as they are, whatever the column; a decimal comma only where the column's numbers use one.
    for (const r of rows) {
      expect([r.DELTA, r.DELTA_TEXT, r.DECIMAL_TEXT, r.PLUS_TEXT, r.SUM_TEXT, r.AT_TEXT, r.WIDE_TEXT, r.COMMA, r.COMMA_TEXT])
        .toEqual(['-5', '-5', '-2.5', '+1', "'-1+1", "'@SUM(A1)", "'\uFF0D2", '-1,5', "'-1,5"]);
    }
    expect(rows.every((r) => /^\d+(\.\d+)?$/.test(r.PRICE))).toBe(true);
  });
});

describe('two jobs of one work type at once', () => {
  it('hand each record over once: no record in two work lists, every pending one acknowledged, no fatal error', async () => {
    const pending = await pendingShipments();
    setup = await setUp(emu, [{ name: 'a', ...SO, max_records_per_file: 20 }, { name: 'b', ...SO, max_records_per_file: 30 }]);
    const [a, b] = await Promise.all([setup.run('a'), setup.run('b')]);
    const numbers = [...a.files, ...b.files].flatMap((f) => [...new Set(readRows(join(setup!.outbox, f.name)).map((r) => r.ORDER_NO))]);
    expect(numbers).toHaveLength(pending.length);
    expect(new Set(numbers)).toEqual(new Set(pending.map((r) => r.number)));
    expect(a.acknowledgements.errors + b.acknowledgements.errors).toBe(0);
    expect(await pendingShipments()).toEqual([]);
  });
});
