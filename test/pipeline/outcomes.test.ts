import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import { openJournal } from '../../src/journal/index.js';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { MESSAGE_CHARS } from '../../src/util/messages.js';
import { flatShipMapping, korr, runInboundOnce, workspace } from './helpers.js';
import { join } from 'node:path';

const emu = useEmulator({ resetEachTest: true });

const adjustments = async () => (await adminState(emu, ['adjustments'])).adjustments as Array<{ reference: string; quantity: number }>;

describe('per-item endpoints (207): good and bad rows reported row by row', () => {
  it('keeps to batch_size even when the ids of references are fetched for many rows at once (acknowledgements by number)', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 7 });
    const state = await adminState(emu, ['customer_shipments']);
    const pending = state.customer_shipments.filter((s: any) => s.list_status === 'pending').slice(0, 30);
    ws.drop('ACK_SO_BATCHES.csv', ['NUMBER', ...pending.map((s: any) => s.number), ''].join('\n'));
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.rows).toEqual({ ok: 30, error: 0, skipped: 0, uncertain: 0 });
    expect(file.requests).toBe(5);
  });

  it('adjustments in batches of 2: the service refuses some items, the others are applied once', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 2 });
    ws.drop('KORR_MIXED.csv', korr([
      'SKU-00001;1;Fund;M-1;19.11.2026;;ACME',
      'SKU-00002;-100000;Bruch;M-2;19.11.2026;;ACME',
      'SKU-99999;1;Fund;M-3;19.11.2026;;ACME',
      'SKU-00004;2;Fund;M-4;19.11.2026;;ACME',
      'SKU-00003;1;Fund;M-5;19.11.2026;;ACME',
      'SKU-00005;oops;Fund;M-6;19.11.2026;;ACME',
      'SKU-00006;3;Fund;M-7;19.11.2026;;ACME',
    ]));
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.outcome).toBe('failed');
    expect(file.rows).toEqual({ ok: 3, error: 4, skipped: 0, uncertain: 0 });
    expect(file.requests).toBe(3);
    const rows = ws.result('KORR_MIXED.result.csv');
    expect(rows.map((r) => `${r.line}:${r.status}`)).toEqual(['2:ok', '3:error', '4:error', '5:ok', '6:error', '7:error', '8:ok']);
    expect(rows[1].message).toMatch(/insufficient stock of SKU-00002/);
    expect(rows[2].message).toBe('product SKU-99999 not found');
    expect(rows[4].message).toBe('SKU-00003 is lot-tracked: lot_number is required');
    expect(rows[5].message).toBe('KORR_MIXED.csv, line 7, column Menge: "oops" is not a number');
    expect(rows[0].move_id).toMatch(/^\d+$/);
    expect((await adjustments()).map((a) => a.reference).sort()).toEqual(['M-1', 'M-4', 'M-7']);
  });
});

describe('fail-fast endpoints: a bad item is isolated, the rest of its batch goes through', () => {
  it('customer-shipment ship: one shipment with a SKU it does not hold does not block the four others', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 10 });
    const state = await adminState(emu, ['customer_shipments']);
    const ready = state.customer_shipments
      .filter((s: any) => s.state === 'assigned' && s.lines.every((l: any) => !l.lot_number && l.done_quantity === 0))
      .slice(0, 5);
    expect(ready).toHaveLength(5);
    const lines = ['ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS'];
    ready.forEach((s: any, i: number) => {
      for (const l of s.lines) lines.push(`${s.number},DHL,DHL_EXPRESS,T${i},,${i === 2 ? 'SKU-00999' : l.product_code},${l.quantity},,`);
    });
    ws.drop('SHIP_FAILFAST.csv', lines.join('\n') + '\n');
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.outcome).toBe('failed');
    const rows = ws.result('SHIP_FAILFAST.result.csv');
    const byDoc = new Map(rows.map((r) => [r.document, r]));
    expect([...byDoc.keys()]).toEqual(ready.map((s: any) => s.number));
    ready.forEach((s: any, i: number) => expect(byDoc.get(s.number)!.status, s.number).toBe(i === 2 ? 'error' : 'ok'));
    expect(byDoc.get(ready[2].number)!.message).toMatch(/SKU-00999/);
    const after = await adminState(emu, ['customer_shipments']);
    ready.forEach((s: any, i: number) => {
      const now = after.customer_shipments.find((x: any) => x.id === s.id);
      expect(now.state, s.number).toBe(i === 2 ? 'assigned' : 'shipped');
    });
  });
});

describe('ship whose answer was lost before the service processed it', () => {
  it('reading back shows the shipment untouched since the send: it is sent again and shipped once', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const state = await adminState(emu, ['customer_shipments']);
    const s = state.customer_shipments.find((x: any) => x.state === 'assigned' && x.lines.every((l: any) => !l.lot_number));
    ws.drop('SHIP_LOST.csv', ['ORDER_NO,CARRIER,SERVICE,TRACKING,STRATEGY,SKU,QTY,LOT,SERIALS',
      ...s.lines.map((l: any) => `${s.number},DHL,DHL_EXPRESS,T1,,${l.product_code},${l.quantity},,`), ''].join('\n'));
    await setFaults(emu, { reset_rate: 1, reset_phase: 'before', times: 1, path_prefix: '/v1/customer-shipments/ship' });
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.rows).toEqual({ ok: s.lines.length, error: 0, skipped: 0, uncertain: 0 });
    expect(file.requests).toBe(2);
    const after = await adminState(emu, ['customer_shipments']);
    expect(after.customer_shipments.find((x: any) => x.id === s.id).state).toBe('shipped');
    expect(after.customer_shipments.filter((x: any) => x.origin_id === s.id)).toEqual([]);
  });
});

