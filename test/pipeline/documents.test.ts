import { describe, expect, it } from 'vitest';
import { adminState, useEmulator } from '../support/emulator.js';
import { korr, runInboundOnce, type Workspace, workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

const statuses = (ws: Workspace, file: string) => ws.result(file).map((r) => `${r.line}:${r.status}`);
const byNumber = (list: any[], number: string) => list.find((r) => r.number === number);

describe('inbound pipeline: every document type of the samples, one batch pass', () => {
  it('applies what is valid, reports the rest row by row, archives every file', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const samples = ['ACK_ASN_20261120.csv', 'ACK_IT_20261120.csv', 'ACK_OT_20261120.csv', 'ACK_RMA_20261120.csv', 'ACK_SO_20261120.csv',
      'COUNT_20261120.csv', 'FAIL_ASN_20261120.csv', 'FAIL_SO_20261120.csv', 'GR_20261120.csv', 'KORR_20261120.csv', 'OTSHIP_20261120.txt',
      'PICK_20261120.csv', 'RET_20261120.csv', 'SHIP_20261120_flat.csv', 'WE_UML_20261120.csv'];
    for (const s of samples) ws.drop(s);
    const before = await adminState(emu);
    const report = await runInboundOnce(ws);
    expect(report.files).toHaveLength(samples.length);
    expect(ws.files('archive')).toEqual([...samples].sort());
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('error')).toEqual([]);
    const state = await adminState(emu);

    // acknowledgements (per-item and fail-fast families)
    expect(statuses(ws, 'ACK_SO_20261120.result.csv')).toEqual(['2:ok', '3:ok']);
    for (const n of ['SO-1001', 'SO-1002']) expect(byNumber(state.customer_shipments, n).acknowledged_at).not.toBeNull();
    for (const n of ['OT-1150', 'OT-1151']) expect(byNumber(state.outbound_transfers, n).acknowledged_at).not.toBeNull();
    expect(byNumber(state.inbound_transfers, 'IT-1162').acknowledged_at).not.toBeNull();
    for (const n of ['ASN-1174', 'ASN-1175']) expect(byNumber(state.supplier_shipments, n).acknowledged_at).not.toBeNull();
    expect(byNumber(state.customer_return_shipments, 'RMA-1186').acknowledged_at).not.toBeNull();
    const ackRma = ws.result('ACK_RMA_20261120.result.csv');
    expect(ackRma[1]).toMatchObject({ line: '3', status: 'error' });
    expect(ackRma[1].message).toContain('is not a known customer return');
    expect(ws.result('ACK_SO_20261120.result.csv')[0].acknowledged_at).toMatch(/^2026-/);

    // customer shipments: ship (strategies, serials), change-status, failed
    const ship = ws.result('SHIP_20261120_flat.result.csv');
    expect(ship.map((r) => `${r.line}:${r.document}:${r.status}`)).toEqual([
      '2:SO-1126:ok', '3:SO-1126:ok', '4:SO-1127:ok', '5:SO-1127:ok', '6:SO-1130:error', '7:SO-9999:error',
    ]);
    expect(ship[0].shipped_at).toMatch(/^2026-/);
    expect(ship[5].message).toBe('SHIP_20261120_flat.csv, line 7, column ORDER_NO: "SO-9999" is not a known customer shipment');
    expect(byNumber(state.customer_shipments, 'SO-1126').list_status).toBe('done');
    expect(byNumber(state.customer_shipments, 'SO-1127').shipped_at).toBeNull(); // ship_all_together: held
    expect(statuses(ws, 'PICK_20261120.result.csv')).toEqual(['2:ok', '3:ok', '4:ok', '5:error']);
    expect(byNumber(state.customer_shipments, 'SO-1128').picking_status).toBe('exception');
    expect(statuses(ws, 'FAIL_SO_20261120.result.csv')).toEqual(['2:ok', '3:ok', '4:skipped']); // line 3 continues the quoted message of line 2: it carries its outcome too
    expect(byNumber(state.customer_shipments, 'SO-1130').tpl_status).toBe('sending_error');
    expect(byNumber(state.supplier_shipments, 'ASN-1175').tpl_status).toBe('sending_error');

    // transfers
    expect(statuses(ws, 'OTSHIP_20261120.result.csv')).toEqual(['1:ok', '2:ok']);
    expect(byNumber(state.outbound_transfers, 'OT-1156').list_status).toBe('done');
    expect(statuses(ws, 'WE_UML_20261120.result.csv')).toEqual(['2:ok', '3:ok', '4:error']);
    expect(ws.result('WE_UML_20261120.result.csv')[0].returned).toBe('state=done');
    expect(byNumber(state.inbound_transfers, 'IT-1168').state).toBe('done');

    // receipts: supplier shipment (lots, expiry, EPC), customer return (reasons)
    expect(statuses(ws, 'GR_20261120.result.csv')).toEqual(['3:ok', '5:ok', '6:error', '7:error']);
    const asn = byNumber(state.supplier_shipments, 'ASN-1180');
    expect(asn.lines.reduce((n: number, l: any) => n + l.done_quantity, 0)).toBeGreaterThan(0);
    expect(statuses(ws, 'RET_20261120.result.csv')).toEqual(['2:ok', '3:ok', '4:error']);
    expect(byNumber(state.customer_return_shipments, 'RMA-1192').lines.some((l: any) => l.done_quantity > 0)).toBe(true);

    // inventory: adjustments (company codes) and one all-or-nothing cycle count
    expect(state.adjustments.length - before.adjustments.length).toBe(3);
    expect(state.adjustments.map((a: any) => a.company_code)).toEqual(['ACME', 'GLOBEX', 'ACME']);
    // an adjustment has no grouping key: its result row names the SKU
    expect(ws.result('KORR_20261120.result.csv').filter((r) => r.status === 'ok').map((r) => r.document)).toEqual(['SKU-00001', 'SKU-00002', 'SKU-00003']);
    const count = ws.result('COUNT_20261120.result.csv');
    expect(count.map((r) => `${r.line}:${r.status}:${r.count_number}`)).toEqual(['2:ok:CC-000001', '3:ok:CC-000001', '5:ok:CC-000001']);
    expect(state.counts).toHaveLength(1);
  });

  it('a cycle count the service refuses fails as one document: every line reported, nothing recorded', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('COUNT_20261121.csv', '20261115,CC-B,SKU-00001,10,\n20261115,CC-B,SKU-99999,7,\n');
    const report = await runInboundOnce(ws);
    expect(report.files[0].outcome).toBe('failed');
    const rows = ws.result('COUNT_20261121.result.csv');
    expect(rows.map((r) => `${r.line}:${r.status}`)).toEqual(['1:error', '2:error']);
    expect(rows[0].message).toMatch(/SKU-99999/);
    expect((await adminState(emu, ['counts'])).counts).toHaveLength(0);
  });
});

