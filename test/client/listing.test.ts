import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { isWisbridgeError } from '../../src/errors.js';
import { requestsTo, startTestService, type TestService } from './emulator-helpers.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('listing against the emulator', () => {
  it('pages on has_more and returns every pending shipment exactly once', async () => {
    const state = await svc.state('customer_shipments');
    const expected = state.customer_shipments.filter((s) => s.warehouse_id === 1 && s.list_status === 'pending').map((s) => s.id).sort((a, b) => a - b);
    expect(expected.length).toBeGreaterThan(100); // more than one page
    const client = svc.client();
    const ids = (await collect(client.customerShipments.list())).map((s) => s.id);
    expect(ids.length).toBe(expected.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(expected);
    expect(requestsTo(client.events, 'customerShipments.list')).toBe(Math.ceil(expected.length / 100));
    expect(requestsTo(client.events, 'customerShipments.count')).toBe(0);
  });

  it('concurrent mode reads the count and returns the same records exactly once', async () => {
    const client = svc.client();
    const sequential = (await collect(client.customerShipments.list({ status: 'pending' }))).map((s) => s.id);
    const concurrent = (await collect(client.customerShipments.list({ status: 'pending' }, { concurrency: 4 }))).map((s) => s.id);
    expect(new Set(concurrent).size).toBe(concurrent.length);
    expect([...concurrent].sort()).toEqual([...sequential].sort());
    expect(requestsTo(client.events, 'customerShipments.count')).toBe(1);
    expect(await client.customerShipments.count({ status: 'pending' })).toBe(sequential.length);
  });

  it('products page sequentially (no count endpoint) and return every goods product once', async () => {
    const state = await svc.state('products');
    const goods = state.products.filter((p) => p.type === 'goods').map((p) => p.code).sort();
    const client = svc.client();
    const codes = (await collect(client.products.list({}, { concurrency: 4 }))).map((p) => p.code).sort();
    expect(codes).toEqual(goods);
    expect(client.events.some((e) => e.endpoint.endsWith('.count'))).toBe(false);
  });

  it('applies typed filters: ids, numbers, status', async () => {
    const state = await svc.state('customer_shipments');
    const some = state.customer_shipments.filter((s) => s.warehouse_id === 1 && s.list_status === 'open').slice(0, 3);
    const client = svc.client();
    const byIds = await collect(client.customerShipments.list({ status: 'open', ids: some.map((s) => s.id) }));
    expect(byIds.map((s) => s.id).sort()).toEqual(some.map((s) => s.id).sort());
    const byNumbers = await collect(client.customerShipments.list({ status: 'open', numbers: some.map((s) => s.number) }));
    expect(byNumbers.map((s) => s.number).sort()).toEqual(some.map((s) => s.number).sort());
    const inbound = await collect(client.inboundTransfers.list());
    expect(inbound.length).toBeGreaterThan(0);
  });

  it('refuses invalid filters before sending, with INVALID_REQUEST', async () => {
    const client = svc.client();
    // eslint-disable-next-line no-restricted-syntax -- deliberately not a status of the contract: the client must refuse it
    const error = await collect(client.customerShipments.list({ status: 'shipped' as never })).catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'INVALID_REQUEST')).toBe(true);
    expect((error as Error).message).toContain('status');
    expect(client.events).toHaveLength(0);
  });

  it('pages correctly through 503s, 429s and resets', async () => {
    const client = svc.client({ maxAttempts: 20 });
    const clean = (await collect(client.customerShipments.list({ status: 'pending' }))).map((s) => s.id).sort();
    await svc.faults({ error_rate: 0.3, error_status: 503, rate_limit_rate: 0.1, retry_after_s: 0, reset_rate: 0.05 });
    try {
      for (const concurrency of [1, 3]) {
        const faulty = (await collect(client.customerShipments.list({ status: 'pending' }, { concurrency }))).map((s) => s.id).sort();
        expect(faulty).toEqual(clean);
      }
    } finally {
      await svc.faults({});
    }
  });

  it('createClient reads the token from an environment variable', async () => {
    process.env.WISBRIDGE_TEST_CLIENT_TOKEN = svc.token;
    const client = await createClient({ baseUrl: svc.url, token: { env: 'WISBRIDGE_TEST_CLIENT_TOKEN' } });
    try {
      expect(await client.customerShipments.count({ status: 'pending' })).toBeGreaterThan(0);
    } finally {
      delete process.env.WISBRIDGE_TEST_CLIENT_TOKEN;
      await client.close();
    }
  });

  it('an expired token stops the listing with AUTHENTICATION, the token nowhere in the message', async () => {
    const token = svc.emulator.mintToken([1], -60);
    const client = svc.client({ token });
    const error = await collect(client.customerShipments.list()).catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'AUTHENTICATION')).toBe(true);
    expect((error as Error).message).not.toContain(token);
    expect(requestsTo(client.events, 'customerShipments.list')).toBe(1);
  });
});
