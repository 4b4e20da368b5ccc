import { describe, expect, it } from 'vitest';
import { endpoints, toQueryString } from '../../src/contract/index.js';
import { records, useEmulator } from '../support/emulator.js';

const emu = useEmulator();

const LISTS = Object.values(endpoints).filter((e) => e.style === 'list');

describe('list endpoints', () => {
  it('every list answers with its documented envelope and records that satisfy the contract', async () => {
    for (const e of LISTS) {
      const res = await emu.get(`${e.path}${e.id === 'inboundTransfers.list' ? '?status=all' : ''}`);
      expect(res.status, e.id).toBe(200);
      const parsed = e.response.safeParse(res.body);
      expect(parsed.success, `${e.id}: ${JSON.stringify(parsed.error?.issues?.slice(0, 3))}`).toBe(true);
      expect(Array.isArray(res.body[e.envelopeKey]), e.id).toBe(true);
      expect(res.body[e.envelopeKey].length, e.id).toBeGreaterThan(0);
    }
    const products = await emu.get('/v1/products.json');
    expect(products.body.data).toBeUndefined();
    expect(products.body.products).toHaveLength(100);
  });

  it('pages hold 100 records, page is 1-indexed and has_more turns false on the last page', async () => {
    const seen = new Set<number>();
    let page = 1;
    let more = true;
    while (more) {
      const res = await emu.get(`/v1/customer-shipments.json?page=${page}`);
      expect(res.status).toBe(200);
      if (res.body.has_more) expect(res.body.data).toHaveLength(100);
      for (const r of res.body.data) seen.add(r.id);
      more = res.body.has_more;
      page++;
    }
    const count = await emu.get('/v1/customer-shipments/count.json');
    expect(seen.size).toBe(count.body.count);
    expect(count.body.count).toBeGreaterThan(100);
    const first = await emu.get('/v1/customer-shipments.json');
    const explicit = await emu.get('/v1/customer-shipments.json?page=1');
    expect(first.body.data.map((r: any) => r.id)).toEqual(explicit.body.data.map((r: any) => r.id));
    expect((await emu.get('/v1/customer-shipments.json?page=0')).status).toBe(400);
    expect((await emu.get('/v1/customer-shipments.json?page=abc')).status).toBe(400);
    const beyond = await emu.get('/v1/customer-shipments.json?page=999');
    expect(beyond.body).toEqual({ data: [], has_more: false });
  });

  it('products lists only goods', async () => {
    const all = await emu.get('/v1/products.json?page=3');
    const state = await emu.request('GET', '/_admin/state?only=products', undefined, { token: null });
    const types = new Map<number, string>(state.body.products.map((p: any) => [p.id, p.type]));
    expect([...types.values()].some((t) => t !== 'goods')).toBe(true);
    let page = 1;
    const listed: number[] = [];
    for (;;) {
      const res = await emu.get(`/v1/products.json?page=${page++}`);
      listed.push(...res.body.products.map((p: any) => p.id));
      if (!res.body.has_more) break;
    }
    expect(listed.every((id) => types.get(id) === 'goods')).toBe(true);
    expect(listed.length).toBe([...types.values()].filter((t) => t === 'goods').length);
    expect(all.status).toBe(200);
  });

  it('serves GET /v1/products/count.json (the products table lists it) with the list\'s filters; the bridge\'s client has no such endpoint', async () => {
    const goods = (await emu.request('GET', '/_admin/state?only=products', undefined, { token: null })).body.products.filter((p: any) => p.type === 'goods');
    const all = await emu.get('/v1/products/count.json');
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ count: goods.length });
    const times = goods.map((p: any) => p.updated_at).sort();
    const since = times[times.length - 10];
    expect((await emu.get(`/v1/products/count.json?updated_at_min=${encodeURIComponent(since)}`)).body).toEqual({ count: 10 });
    expect((await emu.get('/v1/products/count.json?updated_at_min=yesterday')).status).toBe(400);
    expect((await emu.request('PUT', '/v1/products/count.json', {})).status).toBe(405);
    expect('products.count' in endpoints).toBe(false);
  });

  it('count variants return {count} and honour the same filters as the list', async () => {
    for (const e of Object.values(endpoints).filter((x) => x.style === 'count')) {
      const res = await emu.get(e.path);
      expect(res.status, e.id).toBe(200);
      expect(Number.isInteger(res.body.count), e.id).toBe(true);
    }
    const open = await emu.get('/v1/customer-shipments/count.json?status=open');
    const openList = await emu.get('/v1/customer-shipments.json?status=open');
    expect(open.body.count).toBe(openList.body.data.length);
    expect((await emu.get('/v1/customer-return-shipments/count.json')).body.count).toBeGreaterThan(0);
  });

  it('status filters: documented values, defaults, and refusal of others', async () => {
    const cases: [string, string[], string][] = [
      ['/v1/customer-shipments', ['pending', 'open', 'done', 'canceled'], 'pending'],
      ['/v1/outbound-transfers', ['pending', 'open', 'done'], 'pending'],
      ['/v1/inbound-transfers', ['all', 'pending', 'open'], 'all'],
      ['/v1/supplier-shipments', ['pending', 'open', 'done'], 'pending'],
      ['/v1/customer-return-shipments', ['pending', 'open', 'done', 'canceled'], 'pending'],
    ];
    for (const [path, allowed, def] of cases) {
      for (const status of allowed) {
        const res = await emu.get(`${path}.json?status=${status}`);
        expect(res.status, `${path} ${status}`).toBe(200);
        const expected = status === 'all' ? ['pending', 'open', 'done'] : [status];
        for (const r of res.body.data) expect(expected, `${path} ${status}`).toContain(r.status);
      }
      expect((await emu.get(`${path}.json?status=bogus`)).status).toBe(400);
      const byDefault = await emu.get(`${path}/count.json`);
      const explicit = await emu.get(`${path}/count.json?status=${def}`);
      expect(byDefault.body.count, path).toBe(explicit.body.count);
    }
    expect((await emu.get('/v1/outbound-transfers.json?status=canceled')).status).toBe(400);
    expect((await emu.get('/v1/inbound-transfers.json?status=done')).status).toBe(400);
  });

  it('inbound transfers list needs at least one query parameter; all = shipped plus done', async () => {
    const none = await emu.get('/v1/inbound-transfers.json');
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('query_required');
    const all = await emu.get('/v1/inbound-transfers.json?status=all');
    const statuses = new Set(all.body.data.map((r: any) => r.status));
    expect(statuses).toEqual(new Set(['pending', 'open', 'done']));
    expect((await emu.get('/v1/inbound-transfers.json?page=1')).status).toBe(200);
  });

  it('ids and numbers filter by comma-separated values', async () => {
    const page = await emu.get('/v1/customer-shipments.json');
    const [a, b, c] = page.body.data;
    const byIds = await emu.get(`/v1/customer-shipments.json${toQueryString({ ids: [a.id, c.id] })}`);
    expect(byIds.body.data.map((r: any) => r.id)).toEqual([a.id, c.id]);
    const byNumbers = await emu.get(`/v1/customer-shipments.json?numbers=${b.number},${c.number}`);
    expect(byNumbers.body.data.map((r: any) => r.number)).toEqual([b.number, c.number]);
    expect((await emu.get('/v1/customer-shipments.json?ids=1,abc')).status).toBe(400);
  });

  it('planned_date_min/max are inclusive', async () => {
    const all = await records(emu, 'customer_shipments');
    const page = await emu.get('/v1/customer-shipments.json');
    const date = page.body.data[0].planned_date;
    const res = await emu.get(`/v1/customer-shipments/count.json?planned_date_min=${date}&planned_date_max=${date}`);
    const list = await emu.get(`/v1/customer-shipments.json?planned_date_min=${date}&planned_date_max=${date}`);
    expect(res.body.count).toBeGreaterThan(0);
    expect(list.body.data.every((r: any) => r.planned_date === date)).toBe(true);
    expect(all.length).toBeGreaterThan(res.body.count);
    expect((await emu.get('/v1/customer-shipments.json?planned_date_min=2026-02-30')).status).toBe(400);
  });

  it('updated_at_min/max filter on the update timestamp (with or without offset)', async () => {
    const page = await emu.get('/v1/customer-shipments.json');
    const t = page.body.data[50].updated_at as string;
    const after = await emu.get(`/v1/customer-shipments.json?updated_at_min=${encodeURIComponent(t)}`);
    expect(after.body.data.every((r: any) => r.updated_at >= t)).toBe(true);
    expect(after.body.data[0].id).toBe(page.body.data[50].id);
    const before = await emu.get(`/v1/customer-shipments/count.json?updated_at_max=${encodeURIComponent(t.replace('+00:00', ''))}`);
    expect(before.body.count).toBe(51);
    expect((await emu.get('/v1/customer-shipments.json?updated_at_min=yesterday')).status).toBe(400);
    const products = await emu.get(`/v1/products.json?updated_at_min=2099-01-01T00:00:00Z`);
    expect(products.body).toEqual({ products: [], has_more: false });
  });

  it('carrier_service filters customer shipments by service code', async () => {
    const res = await emu.get('/v1/customer-shipments.json?carrier_service=DHL_EXPRESS');
    expect(res.body.data.length).toBeGreaterThan(0);
    expect(res.body.data.every((r: any) => r.service_code === 'DHL_EXPRESS')).toBe(true);
  });

  it('field types: integers, decimal strings, YYYY-MM-DD dates, timestamps with an offset', async () => {
    const p = (await emu.get('/v1/products.json')).body.products[0];
    expect(typeof p.list_price).toBe('string');
    expect(p.list_price).toMatch(/^\d+\.\d{2}$/);
    expect(typeof p.customs_information.customs_value).toBe('string');
    expect(Number.isInteger(p.quantity_per_case)).toBe(true);
    const types = new Set((await emu.get('/v1/products.json?page=2')).body.products.flatMap((x: any) => x.codes.map((c: any) => c.type)));
    expect(types).toEqual(new Set(['3pl_sku', 'upc', 'buyer_sku']));
    expect(typeof p.dangerous_goods).toBe('object');
    expect(Array.isArray(p.metafields)).toBe(true);
    const s = (await emu.get('/v1/customer-shipments.json')).body.data[0];
    expect(s.planned_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(s.updated_at).toMatch(/[+-]\d\d:\d\d$/);
    expect(typeof s.lines[0].quantity).toBe('number');
    const ot = (await emu.get('/v1/outbound-transfers.json')).body.data[0];
    expect(typeof ot.lines[0].customs_value).toBe('string');
  });
});
