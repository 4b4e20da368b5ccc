import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { segmentsOf } from '../../src/x12/index.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { cli, finished, runInboundOnce, SAMPLES, workspace, type Workspace } from './helpers.js';
import { PARTNERS, ROUTED } from './x12-partners.js';

const emu = useEmulator({ resetEachTest: true });

type Rec = { number: string; list_status: string; state: string; carrier_code: string | null; service_code: string | null; tracking_numbers: string[]; writes: { endpoint: string; item: Record<string, unknown> }[] };
type Pkg = { sscc: string; sscc_overridden: boolean; tracking_number: string | null; reference?: string; medium?: string; items?: unknown[] };
const find = (list: Rec[], number: string) => list.find((r) => r.number === number)!;
const statuses = (ws: Workspace, name: string) => ws.result(name).map((r) => `${r.line}:${r.document}:${r.status}`);
const sample = (name: string) => readFileSync(join(SAMPLES, name), 'utf8');
const texts = (ack: string) => segmentsOf(ack).map((s) => s.fields.join('*'));

describe('inbound pipeline: the shipped X12 mappings for packages and transfers', () => {
  it('ships a 945 with cartons from MAN loops: SSCC-18 overrides, tracking numbers, lots and serials reach the service', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('HLX_945_20261120.edi');
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.mapping, f.outcome])).toEqual([['HLX_945_20261120.edi', 'x12-945-customer-shipment-ship-packages', 'failed']]);
    // Segments 3–19 are the set of SO-1120, 20–30 SO-1123, 31–39 SO-1122 (its SSCC has 16 digits).
    const range = (from: number, to: number, rest: string) => Array.from({ length: to - from + 1 }, (_, i) => `${i + from}:${rest}`);
    expect(statuses(ws, 'HLX_945_20261120.result.csv')).toEqual([...range(3, 19, 'SO-1120:ok'), ...range(20, 30, 'SO-1123:ok'), ...range(31, 39, 'SO-1122:error')]);
    const rows = ws.result('HLX_945_20261120.result.csv');
    expect(rows.find((r) => r.status === 'error')?.message).toBe('HLX_945_20261120.edi, interchange 000005120, set 0003, segment 5 (MAN), element 02: "0040123450000000" does not match /^(?:00)?(\\d{18})$/');

    const state = await adminState(emu);
    const shipments = state.customer_shipments as (Rec & { packages: Pkg[] })[];
    const so1120 = find(shipments, 'SO-1120') as Rec & { packages: Pkg[] };
    expect(so1120.list_status).toBe('done');
    expect(so1120.carrier_code).toBe('UPS');
    expect(so1120.packages.map((p) => [p.sscc, p.sscc_overridden, p.tracking_number, p.reference, p.medium])).toEqual([
      ['004012345000000012', true, '1Z4X72E86800011201', 'CARTON-1', 'carton'],
      ['004012345000000029', true, '1Z4X72E86800011212', 'CARTON-2', 'carton'],
    ]);
    const sent = so1120.writes.find((w) => w.endpoint === 'customerShipments.ship')!.item as { packages: { items: unknown[] }[] };
    expect(sent.packages[0].items).toEqual([{ product_code: 'SKU-00081', quantity: 2 }, { product_code: 'SKU-00096', quantity: 1, serial_numbers: ['SN-96-0001'] }]);
    const so1123 = find(shipments, 'SO-1123') as Rec & { packages: Pkg[] };
    expect(so1123.list_status).toBe('done');
    expect(so1123.packages.map((p) => [p.sscc, p.tracking_number])).toEqual([['004012345000000036', '00340434161094042557']]);
    expect((so1123.writes[0].item as { packages: { items: unknown[] }[] }).packages[0].items).toEqual([{ product_code: 'SKU-00193', quantity: 5, lot: { number: 'LOT-SKU-00193-A' } }]);
    expect(find(shipments, 'SO-1122').writes).toEqual([]);
  });

  it('ships outbound transfers from a 945 and receives inbound transfers from a 944 (| and ^, no line breaks)', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('RTL_945_20261120.edi');
    ws.drop('RTL_944_20261120.edi');
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.mapping]).sort()).toEqual([
      ['RTL_944_20261120.edi', 'x12-944-inbound-transfer-receive'], ['RTL_945_20261120.edi', 'x12-945-outbound-transfer-ship'],
    ]);
    const state = await adminState(emu);

    const outbound = state.outbound_transfers as Rec[];
    const shipped = (n: string) => { const t = find(outbound, n); return [n, t.state, t.carrier_code, t.service_code, t.tracking_numbers]; };
    expect(['OT-1152', 'OT-1153'].map(shipped)).toEqual([
      ['OT-1152', 'shipped', 'DB_SCHENKER', 'ROAD_STANDARD', ['PRO-4471120']],
      ['OT-1153', 'shipped', 'DHL', 'ROAD_EXPRESS', ['JJD000390007712345']],
    ]);
    expect(find(outbound, 'OT-1154')).toMatchObject({ state: 'assigned', tracking_numbers: [], writes: [] });
    const shipRows = ws.result('RTL_945_20261120.result.csv');
    expect([...new Set(shipRows.map((r) => `${r.document}:${r.status}`))]).toEqual(['OT-1152:ok', 'OT-1153:ok', 'OT-1154:error']);
    expect(shipRows.find((r) => r.status === 'error')?.message).toBe('RTL_945_20261120.edi, interchange 000000880, set 0003, segment 4 (W27), element 03: "XPD" is not in the value map (known: STD, EXP, FTL)');

    const inbound = state.inbound_transfers as Rec[];
    const it1164 = find(inbound, 'IT-1164');
    expect(it1164.writes.map((w) => w.item)).toEqual([{
      id: 1164, tpl_reference: 'RTL-WR-9001', lines: [
        { sku: 'SKU-00043', received_quantity: 4, lot_number: 'LOT-SKU-00043-A', effective_date: '2026-11-20' },
        { sku: 'SKU-00146', received_quantity: 4, damaged_quantity: 1, effective_date: '2026-11-20' },
      ],
    }]);
    expect(find(inbound, 'IT-1165').writes.map((w) => w.item)).toEqual([{ id: 1165, tpl_reference: 'RTL-WR-9002', lines: [{ sku: 'SKU-00160', received_quantity: 5, effective_date: '2026-11-21' }] }]);
    expect(find(inbound, 'IT-1166').writes).toEqual([]);
    const receiveRows = ws.result('RTL_944_20261120.result.csv');
    expect([...new Set(receiveRows.map((r) => `${r.document}:${r.status}`))]).toEqual(['1164:ok', '1165:ok', '1166:error']);
    expect(receiveRows.find((r) => r.status === 'error')?.message).toBe('RTL_944_20261120.edi, interchange 000000881, set 0003, segment 6 (G62), element 02: "20261131" is not a date (yyyyMMdd)');
  });

  it('routes the 945s of two partners to two mappings by their profiles, whatever the files are called', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, inboundJobs: ROUTED, extraYaml: PARTNERS });
    ws.drop('HLX_945_20261120.edi', undefined, 'inbound-a.edi');
    ws.drop('RTL_945_20261120.edi', undefined, 'inbound-b.edi');
    ws.drop('RTL_944_20261120.edi', undefined, 'inbound-c');
    const report = await runInboundOnce(ws);
    expect(report.files.map((f) => [f.file, f.mapping, f.ackFile]).sort()).toEqual([
      ['inbound-a.edi', 'x12-945-customer-shipment-ship-packages', 'inbound-a.ack.edi'],
      ['inbound-b.edi', 'x12-945-outbound-transfer-ship', 'inbound-b.ack.edi'],
      ['inbound-c', 'x12-944-inbound-transfer-receive', 'inbound-c.ack.edi'],
    ]);
    const state = await adminState(emu);
    expect(find(state.customer_shipments, 'SO-1120').list_status).toBe('done');
    expect(find(state.outbound_transfers, 'OT-1152').state).toBe('shipped');
    expect(find(state.inbound_transfers, 'IT-1164').writes).toHaveLength(1);
    // Each partner is answered with its own separators: RTL's profile asks for | and ^.
    const rtl = ws.read('outbox', 'inbound-b.ack.edi');
    expect(rtl.startsWith('ISA|')).toBe(true);
    // Between the ST and the SE (RTL's control numbers run across its two files, in whichever order they were read).
    expect(texts(rtl).slice(3, -3)).toEqual(['AK1*SW*1', 'AK2*945*0001', 'AK5*A', 'AK2*945*0002', 'AK5*A', 'AK2*945*0003', 'AK3*W27*4**8', 'AK4*3**6*XPD', 'AK5*R*5', 'AK9*P*3*3*2']);
  });

  it('reads a mailbox of both partners\' 945s and a 944: each set by the mapping routed for its ST01 and sender, one pass each; every line reported once, each partner answered', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, inboundJobs: ROUTED, extraYaml: PARTNERS });
    // HLX's 945s (customer orders in cartons), RTL's 945s (transfers out) and RTL's 944s (transfers in), interleaved:
    // the HLX interchange between RTL's two.
    ws.drop('mailbox.edi', sample('RTL_945_20261120.edi') + sample('HLX_945_20261120.edi') + sample('RTL_944_20261120.edi'));
    const report = await runInboundOnce(ws);
    // The file's mapping in the journal is the one of its first set.
    expect(report.files.map((f) => [f.file, f.mapping, f.outcome])).toEqual([['mailbox.edi', 'x12-945-outbound-transfer-ship', 'failed']]);
    const state = await adminState(emu);
    expect(find(state.customer_shipments, 'SO-1120').list_status).toBe('done');
    expect(find(state.outbound_transfers, 'OT-1152')).toMatchObject({ state: 'shipped', tracking_numbers: ['PRO-4471120'] });
    expect(find(state.inbound_transfers, 'IT-1164').writes).toHaveLength(1);
    // Each line once, in line order, its set's document and verdict: as for the three files read one by one.
    const rows = ws.result('mailbox.result.csv');
    const lines = rows.map((r) => Number(r.line));
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    expect(new Set(lines).size).toBe(lines.length);
    expect([...new Set(rows.map((r) => `${r.document}:${r.status}`))]).toEqual([
      'OT-1152:ok', 'OT-1153:ok', 'OT-1154:error', 'SO-1120:ok', 'SO-1123:ok', 'SO-1122:error', '1164:ok', '1165:ok', '1166:error',
    ]);
    expect(rows.some((r) => r.message.includes('send it in a file of its own'))).toBe(false);
    // Three replies, one per interchange: every set accepted but the three with a data error.
    const replies = ws.read('outbox', 'mailbox.ack.edi').split(/(?=ISA)/).map(texts);
    expect(replies.map((r) => r.find((t) => t.startsWith('AK9')))).toEqual(['AK9*P*3*3*2', 'AK9*P*3*3*2', 'AK9*P*3*3*2']);
    expect(replies.flat().filter((t) => t === 'AK5*R*1')).toEqual([]);
  });

  it('finishes such a mailbox after a kill -9 in its first pass: every pass resumed, nothing applied twice, the result file as unbroken', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, inboundJobs: ROUTED, extraYaml: PARTNERS });
    ws.drop('mailbox.edi', sample('RTL_945_20261120.edi') + sample('HLX_945_20261120.edi') + sample('RTL_944_20261120.edi'));
    // Killed once the service answered the first request (the first pass's), before the journal stored the answer.
    const killed = await finished(cli(['batch', '--config', ws.configFile], { WISBRIDGE_FAILPOINTS: 'send.after-answer=kill' }));
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(ws.files('inbox')).toEqual(['mailbox.edi']);
    const rerun = await finished(cli(['batch', '--config', ws.configFile]));
    expect(rerun.code, rerun.stderr).toBe(1);
    expect(ws.files('archive')).toEqual(['mailbox.edi']);
    const state = await adminState(emu);
    for (const [list, number] of [['outbound_transfers', 'OT-1152'], ['customer_shipments', 'SO-1120'], ['inbound_transfers', 'IT-1164']] as const) {
      expect([number, (state[list] as Rec[]).find((r) => r.number === number)!.writes.length]).toEqual([number, 1]);
    }
    const rows = ws.result('mailbox.result.csv');
    expect(new Set(rows.map((r) => r.line)).size).toBe(rows.length);
    expect([...new Set(rows.map((r) => `${r.document}:${r.status}`))]).toEqual([
      'OT-1152:ok', 'OT-1153:ok', 'OT-1154:error', 'SO-1120:ok', 'SO-1123:ok', 'SO-1122:error', '1164:ok', '1165:ok', '1166:error',
    ]);
  });
});
