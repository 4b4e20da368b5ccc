import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWisbridgeError, writeStopOf } from '../../src/errors.js';
import type { WriteOutcome } from '../../src/client/index.js';
import { plainProducts, requestsTo, startTestService, type TestService } from './emulator-helpers.js';

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc.close();
});

describe('5,000 adjustments through injected faults', () => {
  it.each(['after', 'before'] as const)('applies every item exactly once or reports it uncertain (503 at 30 pct, 429 at 10 pct, resets at 5 pct %s processing)', async (phase) => {
    const skus = plainProducts(await svc.state('products')).slice(0, 50);
    const tag = `F${phase}-`;
    const items = Array.from({ length: 5_000 }, (_, i) => ({
      product_code: skus[i % skus.length], quantity: 1 + (i % 3), reference: `${tag}${i}`, company_code: 'ACME', reason: 'fault run',
    }));
    await svc.faults({ error_rate: 0.3, error_status: 503, rate_limit_rate: 0.1, retry_after_s: 1, reset_rate: 0.05, reset_phase: phase });
    const client = svc.client({ maxAttempts: 20, batchSize: 100 });
    let outcomes: WriteOutcome[];
    try {
      outcomes = await client.inventory.adjustments(items, { concurrency: 2 });
    } finally {
      await svc.faults({});
    }
    expect(outcomes).toHaveLength(5_000);
    const applied = new Map<string, number>();
    for (const a of (await svc.state('adjustments')).adjustments) {
      if (a.reference?.startsWith(tag)) applied.set(a.reference, (applied.get(a.reference) ?? 0) + 1);
    }
    let ok = 0;
    let uncertain = 0;
    for (const o of outcomes) {
      const times = applied.get(`${tag}${o.index}`) ?? 0;
      if (o.ok) {
        ok++;
        expect(times).toBe(1);
      } else {
        expect(o.uncertain).toBe(true);
        // reset before processing: never applied; after: applied once, never twice
        expect(times).toBeLessThanOrEqual(phase === 'before' ? 0 : 1);
        uncertain++;
      }
    }
    expect(ok + uncertain).toBe(5_000);
    expect(ok).toBeGreaterThan(0);
    // every item applied at most once overall: nothing was repeated blindly
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
    const ends = client.events.filter((e) => e.type === 'request-end');
    expect(ends.some((e) => e.type === 'request-end' && e.status === 429)).toBe(true);
    expect(ends.some((e) => e.type === 'request-end' && e.status === 503)).toBe(true);
    expect(requestsTo(client.events, 'inventory.adjustments')).toBeGreaterThan(50);
  });

  it('a service that stays unavailable ends the run with UNAVAILABLE, telling what was not applied', async () => {
    await svc.faults({ error_rate: 1, error_status: 503, path_prefix: '/v1/inventory/adjustments' });
    const client = svc.client({ maxAttempts: 3, batchSize: 2 });
    try {
      const error = await client.inventory.adjustments([
        { product_code: 'SKU-00001', quantity: 1, company_code: 'ACME' },
        { product_code: 'SKU-00001', quantity: 1, company_code: 'ACME' },
        { product_code: 'SKU-00001', quantity: 1, company_code: 'ACME' },
      ]).catch((e: unknown) => e);
      expect(isWisbridgeError(error, 'UNAVAILABLE')).toBe(true);
      expect(isWisbridgeError(error) ? error.details : undefined).toMatchObject({ notSent: [0, 1, 2], outcome: 'not-applied' });
      expect(requestsTo(client.events, 'inventory.adjustments')).toBe(3);
    } finally {
      await svc.faults({});
    }
  });

  it('shutdown aborts a write stuck on a slow service: ABORTED, the batch in flight reported uncertain', async () => {
    await svc.faults({ latency_ms: 30_000, path_prefix: '/v1/inventory/adjustments' });
    const client = svc.client();
    const controller = new AbortController();
    try {
      const pending = client.inventory.adjustments([{ product_code: 'SKU-00001', quantity: 1, company_code: 'ACME' }], { signal: controller.signal }).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 100);
      const error = await pending;
      expect(isWisbridgeError(error, 'ABORTED')).toBe(true);
      const outcomes = writeStopOf(error)?.outcomes;
      expect(outcomes).toHaveLength(1);
      expect(outcomes?.[0].uncertain).toBe(true);
    } finally {
      await svc.faults({});
    }
  });
});
