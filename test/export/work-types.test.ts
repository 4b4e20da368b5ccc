import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkType } from '../../src/config/schema.js';
import { records, useEmulator } from '../support/emulator.js';
import { MAPPING_OF, listOutbox, readCsv, readRows, setUp, type Setup } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

export const FAMILY: Record<Exclude<WorkType, 'products'>, string> = {
  customerShipments: 'customer_shipments',
  outboundTransfers: 'outbound_transfers',
  inboundTransfers: 'inbound_transfers',
  supplierShipments: 'supplier_shipments',
  customerReturns: 'customer_return_shipments',
};

/** The record numbers a work file holds, read the way the WMS would read it (dialect of each mapping). */
function numbersIn(type: keyof typeof FAMILY, file: string): string[] {
  switch (type) {
    case 'customerShipments':
      return readRows(file).map((r) => r.ORDER_NO);
    case 'outboundTransfers':
      return readCsv(file, { delimiter: ';', encoding: 'windows-1252' }).filter((r) => r[0] === 'H').map((r) => r[2]);
    case 'inboundTransfers':
      return readRows(file, { delimiter: ';', encoding: 'windows-1252' }).map((r) => r.Transfer);
    case 'supplierShipments':
      return readRows(file).map((r) => r.ASN);
    case 'customerReturns':
      return readRows(file, { delimiter: ';' }).map((r) => r.RMA);
  }
}

describe('work lists of every work type (local drop)', () => {
  it.each(Object.keys(FAMILY) as (keyof typeof FAMILY)[])('%s: every pending record exported once, exactly those acknowledged', async (type) => {
    const family = FAMILY[type];
    const all = await records(emu, family);
    const pending = all.filter((r) => r.warehouse_id === 1 && r.list_status === 'pending');
    const acknowledgedBefore = all.filter((r) => r.acknowledged_at !== null).map((r) => r.id);
    expect(pending.length).toBeGreaterThan(0);

    setup = await setUp(emu, [{ name: 'work', work_type: type, mapping: MAPPING_OF[type] }]);
    const summary = await setup.run('work');

    expect(summary).toMatchObject({ exported: pending.length, listed: pending.length, skipped: 0, exitCode: 0 });
    expect(summary.acknowledgements).toMatchObject({ acknowledged: pending.length, errors: 0, uncertain: 0 });
    const files = setup.outboxFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^work_\d{14}_000001\.csv$/);
    expect(new Set(numbersIn(type, join(setup.outbox, files[0])))).toEqual(new Set(pending.map((r) => r.number)));

    const after = await records(emu, family);
    const acknowledgedNow = after.filter((r) => r.acknowledged_at !== null).map((r) => r.id).sort((a, b) => a - b);
    expect(acknowledgedNow).toEqual([...acknowledgedBefore, ...pending.map((r) => r.id)].sort((a, b) => a - b));
    expect(after.filter((r) => pending.some((p) => p.id === r.id)).every((r) => r.list_status === 'open')).toBe(true);

    const result = readRows(join(setup.outbox, `${files[0]}.ack.csv`));
    expect(result.map((r) => Number(r.id)).sort((a, b) => a - b)).toEqual(pending.map((r) => r.id).sort((a, b) => a - b));
    expect(new Set(result.map((r) => r.status))).toEqual(new Set(['acknowledged']));

    const again = await setup.run('work');
    expect(again).toMatchObject({ listed: 0, exported: 0, files: [] });
    expect(setup.outboxFiles()).toEqual(files);
  });

  it('inbound transfers: only the pending ones (status=pending), never done or already acknowledged transfers', async () => {
    const all = await records(emu, 'inbound_transfers', (r) => r.warehouse_id === 1);
    expect(all.some((r) => r.list_status !== 'pending')).toBe(true);
    setup = await setUp(emu, [{ name: 'it', work_type: 'inboundTransfers', mapping: MAPPING_OF.inboundTransfers }]);
    await setup.run('it');
    const exported = new Set(numbersIn('inboundTransfers', join(setup.outbox, setup.outboxFiles()[0])));
    expect([...exported].sort()).toEqual(all.filter((r) => r.list_status === 'pending').map((r) => r.number).sort());
  });

  it('customer shipments: one row per line with the header repeated, UTF-8 BOM as the mapping asks', async () => {
    const pending = await records(emu, 'customer_shipments', (r) => r.warehouse_id === 1 && r.list_status === 'pending');
    setup = await setUp(emu, [{ name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.customerShipments }]);
    await setup.run('so');
    const file = join(setup.outbox, setup.outboxFiles()[0]);
    const rows = readRows(file);
    expect(rows).toHaveLength(pending.reduce((n, r) => n + r.lines.length, 0));
    const first = pending[0];
    expect(rows.filter((r) => r.ORDER_NO === first.number).map((r) => [r.LINE_ID, r.SKU, r.QTY]))
      .toEqual(first.lines.map((l: any) => [String(l.id), l.product_code, String(l.quantity)]));
    expect([...readFileSync(file).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(listOutbox(setup.outbox).every((f) => !f.includes('.tmp'))).toBe(true);
  });
});
