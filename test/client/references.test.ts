import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiReferenceIds } from '../../src/client/index.js';
import { cachedReferenceIds } from '../../src/mapping/reference-ids.js';
import { requestsTo, startTestService, type TestService } from './emulator-helpers.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

describe('ApiReferenceIds against the emulator', () => {
  it('resolves customer shipment numbers of any status to ids through the numbers filter, batched', async () => {
    const state = await svc.state('customer_shipments');
    const mine = state.customer_shipments.filter((s) => s.warehouse_id === 1);
    const pick = [...mine.filter((s) => s.list_status === 'pending').slice(0, 150), ...mine.filter((s) => s.list_status === 'done').slice(0, 2)];
    const other = state.customer_shipments.find((s) => s.warehouse_id === 2)!;
    const client = svc.client();
    const referenceIds = new ApiReferenceIds(client, { numbersPerQuery: 50 });
    const found = await referenceIds.idsOf('customerShipment', [...pick.map((s) => s.number), 'SO-NOPE', other.number]);
    expect(found.size).toBe(pick.length);
    for (const s of pick) expect(found.get(s.number)).toBe(s.id);
    expect(found.has('SO-NOPE')).toBe(false);
    expect(found.has(other.number)).toBe(false); // another warehouse's record is invisible
    // pending: 150 numbers in queries of 50; the rest are searched in the other statuses
    expect(requestsTo(client.events, 'customerShipments.list')).toBeLessThanOrEqual(3 + 3 * 4);
  });

  it('resolves transfers and returns, and product codes through a products listing table', async () => {
    const state = await svc.state();
    const client = svc.client();
    const referenceIds = new ApiReferenceIds(client);
    const ot = state.outbound_transfers.find((t) => t.warehouse_id === 1)!;
    expect(await referenceIds.idOf('outboundTransfer', ot.number)).toBe(ot.id);
    const it1 = state.inbound_transfers.find((t) => t.warehouse_id === 1)!;
    expect(await referenceIds.idOf('inboundTransfer', it1.number)).toBe(it1.id);
    const ret = state.customer_return_shipments.find((t) => t.warehouse_id === 1)!;
    expect(await referenceIds.idOf('customerReturn', ret.number)).toBe(ret.id);
    const goods = state.products.filter((p) => p.type === 'goods');
    const nonGoods = state.products.find((p) => p.type !== 'goods');
    const products = await referenceIds.idsOf('product', [goods[0].code, goods[200].code, 'NOPE', ...(nonGoods ? [nonGoods.code] : [])]);
    expect(products.get(goods[0].code)).toBe(goods[0].id);
    expect(products.get(goods[200].code)).toBe(goods[200].id);
    expect(products.size).toBe(2);
    const pagesAfterFirst = requestsTo(client.events, 'products.list');
    await referenceIds.idsOf('product', [goods[5].code, 'NOPE']);
    expect(requestsTo(client.events, 'products.list')).toBe(pagesAfterFirst); // served from the table
  });

  it('a product miss refreshes the table incrementally (updated_at_min), not with a full scan', async () => {
    const state = await svc.state('products');
    const goods = state.products.filter((p) => p.type === 'goods');
    const client = svc.client();
    const referenceIds = new ApiReferenceIds(client, { refreshAfterMs: 0 });
    expect((await referenceIds.idsOf('product', [goods[0].code])).get(goods[0].code)).toBe(goods[0].id);
    const fullScan = requestsTo(client.events, 'products.list');
    expect(fullScan).toBe(Math.ceil(goods.length / 100));
    expect(await referenceIds.idOf('product', 'NOT-A-SKU')).toBeUndefined();
    expect(requestsTo(client.events, 'products.list')).toBe(fullScan + 1);
  });

  it('resolves supplier shipment numbers from a listing table (no numbers filter exists)', async () => {
    const state = await svc.state('supplier_shipments');
    const open = state.supplier_shipments.filter((s) => s.warehouse_id === 1 && (s.list_status === 'pending' || s.list_status === 'open'));
    const client = svc.client();
    const referenceIds = cachedReferenceIds(new ApiReferenceIds(client));
    const found = await referenceIds.idsOf('supplierShipment', open.map((s) => s.number));
    expect([...found.entries()].sort()).toEqual(open.map((s) => [s.number, s.id] as [string, number]).sort());
    const before = client.events.length;
    await referenceIds.idsOf('supplierShipment', open.map((s) => s.number));
    expect(client.events.length).toBe(before);
  });
});