describe('the service down for a while, then back', () => {
  it('503 until the retries run out: the run stops (fatal), nothing is uncertain; once the service is back the file goes through once', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 2, maxAttempts: 2 });
    ws.drop('KORR_DOWN.csv', korr(['SKU-00001;1;Fund;D-1;19.11.2026;;ACME', 'SKU-00002;1;Fund;D-2;19.11.2026;;ACME', 'SKU-00004;1;Fund;D-3;19.11.2026;;ACME']));
    await setFaults(emu, { error_rate: 1, error_status: 503 });
    const failure = await runInboundOnce(ws).catch((error: unknown) => error);
    expect(isWisbridgeError(failure, 'UNAVAILABLE')).toBe(true);
    expect(ws.files('inbox')).toEqual(['KORR_DOWN.csv']);
    expect(ws.files('outbox')).toEqual([]);
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    const backlog = await journal.backlog();
    await journal.close();
    expect(backlog).toMatchObject({ processingFiles: 1, sentRequests: 0, uncertainItems: 0 });
    expect(await adjustments()).toEqual([]);

    await setFaults(emu, {});
    const file = (await runInboundOnce(ws)).files[0];
    expect(file).toMatchObject({ outcome: 'done', resumed: true, rows: { ok: 3, error: 0, skipped: 0, uncertain: 0 } });
    expect((await adjustments()).map((a) => a.reference).sort()).toEqual(['D-1', 'D-2', 'D-3']);
    expect(ws.files('archive')).toEqual(['KORR_DOWN.csv']);
  });

  it('a short outage within the retries is invisible: every row applied once in one run', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 2, maxAttempts: 6 });
    ws.drop('KORR_BLIP.csv', korr(['SKU-00001;1;Fund;B-1;19.11.2026;;ACME', 'SKU-00002;1;Fund;B-2;19.11.2026;;ACME', 'SKU-00004;1;Fund;B-3;19.11.2026;;ACME']));
    await setFaults(emu, { error_rate: 1, error_status: 503, times: 3 });
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.rows).toEqual({ ok: 3, error: 0, skipped: 0, uncertain: 0 });
    expect((await adjustments()).map((a) => a.reference).sort()).toEqual(['B-1', 'B-2', 'B-3']);
  });

  it('an answer lost after the write was applied: adjustments are reported uncertain with what to check, acknowledgements verified', async () => {
    const ws = workspace({ url: emu.url, token: emu.token, maxAttempts: 3 });
    ws.drop('KORR_LOST.csv', korr(['SKU-00001;1;Fund;L-1;19.11.2026;;ACME']));
    ws.drop('ACK_SO_20261120.csv');
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory' });
    const report = await runInboundOnce(ws);
    const korrFile = report.files.find((f) => f.file === 'KORR_LOST.csv')!;
    expect(korrFile.rows.uncertain).toBe(1);
    const row = ws.result('KORR_LOST.result.csv')[0];
    expect(row.status).toBe('uncertain');
    expect(row.check).toMatch(/check the stock of SKU-00001 in the service \(adjustment of 1, reference L-1\)/);
    expect((await adjustments()).map((a) => a.reference)).toEqual(['L-1']);

    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/customer-shipments' });
    ws.drop('ACK_SO_20261120.csv', 'NUMBER\nSO-1003\nSO-1004\n', 'ACK_SO_20261121.csv');
    const ack = (await runInboundOnce(ws)).files[0];
    expect(ack.rows).toEqual({ ok: 2, error: 0, skipped: 0, uncertain: 0 });
  });
});

describe('a document of many lines rejected with a message per line', () => {
  it('every row of it carries its own message and a bounded share of the others (the result file stays linear), the journal keeps them all', async () => {
    const ws = workspace({
      url: emu.url, token: emu.token,
      extraMappings: { 'ship-many': flatShipMapping('MANY_*.csv', true) },
    });
    const open = (await adminState(emu, ['customer_shipments'])).customer_shipments.find((s: any) => s.list_status === 'open');
    ws.drop('MANY_1.csv', ['ORDER,SKU,QTY', ...Array.from({ length: 300 }, (_, i) => `${open.number},SKU-00001,x${i}`), ''].join('\n'));
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.rows).toEqual({ ok: 0, error: 300, skipped: 0, uncertain: 0 });
    const rows = ws.result('MANY_1.result.csv');
    expect(rows).toHaveLength(300);
    for (const row of rows) {
      expect(row.message.length).toBeLessThanOrEqual(MESSAGE_CHARS + 40);
      // Its own message first, then as many of the others as fit.
      expect(row.message.startsWith(`MANY_1.csv, line ${row.line}, column QTY: "x${Number(row.line) - 2}" is not a number | `)).toBe(true);
      expect(row.message).toMatch(/ \| … \d+ more \(300 messages in all\)$/);
    }
    expect(ws.read('outbox', 'MANY_1.result.csv').length).toBeLessThan(300 * (MESSAGE_CHARS + 200));
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    const lines = journal.iterateLineOutcomes(file.fileId!)[Symbol.asyncIterator]();
    expect((await lines.next()).value?.messages).toHaveLength(300);
    await lines.return?.();
    await journal.close();
  });
});

