import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal, packBatch } from '../../src/journal/index.js';
import { runInboundJob } from '../../src/pipeline/index.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { korr, type Workspace, workspace } from './helpers.js';
import { testHooks } from '../../src/journal/testing.js';

const emu = useEmulator({ resetEachTest: true });

/**
 * Leaves the journal as a crash right after a request was marked sent would: the file claimed, one request
 * recorded and `sent` with the given items (seq = first line), nothing else.
 */
async function crashedWith(ws: Workspace, name: string, mapping: string, endpoint: string, items: Array<{ seq: number; key?: string; body: unknown }>,
  options: { indexLost?: boolean; clockAheadMs?: number } = {}) {
  const bytes = readFileSync(join(ws.folder('inbox'), name));
  // clockAheadMs: the crashed process's clock was that far ahead (what the journal stamps from the process's clock).
  const ahead = options.clockAheadMs;
  const journal = await openJournal(join(ws.dir, 'journal.sqlite'), ahead === undefined ? {} : { now: () => new Date(Date.now() + ahead) });
  const claim = await journal.claimFile({ drop: 'wms', name, checksum: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, mapping });
  if (claim.status !== 'new') throw new Error('expected a new claim');
  const newItems = items.map((i) => ({ seq: i.seq, docKey: i.key ?? null, lines: [i.seq], body: i.body }));
  // indexLost: the crash came before the block's search index followed it (the flow writes it in a later commit)
  const requestId = options.indexLost
    ? await testHooks(journal).recordBatch(claim.fileId, endpoint, { ...packBatch(endpoint, newItems, items.map((i) => i.body)), index: undefined }, { bodies: JSON.stringify(items.map((i) => i.body)) })
    : await testHooks(journal).recordBatch(claim.fileId, endpoint, newItems);
  await journal.markSent(requestId);
  await journal.close();
}

async function runOnce(ws: Workspace) {
  const runtime = await ws.runtime();
  try {
    return (await runInboundJob(runtime, runtime.loaded.config.inbound[0])).files[0];
  } finally {
    await runtime.close();
  }
}

