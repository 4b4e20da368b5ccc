import { describe, expect, it } from 'vitest';
import { isWisbridgeError, writeStopOf } from '../../src/errors.js';
import { plainProducts, requestsTo, useTestService, type AdminRecord, type AdminState, type TestService } from './emulator-helpers.js';

let svc: TestService;
useTestService((s) => {
  svc = s;
});

function shippable(state: AdminState, count: number): AdminRecord[] {
  const plain = new Set(plainProducts(state));
  return state.customer_shipments
    .filter((s) => s.warehouse_id === 1 && s.list_status === 'pending' && s.lines.every((l) => plain.has(l.product_code)))
    .slice(0, count);
}
const shipItem = (s: AdminRecord) => ({ id: s.id, carrier: 'UPS', tracking_number: `T${s.id}`, lines: s.lines.map((l) => ({ product_code: l.product_code, quantity: l.quantity })) });

describe('per-item writes (200 / 207)', () => {
  it('acknowledge: outcomes per item, in input order, batched, matching the service state', async () => {
    const state = await svc.state('customer_shipments');
    const pending = state.customer_shipments.filter((s) => s.warehouse_id === 1 && s.list_status === 'pending').slice(0, 23);
    const canceled = state.customer_shipments.filter((s) => s.warehouse_id === 1 && s.list_status === 'canceled').slice(0, 2);
    const items = [...pending.slice(0, 10), canceled[0], ...pending.slice(10), canceled[1]].map((s) => ({ id: s.id }));
    const client = svc.client({ batchSize: 10 });
    const outcomes = await client.customerShipments.acknowledge(items);
    expect(outcomes.map((o) => o.key)).toEqual(items.map((i) => i.id));
    expect(outcomes.map((o) => o.index)).toEqual(items.map((_, i) => i));
    expect(requestsTo(client.events, 'customerShipments.acknowledge')).toBe(3);
    const bad = outcomes.filter((o) => !o.ok);
    expect(bad.map((o) => o.key).sort()).toEqual(canceled.map((c) => c.id).sort());
    expect(bad.every((o) => o.errors.length > 0 && !o.uncertain)).toBe(true);
    const good = outcomes.filter((o) => o.ok);
    expect(good.every((o) => typeof o.returned.acknowledged_at === 'string' && o.errors.length === 0)).toBe(true);
    const after = await svc.state('customer_shipments');
    const acked = new Set(after.customer_shipments.filter((s) => s.acknowledged_at !== null).map((s) => s.id));
    for (const o of outcomes) expect(acked.has(o.key as number)).toBe(o.ok);
  });

  it('items that break the contract are not sent and carry the reason', async () => {
    const client = svc.client();
    // eslint-disable-next-line no-restricted-syntax -- deliberately not a picking status: the client must refuse that item
    const outcomes = await client.customerShipments.changeStatus([{ id: 1001, picking_status: 'in-progress' }, { id: 1002, picking_status: 'sideways' as never }]);
    expect(outcomes[0]).toMatchObject({ key: 1001, ok: true });
    expect(outcomes[1]).toMatchObject({ key: 1002, ok: false });
    expect(outcomes[1].errors.join()).toContain('picking_status');
    const sent = JSON.stringify((await svc.state('customer_shipments')).customer_shipments.find((s) => s.id === 1002)?.picking_status);
    expect(sent).toBe('null');
  });

  it('adjustments: key is the SKU, returned fields carry move_id', async () => {
    const state = await svc.state('products');
    const [a, b] = plainProducts(state);
    const client = svc.client();
    const outcomes = await client.inventory.adjustments([
      { product_code: a, quantity: 3, reference: 'W-1', company_code: 'ACME' },
      { product_code: 'NO-SUCH-SKU', quantity: 1, reference: 'W-2', company_code: 'ACME' },
      { product_code: b, quantity: 1, reference: 'W-3', company_code: 'ACME' },
    ]);
    expect(outcomes.map((o) => [o.key, o.ok])).toEqual([[a, true], ['NO-SUCH-SKU', false], [b, true]]);
    expect(typeof outcomes[0].returned.move_id).toBe('number');
    expect(outcomes[1].errors.length).toBeGreaterThan(0);
  });

  it('sends items given as JSON text as they are (itemsJson), not serialized again', async () => {
    const [a] = plainProducts(await svc.state('products'));
    const client = svc.client();
    const items = [{ product_code: a, quantity: 1, company_code: 'ACME' }, { product_code: a, quantity: 1, company_code: 'ACME' }];
    // The text names other references than the objects: what the service applied shows which one went out.
    const itemsJson = JSON.stringify(['T-1', 'T-2'].map((reference, i) => ({ ...items[i], reference })));
    const outcomes = await client.write('inventory.adjustments', items, { validate: false, itemsJson });
    expect(outcomes.map((o) => [o.ok, o.returned.reference])).toEqual([[true, 'T-1'], [true, 'T-2']]);
    const applied = (await svc.state('adjustments')).adjustments.filter((x) => x.reference?.startsWith('T-'));
    expect(applied.map((x) => x.reference)).toEqual(['T-1', 'T-2']);
  });
});

