import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestsTo, startTestService, type TestService } from './emulator-helpers.js';
import { WisbridgeError, isWisbridgeError } from '../../src/errors.js';
import { pageOfBody, pageOfText } from '../../src/client/list.js';

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
    // Shown by a positive event: every request started has ended (answered or aborted), and the window's callbacks
    // that run on an end have run; only they could start another request.
    const ended = () => client.events.filter((e) => e.type === 'request-end' && e.endpoint === 'customerShipments.list').length;
    for (let tries = 0; ended() < requested && tries < 1000; tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ended()).toBe(requested);
    await new Promise((resolve) => setImmediate(resolve));
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

describe('pages decoded by the caller (decodedPages)', () => {
  it('hands each page body to the decoder once, as bytes of its own, in page order, with the same records as pages()', async () => {
    const client = svc.client();
    const expected: number[] = [];
    for await (const page of client.pages('customerShipments.list', { status: 'pending' }, { concurrency: 3 })) expected.push(...page.records.map((r) => r.id));
    const decodedPages: number[] = [];
    const ids: number[] = [];
    const decode = async (body: ArrayBuffer, page: number) => {
      decodedPages.push(page);
      expect(body).toBeInstanceOf(ArrayBuffer);
      const { records, hasMore } = pageOfBody('customerShipments.list', body);
      const size = body.byteLength;
      expect(structuredClone(body, { transfer: [body] }).byteLength).toBe(size); // its own buffer: transferable
      expect(body.byteLength).toBe(0);
      return { hasMore, ids: records.map((r) => r.id), data: records.length };
    };
    const handed: number[] = [];
    for await (const page of client.decodedPages('customerShipments.list', { status: 'pending' }, decode, { concurrency: 3 })) {
      handed.push(page.page);
      expect(page.repeated.size).toBe(0);
      expect(page.data).toBe(page.ids.length);
      ids.push(...Array.from(page.ids));
    }
    expect(ids).toEqual(expected);
    expect(handed).toEqual(Array.from({ length: handed.length }, (_, i) => i + 1));
    expect([...decodedPages].sort((a, b) => a - b)).toEqual(handed);
  });

  it('onCount: the count, once, before the first page is handed out; not called when paging on has_more', async () => {
    const client = svc.client();
    const seen: string[] = [];
    const total = await client.count('customerShipments.count', { status: 'pending' });
    const onCount = (n: number) => seen.push(`count ${n}`);
    for await (const page of client.pages('customerShipments.list', { status: 'pending' }, { concurrency: 3, onCount })) seen.push(`page ${page.page}`);
    expect(seen[0]).toBe(`count ${total}`);
    expect(seen.filter((s) => s.startsWith('count'))).toHaveLength(1);
    expect(seen[1]).toBe('page 1');
    seen.length = 0;
    for await (const page of client.pages('customerShipments.list', { status: 'pending' }, { concurrency: 1, onCount })) seen.push(`page ${page.page}`);
    expect(seen.every((s) => s.startsWith('page'))).toBe(true);
  });

  it('a page the decoder refuses ends the listing with its error', async () => {
    const client = svc.client();
    const decode = async (body: ArrayBuffer, page: number) => {
      if (page === 3) throw new WisbridgeError('CONTRACT_VIOLATION', 'page 3 refused', { details: { endpoint: 'customerShipments.list' } });
      const { records, hasMore } = pageOfBody('customerShipments.list', body);
      return { hasMore, ids: records.map((r) => r.id), data: undefined };
    };
    const handed: number[] = [];
    const error = await (async () => {
      for await (const page of client.decodedPages('customerShipments.list', { status: 'pending' }, decode, { concurrency: 4 })) handed.push(page.page);
    })().catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'CONTRACT_VIOLATION')).toBe(true);
    expect(handed).toEqual([1, 2]);
  });

  it('pageOfText: a body that is not JSON is a contract violation that does not quote the body', () => {
    let error: unknown;
    try {
      pageOfText('customerShipments.list', 'secret-token-text {');
    } catch (e) {
      error = e;
    }
    expect(isWisbridgeError(error, 'CONTRACT_VIOLATION')).toBe(true);
    expect((error as Error).message).not.toContain('secret');
  });

  it('pageOfBody: UTF-8 with or without a BOM reads like the text', () => {
    const text = JSON.stringify({ data: [], has_more: false });
    const bytes = (s: string) => new TextEncoder().encode(s).buffer as ArrayBuffer;
    expect(pageOfBody('customerShipments.list', bytes(text))).toEqual(pageOfText('customerShipments.list', text));
    expect(pageOfBody('customerShipments.list', bytes('\uFEFF' + text))).toEqual({ records: [], hasMore: false });
  });
});
