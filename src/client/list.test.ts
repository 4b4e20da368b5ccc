import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestsTo, startTestService, type TestService } from '../../test/client/emulator-helpers.js';
import { isWisbridgeError } from '../errors.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ scale: 'medium' });
});
afterAll(async () => {
  await svc.close();
});

describe('count-based paging (sliding window)', () => {
  it('hands the pages out in order, each requested once, the count read once by the listing, every record once', async () => {
    const client = svc.client();
    const total = await client.customerShipments.count({ status: 'pending' });
    const pages = Math.ceil(total / 100);
    expect(pages).toBeGreaterThan(5);
    await svc.faults({ latency_ms: 5 });
    try {
      const seen: number[] = [];
      const ids: number[] = [];
      for await (const page of client.pages('customerShipments.list', { status: 'pending' }, { concurrency: 3 })) {
        seen.push(page.page);
        ids.push(...page.records.map((r) => r.id));
      }
      expect(seen).toEqual(Array.from({ length: pages }, (_, i) => i + 1));
      expect(new Set(ids).size).toBe(total);
      expect(ids).toHaveLength(total);
      expect(requestsTo(client.events, 'customerShipments.list')).toBe(pages);
      expect(requestsTo(client.events, 'customerShipments.count')).toBe(2); // ours above, and the listing's
    } finally {
      await svc.faults({});
    }
  });

  it('a caller that stops early leaves only the bounded look-ahead requested, nothing after', async () => {
    const client = svc.client();
    const pages = Math.ceil((await client.customerShipments.count({ status: 'pending' })) / 100);
    let taken = 0;
    for await (const _ of client.pages('customerShipments.list', { status: 'pending' }, { concurrency: 2 })) {
      if (++taken === 2) break;
    }
    const requested = requestsTo(client.events, 'customerShipments.list');
    expect(pages).toBeGreaterThan(2 + 2 * 17);
    expect(requested).toBeLessThanOrEqual(2 + 2 * 17); // taken + concurrency × (1 + look-ahead per request)
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(requestsTo(client.events, 'customerShipments.list')).toBe(requested);
  });

  it('a page the service refuses ends the listing with that error', async () => {
    const client = svc.client();
    await svc.faults({ error_rate: 1, error_status: 400, path_prefix: '/v1/customer-shipments.json', times: 1 });
    try {
      const error = await (async () => {
        for await (const _ of client.pages('customerShipments.list', { status: 'pending' }, { concurrency: 4 }));
      })().catch((e: unknown) => e);
      expect(isWisbridgeError(error, 'BAD_REQUEST')).toBe(true);
    } finally {
      await svc.faults({});
    }
  });
});