describe('fail-fast writes: bisection', () => {
  it('ship: isolates every bad item among 64 in O(k log n) requests; good ones ship', async () => {
    const state = await svc.state();
    const good = shippable(state, 61);
    expect(good.length).toBe(61);
    const items: ReturnType<typeof shipItem>[] = good.map(shipItem);
    const badIds = [990001, 990002, 990003];
    items.splice(5, 0, { ...shipItem(good[0]), id: badIds[0] });
    items.splice(30, 0, { ...shipItem(good[1]), id: badIds[1] });
    items.splice(60, 0, { ...shipItem(good[2]), id: badIds[2] });
    const client = svc.client({ batchSize: 64 });
    const sent: number[][] = [];
    const outcomes = await client.customerShipments.ship(items, { beforeSend: ({ indexes }) => void sent.push(indexes) });
    expect(sent.length).toBe(requestsTo(client.events, 'customerShipments.ship'));
    expect(sent[0]).toHaveLength(64);
    const failed = outcomes.filter((o) => !o.ok);
    expect(failed.map((o) => o.key)).toEqual(badIds);
    expect(failed.every((o) => o.errors.length === 1 && o.errors[0].length > 0)).toBe(true);
    const n = items.length;
    const k = badIds.length;
    expect(requestsTo(client.events, 'customerShipments.ship')).toBeLessThanOrEqual(1 + 2 * k * Math.ceil(Math.log2(n)));
    const shipped = new Set((await svc.state('customer_shipments')).customer_shipments.filter((s) => s.shipped_at !== null).map((s) => s.id));
    for (const s of good) expect(shipped.has(s.id)).toBe(true);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(61);
  });

  it('outbound transfers acknowledge: an already acknowledged transfer is isolated, the rest go through', async () => {
    const state = await svc.state('outbound_transfers');
    const pending = state.outbound_transfers.filter((t) => t.warehouse_id === 1 && t.list_status === 'pending');
    const client = svc.client();
    const first = await client.outboundTransfers.acknowledge([{ id: pending[0].id }]);
    expect(first[0].ok).toBe(true);
    const outcomes = await client.outboundTransfers.acknowledge(pending.map((t) => ({ id: t.id })));
    expect(outcomes.filter((o) => !o.ok).map((o) => o.key)).toEqual([pending[0].id]);
    expect(outcomes.slice(1).every((o) => o.ok && typeof o.returned.acknowledged_at === 'string')).toBe(true);
  });
});

