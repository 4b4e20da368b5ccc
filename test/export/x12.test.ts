import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { segmentsOf, type Segment } from '../../src/x12/index.js';
import { records, useEmulator } from '../support/emulator.js';
import { MAPPING_OF, setUp, wisbridge, type JobInput, type Setup } from './helpers.js';

// Work lists written as X12 (docs/x12.md, "Writing work lists"): against the emulator, in process and as a child
// process killed between allocating the control numbers and writing the interchange.
const emu = useEmulator({ resetEachTest: true });
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

const PARTNERS = { nwl: { them: { qualifier: 'ZZ', id: 'NWLWMS' }, us: { qualifier: 'ZZ', id: 'WISBRIDGE' }, application_code: 'NWLAPP' } };
const JOB: JobInput = {
  name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.customerShipments, format: 'x12', partner: 'nwl', file_name: '{job}_{seq}.x12', cancellations: false,
};
const pendingShipments = () => records(emu, 'customer_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending');

/** An interchange's control numbers and the record ids its sets carry (N9*ZZ). */
function readInterchange(file: string) {
  const segments: Segment[] = segmentsOf(readFileSync(file));
  const one = (id: string) => segments.find((s) => s.id === id)!;
  return {
    isa13: one('ISA').element(13), gs06: one('GS').element(6), gs01: one('GS').element(1), gs03: one('GS').element(3),
    st02: segments.filter((s) => s.id === 'ST').map((s) => s.element(2)),
    ids: segments.filter((s) => s.id === 'N9' && s.element(1) === 'ZZ').map((s) => Number(s.element(2))),
  };
}

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const setNumbers = (from: number, n: number) => Array.from({ length: n }, (_, i) => String(from + i).padStart(4, '0'));

describe('work lists as X12', { timeout: 180_000 }, () => {
  it('writes pending customer shipments as one interchange of 940s, its numbers recorded with the export, then acknowledges them', async () => {
    const pending = await pendingShipments();
    expect(pending.length).toBeGreaterThan(1);
    setup = await setUp(emu, [JOB], { partners: PARTNERS });
    const summary = await setup.run('so');
    expect(summary).toMatchObject({ exported: pending.length, acknowledgements: { acknowledged: pending.length, errors: 0 } });
    expect(setup.outboxFiles()).toEqual(['so_000001.x12']);
    const read = readInterchange(join(setup.outbox, 'so_000001.x12'));
    expect(read).toMatchObject({ isa13: '000000001', gs06: '1', gs01: 'OW', gs03: 'NWLAPP', st02: setNumbers(1, pending.length) });
    expect(sorted(read.ids)).toEqual(sorted(pending.map((r) => r.id)));
    const journal = await setup.journal();
    try {
      const [exported] = await journal.listExports({ workType: 'customerShipments', limit: 5 });
      expect(await journal.exportControls(exported!.exportId)).toEqual({ partner: 'nwl', interchange: 1, group: 1, firstSet: 1, sets: pending.length });
      expect(await journal.nextControlNumber('nwl', 'set')).toBe(pending.length + 1);
    } finally {
      await journal.close();
    }
    expect(await pendingShipments()).toEqual([]);
  });

  it('killed between allocating the control numbers and writing: the rerun writes the list under new numbers and acknowledges each record once', async () => {
    const pending = await pendingShipments();
    setup = await setUp(emu, [JOB], { partners: PARTNERS });
    const crashed = await wisbridge(['export', 'customer-shipments', '--config', setup.configFile], { WISBRIDGE_FAILPOINTS: 'export.after-control-numbers=kill' });
    expect(crashed.signal).toBe('SIGKILL');
    expect(setup.outboxFiles()).toEqual([]);
    expect(await pendingShipments()).toHaveLength(pending.length); // nothing acknowledged
    let journal = await setup.journal();
    const [lost] = await journal.unwrittenExports('customerShipments');
    expect(await journal.exportControls(lost!.exportId)).toEqual({ partner: 'nwl', interchange: 1, group: 1, firstSet: 1, sets: pending.length });
    await journal.close();

    const again = await wisbridge(['export', 'customer-shipments', '--config', setup.configFile, '--json']);
    expect(again.code).toBe(0);
    const summary = JSON.parse(again.stdout.trim().split('\n').at(-1)!);
    expect(summary).toMatchObject({
      exported: pending.length, recovered: { markedWritten: 0, abandoned: pending.length },
      acknowledgements: { acknowledged: pending.length, alreadyAcknowledged: 0, errors: 0 },
    });
    expect(setup.outboxFiles()).toEqual(['so_000002.x12']);
    const read = readInterchange(join(setup.outbox, 'so_000002.x12'));
    // The numbers the killed run took stay its own: none of them is written again.
    expect(read).toMatchObject({ isa13: '000000002', gs06: '2', st02: setNumbers(pending.length + 1, pending.length) });
    expect(sorted(read.ids)).toEqual(sorted(pending.map((r) => r.id)));
    journal = await setup.journal();
    try {
      expect(await journal.getExport(lost!.exportId)).toMatchObject({ status: 'abandoned' });
      expect(await journal.exportControls(lost!.exportId)).toMatchObject({ interchange: 1 });
    } finally {
      await journal.close();
    }
    const after = await records(emu, 'customer_shipments', (r) => pending.some((p) => p.id === r.id));
    expect(after.every((r) => r.list_status === 'open' && r.acknowledged_at !== null)).toBe(true);
  });

  it('leaves out a record whose data holds a separator, reports it and leaves it pending; the others are written and acknowledged', async () => {
    const pending = await pendingShipments();
    // The seed starts some customer names with "=" (FORMULA_PREFIXES): with "=" as the component separator they cannot be written.
    const partners = { nwl: { ...PARTNERS.nwl, separators: { element: '*', component: '=', segment: '~', repetition: '^', line_break: true } } };
    setup = await setUp(emu, [JOB], { partners });
    const summary = await setup.run('so');
    expect(summary.unwritable.length).toBeGreaterThan(0);
    for (const r of summary.unwritable) expect(r.reason).toMatch(/^N102: "=.*" holds the separator "="$/);
    const left = summary.unwritable.map((r) => r.id);
    const written = pending.filter((p) => !left.includes(p.id));
    expect(written.length).toBeGreaterThan(0);
    expect(summary).toMatchObject({ exported: written.length, exitCode: 1, acknowledgements: { acknowledged: written.length, errors: 0 } });
    const read = readInterchange(join(setup.outbox, 'so_000001.x12'));
    expect(sorted(read.ids)).toEqual(sorted(written.map((r) => r.id)));
    expect(read.st02).toEqual(setNumbers(1, written.length));
    // Never acknowledged: still pending at the service, and listed (and left out) again by the next run, which writes nothing.
    expect(sorted((await pendingShipments()).map((r) => r.id))).toEqual(sorted(left));
    const again = await setup.run('so');
    expect(again).toMatchObject({ exported: 0, files: [], exitCode: 1 });
    expect(again.unwritable.map((r) => r.id)).toEqual(summary.unwritable.map((r) => r.id));
    expect(setup.outboxFiles()).toEqual(['so_000001.x12']);
  });
});
