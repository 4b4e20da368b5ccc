import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { segmentsOf, writeInterchange, type SegmentData } from '../../src/x12/index.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { cli, finished, runInboundOnce, workspace, type Workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

const SAMPLES = join(import.meta.dirname, '../../samples');
const JOB = `  - name: edi
    drop: wms
    service: wis
    x12:
      - { transaction_set: "945", mapping: x12-945-customer-shipment-ship }
      - { transaction_set: "947", mapping: x12-947-inventory-adjustments }`;
const PARTNERS = `partners:
  ACME:
    them: { qualifier: ZZ, id: ACMEWMS }
    us: { qualifier: ZZ, id: WISBRIDGE }
    separators: { element: "|", component: ":", segment: "~", line_break: false }`;

function ediWorkspace(): Workspace {
  return workspace({ url: emu.url, token: emu.token, inboundJobs: JOB, extraYaml: PARTNERS });
}

const AT = new Date('2026-11-20T23:05:00Z');
const SHIP_1127: SegmentData[] = [
  ['W06', 'F', 'SO-1127', '20261120', 'SHP-88002'], ['N9', '2I', 'JD014600006281234567'], ['W27', 'M', 'DHLC', 'DHL EXPRESS'],
  ['LX', '1'], ['W12', 'CC', '3', '3', '', 'EA', '', 'VN', 'SKU-00217'], ['LX', '2'], ['W12', 'CC', '2', '2', '', 'EA', '', 'VN', 'SKU-00108'],
];

