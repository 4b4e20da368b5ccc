import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/index.js';
import { segmentsOf, writeInterchange, type SegmentData } from '../../src/x12/index.js';
import { useEmulator } from '../support/emulator.js';
import { cli, finished, runInboundOnce, workspace, type Workspace } from './helpers.js';

// A partner's 997/999 for the X12 work lists the bridge wrote (docs/x12.md, "Acknowledgements received"): a 940
// exported through the CLI against the emulator, then the partner's acknowledgement dropped into the inbox.
const emu = useEmulator({ resetEachTest: true });

const YAML = `partners:
  NWL:
    them: { qualifier: ZZ, id: NWLWMS }
    us: { qualifier: ZZ, id: WISBRIDGE }
    ack_expected_within: 4h
exports:
  - { name: so, drop: wms, service: wis, work_type: customerShipments, mapping: customer-shipments-export, format: x12, partner: NWL, file_name: "{job}_{seq}.x12", cancellations: false }`;
const JOB = `  - name: edi
    drop: wms
    service: wis
    x12:
      - { transaction_set: "945", mapping: x12-945-customer-shipment-ship, partner: NWL }`;

const AT = new Date('2026-11-21T08:00:00Z');
const SEPARATORS = { element: '*', component: '>', segment: '~', repetition: '^', lineBreak: '\n' };