describe('customer-shipment ship with pallets, children, consumables, lots, SSCC override and sale_line_id', () => {
  it('ships a pallet of packages with a lot-tracked item and a consumable; the SSCC override is kept', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('SHIPPKG_20261121.csv', [
      'H;SO-1128;UPS;UPS_GROUND;1Z100;12,50;eur',
      'L;PAL-1;003401234500000017',
      'P;PKG-1;1Z101;box;carton',
      'D;SKU-00103;5;LOT-SKU-00103-A',
      'C;DUNNAGE-AIR;2',
      'P;PKG-2;1Z102;box;carton',
      'D;SKU-00237;3;',
      '',
    ].join('\n'));
    const report = await runInboundOnce(ws);
    expect(report.files[0].rows).toEqual({ ok: 7, error: 0, skipped: 0, uncertain: 0 });
    const state = await adminState(emu, ['customer_shipments']);
    const so = byNumber(state.customer_shipments, 'SO-1128');
    expect(so.list_status).toBe('done');
    expect(so.lines.map((l: any) => l.done_quantity)).toEqual([5, 3]);
    const sscc = await emu.get('/v1/customer-shipments/1128/sscc.json');
    expect(JSON.stringify(sscc.body)).toContain('003401234500000017');
  });

  it('ships by sale_line_id with a custom mapping', async () => {
    const ws = workspace({
      url: emu.url, token: emu.token,
      extraMappings: {
        'ship-by-sale-line': [
          'document: customerShipments.ship', 'files: "SALELINE_*.csv"', 'grouping: { sorted: true }',
          'request:', '  key: ORDER', '  fields:', '    id: { column: ORDER, id_of: customerShipment }', '    ship_strategy: { value: defer_unshipped }',
          '  lists:', '    lines:', '      fields:', '        sale_line_id: { column: LINE, type: integer }', '        quantity: { column: QTY, type: number }', '',
        ].join('\n'),
      },
    });
    const before = await adminState(emu, ['customer_shipments']);
    const so = before.customer_shipments.find((s: any) => s.list_status === 'open' && s.lines.length >= 2 && s.lines.every((l: any) => !l.lot_number));
    ws.drop('SALELINE_1.csv', `ORDER,LINE,QTY\n${so.number},${so.lines[0].id},${so.lines[0].quantity}\n`);
    const report = await runInboundOnce(ws);
    expect(report.files[0].rows.ok).toBe(1);
    const after = byNumber((await adminState(emu, ['customer_shipments'])).customer_shipments, so.number);
    expect(after.lines[0].done_quantity).toBe(so.lines[0].quantity);
  });
});

describe('inventory with a token scoped to several warehouses', () => {
  it('adds the configured warehouse to every adjustment', async () => {
    const ws = workspace({ url: emu.url, token: emu.mintToken([1, 2]), warehouse: 2 });
    ws.drop('KORR_20261122.csv', korr(['SKU-00001;3;Fund;W2-1;19.11.2026;;ACME']));
    const report = await runInboundOnce(ws);
    expect(report.files[0].rows.ok).toBe(1);
    const adjustments = (await adminState(emu, ['adjustments'])).adjustments;
    expect(adjustments.map((a: any) => a.warehouse_id)).toEqual([2]);
  });
});