/** An interchange from ACMEWMS with `|` and `~`: a 945 group and an 856 group (a set no route takes). */
function acmeInterchange(version: '00401' | '00501' = '00401'): string {
  const gsVersion = version === '00501' ? '005010' : '004010';
  return writeInterchange({ element: '|', component: ':', segment: '~', repetition: '^', lineBreak: '\n' },
    { senderQualifier: 'ZZ', sender: 'ACMEWMS', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', at: AT, control: 812, version },
    [
      { header: { functionalId: 'SW', sender: 'ACMEWMS', receiver: 'WISBRIDGE', at: AT, control: 1, version: gsVersion }, sets: [{ id: '945', control: 1, segments: SHIP_1127 }] },
      ...(version === '00401' ? [{ header: { functionalId: 'SH', sender: 'ACMEWMS', receiver: 'WISBRIDGE', at: AT, control: 2, version: gsVersion }, sets: [{ id: '856', control: 1, segments: [['BSN', '00', 'ASN-1', '20261120', '2305'] as SegmentData] }] }] : []),
    ]);
}

/** The first set (SO-1128) of the shipped 945 sample, as its own interchange from NWLWMS with `*` and `~`. */
function nwlInterchange(): string {
  const sample = readFileSync(join(SAMPLES, 'NWL_945_20261120.edi'), 'utf8').split('\n');
  const set = sample.slice(2, 17);
  return [...sample.slice(0, 2), ...set, 'GE*1*1~', 'IEA*1*000004711~', ''].join('\n');
}

const texts = (ack: string) => segmentsOf(ack).map((s) => s.fields.join('*'));

describe('inbound pipeline: X12 routed by content and acknowledged', () => {
  it('routes a mailbox of two partners with their own separators by ST01, whatever its name, and answers each sender', async () => {
    const ws = ediWorkspace();
    ws.drop('mailbox.txt', nwlInterchange() + acmeInterchange());
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.mapping, f.outcome, f.ackFile])).toEqual([['mailbox.txt', 'x12-945-customer-shipment-ship', 'failed', 'mailbox.ack.edi']]);
    expect(ws.files('archive')).toEqual(['mailbox.txt']);
    expect(ws.files('outbox')).toEqual(['mailbox.ack.edi', 'mailbox.result.csv']);
    const state = await adminState(emu);
    expect(state.customer_shipments.find((s: { number: string }) => s.number === 'SO-1128').list_status).toBe('done');

    // One result file lists every set: the two 945s applied, the 856 no route takes reported with why.
    const rows = ws.result('mailbox.result.csv');
    expect([...new Set(rows.filter((r) => r.status === 'ok').map((r) => r.document))]).toEqual(['SO-1128', 'SO-1127']);
    const refused = rows.filter((r) => r.status === 'error');
    expect(refused.length).toBeGreaterThan(0);
    for (const row of refused) expect(row.message).toBe('mailbox.txt, interchange 000000812, set 0001: no mapping of job edi reads a 856 set from ACME; refused (set-unsupported, code 1)');

    const ack = ws.read('outbox', 'mailbox.ack.edi');
    const [nwl, acme] = ack.split(/(?=ISA)/);
    // To NWLWMS with the separators it sent (no profile), to ACMEWMS with its profile's; control numbers per partner from the journal.
    expect(texts(nwl)).toEqual([
      expect.stringMatching(/^ISA\*00\* {10}\*00\* {10}\*ZZ\*WISBRIDGE {6}\*ZZ\*NWLWMS {9}\*\d{6}\*\d{4}\*U\*00401\*000000001\*0\*P\*>$/),
      expect.stringMatching(/^GS\*FA\*WISBRIDGE\*NWLWMS\*\d{8}\*\d{4}\*1\*X\*004010$/),
      'ST*997*0001', 'AK1*SW*1', 'AK2*945*0001', 'AK5*A', 'AK9*A*1*1*1', 'SE*6*0001', 'GE*1*1', 'IEA*1*000000001',
    ]);
    expect(acme).toContain('|');
    expect(texts(acme).slice(2, -2)).toEqual([
      'ST*997*0001', 'AK1*SW*1', 'AK2*945*0001', 'AK5*A', 'AK9*A*1*1*1', 'SE*6*0001',
      'ST*997*0002', 'AK1*SH*2', 'AK2*856*0001', 'AK5*R*1', 'AK9*R*1*1*0', 'SE*6*0002',
    ]);
    expect(texts(acme)[0]).toContain('*ZZ*ACMEWMS        *');
  });

  it('names the segment and element of a data error (AK3/AK4), a count error (AK5 R 4), for a file with a byte order mark and no extension', async () => {
    const ws = ediWorkspace();
    ws.drop('NWL945', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(join(SAMPLES, 'NWL_945_20261120.edi'))]));
    const report = await runInboundOnce(ws);
    expect(report.files[0]).toMatchObject({ mapping: 'x12-945-customer-shipment-ship', ackFile: 'NWL945.ack.edi' });
    const ack = texts(ws.read('outbox', 'NWL945.ack.edi'));
    expect(ack.slice(3, -3)).toEqual([
      'AK1*SW*1',
      'AK2*945*0001', 'AK5*A',
      'AK2*945*0002', 'AK5*A',
      'AK2*945*0003', 'AK3*W12*7**8', 'AK4*3**6*3,250', 'AK5*R*5',
      'AK2*945*0004', 'AK5*R*4',
      'AK9*P*4*4*2',
    ]);
  });

  it('refuses a broken interchange with a TA1 alone, and answers a 005010 group with a 999', async () => {
    const ws = ediWorkspace();
    ws.drop('refused.edi', readFileSync(join(SAMPLES, 'NWL_947_20261120.edi'), 'utf8').replace('IEA*1*000004712~', 'IEA*1*000004799~'));
    ws.drop('v5010.x12', acmeInterchange('00501'));
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => f.ackFile).sort()).toEqual(['refused.ack.edi', 'v5010.ack.edi']);
    const refused = texts(ws.read('outbox', 'refused.ack.edi'));
    expect(refused.map((s) => s.slice(0, 3))).toEqual(['ISA', 'TA1', 'IEA']);
    expect(refused[1]).toBe('TA1*000004712*261120*2305*R*001');
    expect(refused[2]).toMatch(/^IEA\*0\*/);
    const v5010 = texts(ws.read('outbox', 'v5010.ack.edi'));
    expect(v5010[0]).toContain('*00501*');
    expect(v5010[1]).toMatch(/^GS\*FA\*WISBRIDGE\*ACMEWMS\*\d{8}\*\d{4}\*\d+\*X\*005010X231A1$/);
    expect(v5010.slice(2, 7)).toEqual(['ST*999*0001*005010X231A1', 'AK1*SW*1*005010', 'AK2*945*0001', 'IK5*A', 'AK9*A*1*1*1']);
  });

  it('refuses an interchange a sender sent before in another file (TA1 R 025), whatever its bytes; one with a new ISA13 is read', async () => {
    const ws = ediWorkspace();
    const sample = readFileSync(join(SAMPLES, 'NWL_945_20261120.edi'), 'utf8');
    ws.drop('NWL_945_20261120.edi', sample);
    await runInboundOnce(ws);
    const writes = async () => ((await adminState(emu)).customer_shipments as Array<{ number: string; writes: unknown[] }>).find((s) => s.number === 'SO-1128')!.writes.length;
    expect(await writes()).toBe(1);
    // The partner resends it the next morning: a new date in its ISA and GS, the same ISA13.
    ws.drop('NWL_945_resent.edi', sample.replace('*261120*2305*', '*261121*0800*').replace('*20261120*2305*', '*20261121*0800*'));
    const [resent] = (await runInboundOnce(ws)).files;
    expect(resent.outcome).toBe('failed');
    const rows = ws.result('NWL_945_resent.result.csv');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect([row.status, row.message]).toEqual(['error', expect.stringContaining('interchange 000004711: ZZ/NWLWMS sent it before, in NWL_945_20261120.edi (file ')]);
    expect(rows[0].message).toContain('(interchange-duplicate, code 025)');
    expect(texts(ws.read('outbox', 'NWL_945_resent.ack.edi')).map((t) => t.slice(0, 3))).toEqual(['ISA', 'TA1', 'IEA']);
    expect(texts(ws.read('outbox', 'NWL_945_resent.ack.edi'))[1]).toMatch(/^TA1\*000004711\*\d{6}\*\d{4}\*R\*025$/);
    expect(await writes()).toBe(1);
    // With a new ISA13 (and IEA02) it is another interchange: read, its sets answered (the service refuses a second ship).
    ws.drop('NWL_945_new.edi', sample.replaceAll('000004711', '000004799'));
    await runInboundOnce(ws);
    expect(texts(ws.read('outbox', 'NWL_945_new.ack.edi')).map((t) => t.slice(0, 3))).toContain('AK9');
  });

  it('writes the same acknowledgement again, and no second one, when killed after writing it and before the file left the inbox', async () => {
    const ws = ediWorkspace();
    ws.drop('NWL_945_20261120.edi');
    const killed = await finished(cli(['batch', '--config', ws.configFile], { WISBRIDGE_FAILPOINTS: 'drop.before-move=kill' }));
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(ws.files('inbox')).toEqual(['NWL_945_20261120.edi']);
    expect(ws.files('outbox')).toEqual(['NWL_945_20261120.ack.edi', 'NWL_945_20261120.result.csv']);
    const first = ws.read('outbox', 'NWL_945_20261120.ack.edi');
    const rerun = await finished(cli(['batch', '--config', ws.configFile]));
    expect([0, 1], rerun.stderr).toContain(rerun.code);
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('archive')).toEqual(['NWL_945_20261120.edi']);
    expect(ws.files('outbox')).toEqual(['NWL_945_20261120.ack.edi', 'NWL_945_20261120.result.csv']);
    expect(ws.read('outbox', 'NWL_945_20261120.ack.edi')).toBe(first);
  });
});