/** An interchange from NWLWMS holding one FA group with the given 997/999 body. */
function fromNwl(control: number, kind: '997' | '999', body: SegmentData[]): string {
  const version = kind === '999' ? '005010X231A1' : '004010';
  return writeInterchange(SEPARATORS, { senderQualifier: 'ZZ', sender: 'NWLWMS', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', at: AT, control, version: kind === '999' ? '00501' : '00401' },
    [{ header: { functionalId: 'FA', sender: 'NWLWMS', receiver: 'WISBRIDGE', at: AT, control, version }, sets: [{ id: kind, control: 1, convention: kind === '999' ? version : undefined, segments: body }] }]);
}

async function exported(ws: Workspace): Promise<{ gs06: string; st02: string[] }> {
  const run = await finished(cli(['export', '--job', 'so', '--config', ws.configFile]));
  expect(run.code, run.stderr).toBe(0);
  expect(ws.files('outbox')).toContain('so_000001.x12');
  const segments = segmentsOf(ws.read('outbox', 'so_000001.x12'));
  return { gs06: segments.find((s) => s.id === 'GS')!.element(6), st02: segments.filter((s) => s.id === 'ST').map((s) => s.element(2)) };
}

async function statusJson(ws: Workspace) {
  const status = await finished(cli(['status', '--config', ws.configFile, '--json']));
  expect(status.code, status.stderr).toBe(0);
  return JSON.parse(status.stdout);
}

async function withJournal<T>(ws: Workspace, fn: (journal: Journal) => Promise<T>): Promise<T> {
  const runtime = await ws.runtime();
  try {
    return await fn(await runtime.journal());
  } finally {
    await runtime.close();
  }
}

describe('acknowledgements received for the X12 work lists written', { timeout: 180_000 }, () => {
  it('a 997 rejecting one set of a 940: matched by partner, group and set, recorded, reported in the result file, status and an alert; not acknowledged itself', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, inboundJobs: JOB, extraYaml: YAML });
    const { gs06, st02 } = await exported(ws);
    expect(st02.length).toBeGreaterThan(2);
    const body: SegmentData[] = [['AK1', 'OW', gs06]];
    for (const st of st02) body.push(['AK2', '940', st], ...(st === st02[1] ? [['AK3', 'W01', '12', '', '8'], ['AK4', '5', '234', '7', 'SKU-X'], ['AK5', 'R', '5']] as SegmentData[] : [['AK5', 'A'] as SegmentData]));
    body.push(['AK9', 'P', String(st02.length), String(st02.length), String(st02.length - 1)]);
    ws.drop('NWL_997_1.edi', fromNwl(501, '997', body));

    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.mapping, f.outcome, f.ackFile])).toEqual([['NWL_997_1.edi', 'x12-acknowledgements', 'done', undefined]]);
    // Never acknowledge an acknowledgement: a result file, no NWL_997_1.ack.edi.
    expect(ws.files('outbox').filter((f) => f.startsWith('NWL'))).toEqual(['NWL_997_1.result.csv']);
    expect(ws.files('archive')).toEqual(['NWL_997_1.edi']);
    const rows = ws.result('NWL_997_1.result.csv');
    expect(rows.map((r) => r.document)).toEqual(st02.map((st) => `so_000001.x12 set ${st}`));
    expect(rows.every((r) => r.status === 'ok')).toBe(true);
    expect(rows[0].message).toBe(`export 1 (so_000001.x12) to NWL, group ${gs06}, set ${st02[0]}: accepted by the partner`);
    expect(rows[1].message).toBe(`export 1 (so_000001.x12) to NWL, group ${gs06}, set ${st02[1]}: rejected by the partner: AK5 R: rejected, one or more segments in error (5); `
      + 'segment 12 (W01), element 05: invalid code value (7) "SKU-X"');

    await withJournal(ws, async (journal) => {
      const ack = await journal.exportAck(1);
      expect(ack).toMatchObject({ kind: '997', state: 'accepted-with-errors', code: 'P', fileId: report.files[0].fileId });
      expect(ack!.sets.find((s) => s.control === st02[1])).toMatchObject({
        state: 'rejected', code: 'R', reasons: ['5'], errors: [{ segmentId: 'W01', position: 12, code: '8', elements: [{ element: 5, reference: '234', code: '7', copy: 'SKU-X' }] }],
      });
      const alerts = (await journal.console.listAlerts({ limit: 10 })).open;
      expect(alerts.map((a) => [a.kind, a.subject, a.severity])).toEqual([['x12-set-rejected', `export:1:set:${st02[1]}`, 'critical']]);
      expect(alerts[0].message).toMatch(new RegExp(`^NWL rejected export 1 \\(so_000001\\.x12\\) to NWL, group ${gs06}, set ${st02[1]}: AK5 R: .*"SKU-X"$`));
    });

    const status = await statusJson(ws);
    expect(status.x12).toEqual([expect.objectContaining({
      exportId: 1, file: 'so_000001.x12', partner: 'NWL', interchange: '000000001', state: 'accepted-with-errors',
      rejected: [{ set: st02[1], why: expect.stringContaining('"SKU-X"') }], withErrors: [],
    })]);
    const text = await finished(cli(['status', '--config', ws.configFile]));
    expect(text.stdout).toMatch(new RegExp(`so_000001\\.x12\\s+NWL\\s+000000001\\s+${gs06}\\s+${st02.length}\\s+\\S+\\s+accepted with errors: AK9 P: partially accepted, ${st02.length - 1} of ${st02.length} sets accepted; set ${st02[1]} rejected`));
  });

  it('a 997 accepting with errors, one for a group never written (reported, not dropped), and a 999 rejecting the group', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, inboundJobs: JOB, extraYaml: YAML });
    const { gs06, st02 } = await exported(ws);
    ws.drop('a_with_errors.edi', fromNwl(601, '997', [['AK1', 'OW', gs06], ['AK2', '940', st02[0]], ['AK3', 'N4', '8', '', '8'], ['AK4', '2', '', '6'], ['AK5', 'E'], ['AK9', 'E', '1', '1', '1']]));
    ws.drop('b_unknown.edi', fromNwl(602, '997', [['AK1', 'OW', '77'], ['AK2', '940', '0001'], ['AK5', 'A'], ['AK2', '940', '0002'], ['AK5', 'A'], ['AK9', 'A', '2', '2', '2']]));
    let report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.outcome])).toEqual([['a_with_errors.edi', 'done'], ['b_unknown.edi', 'failed']]);
    expect(ws.result('a_with_errors.result.csv')[0].message).toMatch(/accepted-with-errors by the partner: AK5 E: accepted with errors; segment 8 \(N4\), element 02: invalid character in data element \(6\)$/);
    const unknown = ws.result('b_unknown.result.csv');
    expect(unknown.map((r) => [r.document, r.status, r.message])).toEqual(['0001', '0002'].map((set) => [
      `group 77 set ${set}`, 'error', `997 from NWL for group 77, set ${set}: no interchange written to NWL has group 77; not applied`,
    ]));
    expect((await statusJson(ws)).x12[0]).toMatchObject({ state: 'accepted-with-errors', rejected: [], withErrors: [{ set: st02[0], why: expect.stringContaining('N4') }] });

    // A later 999 rejecting the whole group replaces the 997's verdict.
    ws.drop('c_999.edi', fromNwl(603, '999', [['AK1', 'OW', gs06, '004010'], ['AK9', 'R', String(st02.length), String(st02.length), '0', '5']]));
    report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.outcome, f.ackFile])).toEqual([['c_999.edi', 'done', undefined]]);
    expect(ws.result('c_999.result.csv').map((r) => [r.document, r.status, r.message])).toEqual([
      [`so_000001.x12 group ${gs06}`, 'ok', `export 1 (so_000001.x12) to NWL, group ${gs06}: AK9 R: rejected, 0 of ${st02.length} sets accepted; number of included transaction sets does not match actual count (5)`],
    ]);
    expect((await statusJson(ws)).x12[0]).toMatchObject({ state: 'rejected', ack: { kind: '999', code: 'R' } });
    await withJournal(ws, async (journal) => {
      const alerts = (await journal.console.listAlerts({ limit: 10 })).open;
      expect(alerts.map((a) => [a.kind, a.subject])).toEqual([['x12-set-rejected', 'export:1']]);
    });
  });
});