describe('uncertain outcomes', () => {
  it('adjustments are never repeated: a lost answer is reported uncertain and applied once', async () => {
    const [sku] = plainProducts(await svc.state('products'));
    await svc.faults({ reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    const client = svc.client();
    const outcomes = await client.inventory.adjustments([{ product_code: sku, quantity: 2, reference: 'U-1', company_code: 'ACME' }, { product_code: sku, quantity: 2, reference: 'U-2', company_code: 'ACME' }]);
    expect(outcomes.every((o) => o.uncertain === true && !o.ok)).toBe(true);
    expect(outcomes[0].errors[0]).toMatch(/unknown/);
    expect(requestsTo(client.events, 'inventory.adjustments')).toBe(1);
    const applied = (await svc.state('adjustments')).adjustments.filter((a) => a.reference?.startsWith('U-'));
    expect(applied).toHaveLength(2);
  });

  it('ship: a lost answer is verified by reading the shipments back', async () => {
    const state = await svc.state();
    const items = shippable(state, 3).map(shipItem);
    await svc.faults({ reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/customer-shipments/ship' });
    const client = svc.client();
    const outcomes = await client.customerShipments.ship(items);
    expect(outcomes.map((o) => [o.ok, o.verified])).toEqual([[true, true], [true, true], [true, true]]);
    expect(requestsTo(client.events, 'customerShipments.ship')).toBe(1);
    expect(requestsTo(client.events, 'customerShipments.list')).toBeGreaterThan(0);
  });

  it('ship with verifyUncertain: false reports a lost answer uncertain without reading state', async () => {
    const items = shippable(await svc.state(), 1).map(shipItem);
    await svc.faults({ reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/customer-shipments/ship' });
    const client = svc.client();
    const outcomes = await client.customerShipments.ship(items, { verifyUncertain: false });
    expect(outcomes[0]).toMatchObject({ ok: false, uncertain: true });
    expect(requestsTo(client.events, 'customerShipments.list')).toBe(0);
    expect(await client.verify('customerShipments.ship', [items[0].id])).toEqual(new Set([items[0].id]));
  });

  it('ship: a request reset before processing is not confirmed and stays uncertain, never re-sent', async () => {
    const items = shippable(await svc.state(), 2).map(shipItem);
    await svc.faults({ reset_rate: 1, reset_phase: 'before', times: 1, path_prefix: '/v1/customer-shipments/ship' });
    const client = svc.client();
    const outcomes = await client.customerShipments.ship(items);
    expect(outcomes.every((o) => o.uncertain && !o.ok)).toBe(true);
    expect(requestsTo(client.events, 'customerShipments.ship')).toBe(1);
    const shipped = (await svc.state('customer_shipments')).customer_shipments.filter((s) => s.shipped_at !== null).map((s) => s.id);
    expect(shipped).not.toContain(items[0].id);
  });

  it('acknowledge: unconfirmed items are sent once more (safe to repeat), confirmed ones are not', async () => {
    const state = await svc.state('customer_shipments');
    const ids = state.customer_shipments.filter((s) => s.warehouse_id === 1 && s.list_status === 'pending').slice(0, 4).map((s) => ({ id: s.id }));
    await svc.faults({ reset_rate: 1, reset_phase: 'before', times: 1, path_prefix: '/v1/customer-shipments/acknowledge' });
    const client = svc.client();
    const outcomes = await client.customerShipments.acknowledge(ids);
    expect(outcomes.every((o) => o.ok && o.repeated === true)).toBe(true);
    expect(requestsTo(client.events, 'customerShipments.acknowledge')).toBe(2);
    await svc.faults({ reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/supplier-shipments/acknowledge' });
    const supplier = (await svc.state('supplier_shipments')).supplier_shipments.filter((s) => s.warehouse_id === 1 && s.list_status === 'pending').slice(0, 2);
    const confirmed = await client.supplierShipments.acknowledge(supplier.map((s) => ({ id: s.id })));
    expect(confirmed.every((o) => o.ok && o.verified && !o.repeated)).toBe(true);
    expect(requestsTo(client.events, 'supplierShipments.acknowledge')).toBe(1);
  });

  it('acknowledge: when reading state back fails too, nothing is repeated and items stay uncertain', async () => {
    await svc.faults({ reset_rate: 1, reset_phase: 'before', path_prefix: '/v1/customer-shipments' });
    const client = svc.client({ maxAttempts: 2 });
    const outcomes = await client.customerShipments.acknowledge([{ id: 1001 }, { id: 1002 }]);
    expect(outcomes.every((o) => o.uncertain && !o.ok && !o.repeated)).toBe(true);
    expect(outcomes[0].errors[0]).toContain('reading state back failed too');
    expect(requestsTo(client.events, 'customerShipments.acknowledge')).toBe(1);
    expect(requestsTo(client.events, 'customerShipments.list')).toBe(2);
  });

  it('change-status is repeated blindly after a lost answer (idempotent)', async () => {
    await svc.faults({ reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/customer-shipments/change-status' });
    const client = svc.client();
    const outcomes = await client.customerShipments.changeStatus([{ id: 1001, picking_status: 'done' }]);
    expect(outcomes[0].ok).toBe(true);
    expect(requestsTo(client.events, 'customerShipments.changeStatus')).toBe(2);
  });
});

describe('fatal errors stop the run', () => {
  it('401 throws AUTHENTICATION once, with the outcomes decided so far', async () => {
    const client = svc.client({ token: svc.emulator.mintToken([1], -10), batchSize: 1 });
    const error = await client.customerShipments.acknowledge([{ id: 1001 }, { id: 1002 }, { id: 1003 }]).catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'AUTHENTICATION')).toBe(true);
    expect(requestsTo(client.events, 'customerShipments.acknowledge')).toBe(1);
    expect(writeStopOf(error)?.notSent).toEqual([0, 1, 2]);
  });

  it('a beforeSend hook that throws stops the write before that request; its items are not sent', async () => {
    const client = svc.client({ batchSize: 2 });
    let calls = 0;
    const error = await client.customerShipments.acknowledge([{ id: 1001 }, { id: 1002 }, { id: 1003 }], {
      beforeSend: () => {
        if (++calls === 2) throw new Error('journal full');
      },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('journal full');
    expect(requestsTo(client.events, 'customerShipments.acknowledge')).toBe(1);
    const acked = (await svc.state('customer_shipments')).customer_shipments.filter((s) => s.acknowledged_at !== null).map((s) => s.id);
    expect(acked).toContain(1001);
    expect(acked).not.toContain(1003);
  });

  it('sscc and cycle counts answer typed results; a count with an unknown SKU is BAD_REQUEST', async () => {
    const state = await svc.state();
    const client = svc.client();
    const labels = await client.customerShipments.sscc(state.customer_shipments[0].id);
    expect(labels.id).toBe(state.customer_shipments[0].id);
    const [sku] = plainProducts(state);
    const count = await client.inventory.counts({ date: '2026-11-01', reason: 'cycle', reference: 'CC-1', items: [{ product_code: sku, quantity: 5 }] });
    expect(typeof count.id).toBe('number');
    const error = await client.inventory.counts({ date: '2026-11-01', reason: 'cycle', items: [{ product_code: 'NO-SUCH', quantity: 1 }] }).catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'BAD_REQUEST')).toBe(true);
  });
});
