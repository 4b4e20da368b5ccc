import { inspect } from 'node:util';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { plainProducts, requestsTo, useTestService, type AdminRecord, type AdminState, type TestService } from './emulator-helpers.js';

let svc: TestService;
useTestService((s) => {
  svc = s;
});

function plainRecords(state: AdminState, records: AdminRecord[], listStatus: string): AdminRecord[] {
  const plain = new Set(plainProducts(state));
  return records.filter((r) => r.warehouse_id === 1 && r.list_status === listStatus && r.lines.length > 0 && r.lines.every((l) => plain.has(l.product_code)));
}
const receiveLines = (r: AdminRecord) => r.lines.map((l) => ({ sku: l.product_code, received_quantity: l.quantity }));

describe('verification helpers read state back', () => {
  it('inbound transfer receive: confirmed once received, not before', async () => {
    const state = await svc.state();
    const [t, other] = plainRecords(state, state.inbound_transfers, 'pending');
    expect(other).toBeDefined();
    const client = svc.client();
    expect(await client.verify('inboundTransfers.receive', [t.id, other.id])).toEqual(new Set());
    expect((await client.inboundTransfers.acknowledge([{ id: t.id }]))[0].ok).toBe(true);
    expect(await client.verify('inboundTransfers.acknowledge', [t.id, other.id])).toEqual(new Set([t.id]));
    const received = await client.inboundTransfers.receive([{ id: t.id, tpl_reference: 'R1', lines: receiveLines(t) }]);
    expect(received[0]).toMatchObject({ ok: true, returned: { state: 'done' } });
    expect(await client.verify('inboundTransfers.receive', [t.id, other.id])).toEqual(new Set([t.id]));
  });

  it('supplier shipment receive (no ids filter): a lost answer is confirmed through updated_at_min', async () => {
    const state = await svc.state();
    const [s] = plainRecords(state, state.supplier_shipments, 'pending');
    const client = svc.client();
    await svc.faults({ reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/supplier-shipments/receive' });
    const outcomes = await client.supplierShipments.receive([{ id: s.id, receiving_strategy: 'finalize_and_start_new', lines: receiveLines(s) }]);
    expect(outcomes[0]).toMatchObject({ ok: true, verified: true });
    expect(requestsTo(client.events, 'supplierShipments.receive')).toBe(1);
  });

  it('endpoints without a verifier refuse verification with INVALID_REQUEST', async () => {
    await expect(svc.client().verify('inventory.adjustments', [1])).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('the token stays secret', () => {
  it('is absent from inspect, JSON, debug logs of retries and error messages', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ level: 'debug', pretty: false, destination });
    const client = svc.client({ logger });
    await svc.faults({ error_rate: 1, error_status: 503, times: 2 });
    await client.customerShipments.count();
    const bad = svc.client({ token: `${svc.token}x`, logger });
    const error = await bad.customerShipments.count().catch((e: unknown) => e);
    logger.flush();
    expect(lines.some((l) => l.includes('retrying'))).toBe(true);
    for (const text of [inspect(client, { depth: 10 }), JSON.stringify(client), lines.join('\n'), String(error), JSON.stringify((error as { details: unknown }).details)]) {
      expect(text).not.toContain(svc.token);
    }
  });
});