describe('resuming a file whose request was marked sent before a crash', () => {
  it('adjustments are never sent again: uncertain with what to check; the rest of the file is sent', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_R.csv', korr(['SKU-00001;1;Fund;R-1;19.11.2026;;ACME', 'SKU-00002;1;Fund;R-2;19.11.2026;;ACME']));
    await crashedWith(ws, 'KORR_R.csv', 'inventory-adjustments', 'inventory.adjustments', [
      { seq: 2, body: { product_code: 'SKU-00001', quantity: 1, reason: 'Fund', reference: 'R-1', date: '2026-11-19', company_code: 'ACME' } },
    ]);
    const file = await runOnce(ws);
    expect(file).toMatchObject({ resumed: true, outcome: 'failed', rows: { ok: 1, error: 0, skipped: 0, uncertain: 1 } });
    const rows = ws.result('KORR_R.result.csv');
    expect(rows.map((r) => r.status)).toEqual(['uncertain', 'ok']);
    expect(rows[0].message).toMatch(/is never sent twice/);
    expect(rows[0].check).toMatch(/check the stock of SKU-00001 .*reference R-1/);
    expect((await adminState(emu, ['adjustments'])).adjustments.map((a: any) => a.reference)).toEqual(['R-2']);
  });

  it('a block whose search index the crash lost is searchable again once the file resumed', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_I.csv', korr(['SKU-00001;1;Fund;IDX-1;19.11.2026;;ACME', 'SKU-00002;1;Fund;IDX-2;19.11.2026;;ACME']));
    await crashedWith(ws, 'KORR_I.csv', 'inventory-adjustments', 'inventory.adjustments', [
      { seq: 2, key: 'SKU-00001', body: { product_code: 'SKU-00001', quantity: 1, reason: 'Fund', reference: 'IDX-1', date: '2026-11-19', company_code: 'ACME' } },
    ], { indexLost: true });
    const search = async (text: string) => {
      const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
      try {
        return (await journal.console.search(text, { limit: 10 })).hits.map((h) => [h.file, h.seq, h.status]);
      } finally {
        await journal.close();
      }
    };
    expect(await search('IDX-1')).toEqual([]);
    expect(await runOnce(ws)).toMatchObject({ resumed: true, rows: { ok: 1, uncertain: 1 } });
    expect(await search('IDX-1')).toEqual([['KORR_I.csv', 2, 'uncertain']]);
    expect(await search('IDX-2')).toEqual([['KORR_I.csv', 3, 'ok']]);
  });

  it('ship: the shipment is not done and untouched since the send, so it is sent again and shipped once', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const state = await adminState(emu, ['customer_shipments']);
    const s = state.customer_shipments.find((x: any) => x.state === 'assigned' && x.lines.length === 1 && !x.lines[0].lot_number);
    const line = s.lines[0];
    ws.drop('SHIP_R.csv', `ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS\n${s.number},DHL,DHL_EXPRESS,T1,,${line.product_code},${line.quantity},,\n`);
    await crashedWith(ws, 'SHIP_R.csv', 'customer-shipment-ship', 'customerShipments.ship', [{
      seq: 2, key: s.number,
      body: { id: s.id, carrier: 'DHL', carrier_service: 'DHL_EXPRESS', tracking_number: 'T1', ship_strategy: 'ship_as_available', lines: [{ product_code: line.product_code, quantity: line.quantity }] },
    }]);
    const file = await runOnce(ws);
    expect(file).toMatchObject({ resumed: true, outcome: 'done', requests: 1, rows: { ok: 1, error: 0, skipped: 0, uncertain: 0 } });
    expect(ws.result('SHIP_R.result.csv')[0]).toMatchObject({ document: s.number, status: 'ok' });
    const after = await adminState(emu, ['customer_shipments']);
    expect(after.customer_shipments.find((x: any) => x.id === s.id).state).toBe('shipped');
    expect(after.customer_shipments.filter((x: any) => x.origin_id === s.id)).toEqual([]);
  });

  it('ship held by the service before the crash of an instance whose clock was 10 minutes ahead: touched since the send, so uncertain and not shipped twice', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const state = await adminState(emu, ['customer_shipments']);
    const s = state.customer_shipments.find((x: any) => x.state === 'assigned' && x.lines.length === 1 && !x.lines[0].lot_number && x.lines[0].quantity >= 2);
    const line = s.lines[0];
    // One of the line's units, all together: the service holds the shipment open (not every item shipped), touched.
    const body = { id: s.id, carrier: 'DHL', carrier_service: 'DHL_EXPRESS', tracking_number: 'T1', ship_strategy: 'ship_all_together', lines: [{ product_code: line.product_code, quantity: 1 }] };
    ws.drop('SHIP_SKEW.csv', `ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS\n${s.number},DHL,DHL_EXPRESS,T1,ship_all_together,${line.product_code},1,,\n`);
    await crashedWith(ws, 'SHIP_SKEW.csv', 'customer-shipment-ship', 'customerShipments.ship', [{ seq: 2, key: s.number, body }], { clockAheadMs: 600_000 });
    // The request that crashed reached the service (its answer was lost).
    expect((await emu.request('PUT', '/v1/customer-shipments/ship.json', { shipments: [body] })).status).toBe(200);
    const file = await runOnce(ws);
    expect(file).toMatchObject({ resumed: true, outcome: 'failed', requests: 0, rows: { ok: 0, uncertain: 1 } });
    expect(ws.result('SHIP_SKEW.result.csv')[0]).toMatchObject({ document: s.number, status: 'uncertain' });
    const after = (await adminState(emu, ['customer_shipments'])).customer_shipments.find((x: any) => x.id === s.id);
    expect(after.writes.filter((w: any) => w.endpoint === 'customerShipments.ship')).toHaveLength(1);
    expect(after.lines[0].done_quantity).toBe(1);
  });

  it('ship already applied before the crash: confirmed by reading back, not sent again', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const state = await adminState(emu, ['customer_shipments']);
    const s = state.customer_shipments.find((x: any) => x.state === 'assigned' && x.lines.length === 1 && !x.lines[0].lot_number);
    const line = s.lines[0];
    const body = { id: s.id, carrier: 'DHL', carrier_service: 'DHL_EXPRESS', tracking_number: 'T1', ship_strategy: 'ship_as_available', lines: [{ product_code: line.product_code, quantity: line.quantity }] };
    expect((await emu.request('PUT', '/v1/customer-shipments/ship.json', { shipments: [body] })).status).toBe(200);
    ws.drop('SHIP_R2.csv', `ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS\n${s.number},DHL,DHL_EXPRESS,T1,,${line.product_code},${line.quantity},,\n`);
    await crashedWith(ws, 'SHIP_R2.csv', 'customer-shipment-ship', 'customerShipments.ship', [{ seq: 2, key: s.number, body }]);
    const file = await runOnce(ws);
    expect(file).toMatchObject({ outcome: 'done', requests: 0, rows: { ok: 1 } });
    expect(ws.result('SHIP_R2.result.csv')[0].returned).toBe('verified=read back from the service');
  });
});
