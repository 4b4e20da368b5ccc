import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callOutcomeOf, isWisbridgeError, WisbridgeError } from '../../src/errors.js';
import { Transport, type ClientEvent, type TransportOptions } from '../../src/client/transport.js';
import { startFakeServer, type FakeServer } from './fake-server.js';

// Transport-level behaviour (retries, resets, timeouts, auth) against a real node:http server on loopback.

const TOKEN = 'secret-token-abc123';
let server: FakeServer;
const transports: Transport[] = [];

function transport(extra: Partial<TransportOptions> = {}): Transport {
  const t = new Transport({ baseUrl: server.url, token: TOKEN, baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 5, ...extra });
  transports.push(t);
  return t;
}

async function failure(promise: Promise<unknown>): Promise<WisbridgeError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!isWisbridgeError(error)) throw new Error(`expected a WisbridgeError, got ${String(error)}`);
  return error;
}

const post = { endpoint: 'inventory.adjustments', method: 'POST', path: '/v1/inventory/adjustments.json', body: { adjustments: [] } } as const;
const get = { endpoint: 'customerShipments.list', method: 'GET', path: '/v1/customer-shipments.json?status=pending', retry: 'read' } as const;

beforeAll(async () => {
  server = await startFakeServer();
});
beforeEach(() => {
  server.seen.length = 0;
});
afterAll(async () => {
  await Promise.all(transports.map((t) => t.close(true)));
  await server.close();
});

describe('transport', () => {
  it('sends the token as Bearer and JSON bodies', async () => {
    server.script([{ status: 200, json: { ok: 1 } }]);
    const res = await transport().send({ ...post, retry: 'unsafe' });
    expect(res.json).toEqual({ ok: 1 });
    expect(server.seen[0].authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(server.seen[0].body)).toEqual({ adjustments: [] });
  });

  it('honours 429 Retry-After and retries 503 even for unsafe writes (nothing was applied)', async () => {
    server.script([{ status: 429, headers: { 'retry-after': '0' } }, { status: 503 }, { status: 200, json: { done: true } }]);
    const events: ClientEvent[] = [];
    const res = await transport({ onEvent: (e) => events.push(e) }).send({ ...post, retry: 'unsafe' });
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(3);
    expect(server.seen).toHaveLength(3);
    const ends = events.filter((e) => e.type === 'request-end');
    expect(ends.map((e) => (e.type === 'request-end' ? [e.status, e.result, e.retries] : []))).toEqual([
      [429, 'retry', 0], [503, 'retry', 1], [200, 'ok', 2],
    ]);
  });

  it('stops after maxAttempts with UNAVAILABLE and outcome not-applied', async () => {
    server.script([{ status: 503 }]);
    const error = await failure(transport({ maxAttempts: 4 }).send({ ...post, retry: 'unsafe' }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(callOutcomeOf(error)).toBe('not-applied');
    expect(server.seen).toHaveLength(4);
  });

  it('gives up with RATE_LIMITED when Retry-After exceeds the allowed wait', async () => {
    server.script([{ status: 429, headers: { 'retry-after': '120' } }]);
    const error = await failure(transport({ maxRetryAfterMs: 1_000 }).send({ ...get }));
    expect(error.code).toBe('RATE_LIMITED');
    expect(server.seen).toHaveLength(1);
  });

  it('never retries other 4xx: the answer is handed back once', async () => {
    server.script([{ status: 400, json: { error: { status: 400, code: 'bad_request', message: 'nope' } } }]);
    const res = await transport().send({ ...post, retry: 'repeatable' });
    expect(res.status).toBe(400);
    expect(server.seen).toHaveLength(1);
  });

  it('reports a connection reset after sending an unsafe write as UNCERTAIN_OUTCOME, sent once', async () => {
    server.script([{ reset: true }, { status: 200, json: {} }]);
    const error = await failure(transport().send({ ...post, retry: 'unsafe' }));
    expect(error.code).toBe('UNCERTAIN_OUTCOME');
    expect(callOutcomeOf(error)).toBe('unknown');
    expect(server.seen).toHaveLength(1);
  });

  it('repeats reads and repeatable writes after a reset', async () => {
    server.script([{ reset: true }, { status: 200, json: { data: [], has_more: false } }]);
    expect((await transport().send({ ...get })).json).toEqual({ data: [], has_more: false });
    server.script([{ reset: true }, { status: 200, json: {} }]);
    expect((await transport().send({ ...post, retry: 'repeatable' })).attempts).toBe(2);
  });

  it('treats 502/504 as unknown outcome for unsafe writes, retries them for reads', async () => {
    server.script([{ status: 502 }]);
    expect((await failure(transport().send({ ...post, retry: 'unsafe' }))).code).toBe('UNCERTAIN_OUTCOME');
    expect(server.seen).toHaveLength(1);
    server.script([{ status: 504 }, { status: 200, json: { count: 1 } }]);
    expect((await transport().send({ ...get })).json).toEqual({ count: 1 });
  });

  // undici's headers timeout runs on coarse timers (~0.5-1 s), so the slow answer is far slower than that.
  it('times out a slow answer: uncertain for unsafe writes, retried for reads', async () => {
    server.script([{ delayMs: 5_000, status: 200, json: {} }]);
    const error = await failure(transport({ requestTimeoutMs: 100 }).send({ ...post, retry: 'unsafe' }));
    expect(error.code).toBe('UNCERTAIN_OUTCOME');
    expect(error.message).toMatch(/timeout/i);
    server.script([{ delayMs: 5_000, status: 200, json: {} }, { status: 200, json: { fine: true } }]);
    expect((await transport({ requestTimeoutMs: 100 }).send({ ...get })).json).toEqual({ fine: true });
  });

  it('401 is AUTHENTICATION, not retried, and never shows the token', async () => {
    server.script([{ status: 401, json: { error: { status: 401, code: 'unauthorized', message: `bad token ${TOKEN}` } } }]);
    const error = await failure(transport().send({ ...get }));
    expect(error.code).toBe('AUTHENTICATION');
    expect(error.message).not.toContain(TOKEN);
    expect(JSON.stringify(error.details)).not.toContain(TOKEN);
    expect(server.seen).toHaveLength(1);
  });

  it('garbage JSON is a CONTRACT_VIOLATION naming the endpoint', async () => {
    server.script([{ status: 200, raw: '<html>oops' }]);
    const error = await failure(transport().send({ ...get }));
    expect(error.code).toBe('CONTRACT_VIOLATION');
    expect(error.message).toContain('customerShipments.list');
    expect(error.message).toContain('<html>oops');
  });

  it('connection refused is retried then UNAVAILABLE, nothing applied', async () => {
    const dead = new Transport({ baseUrl: 'http://127.0.0.1:1', token: TOKEN, baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 });
    transports.push(dead);
    const error = await failure(dead.send({ ...post, retry: 'unsafe' }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.details).toMatchObject({ outcome: 'not-applied', attempts: 3 });
  });

  it('an abort signal ends a hanging request with ABORTED; a deadline with TIMEOUT', async () => {
    server.script([{ delayMs: 30_000, status: 200, json: {} }]);
    const controller = new AbortController();
    const pending = failure(transport().send({ ...get, signal: controller.signal }));
    setTimeout(() => controller.abort(), 50);
    expect((await pending).code).toBe('ABORTED');
    const late = await failure(transport().send({ ...post, retry: 'unsafe', deadline: Date.now() + 100 }));
    expect(late.code).toBe('TIMEOUT');
    expect(callOutcomeOf(late)).toBe('unknown');
  });

  it('caps the connections of the pool', async () => {
    server.script([{ delayMs: 20, status: 200, json: {} }]);
    server.sockets.clear();
    const t = transport({ connections: 2 });
    await Promise.all(Array.from({ length: 12 }, () => t.send({ ...get })));
    expect(server.seen).toHaveLength(12);
    expect(new Set(server.seen.map((s) => s.socket)).size).toBeLessThanOrEqual(2);
  });

  it('serialises to JSON without the token', () => {
    const t = transport();
    expect(JSON.stringify(t)).not.toContain(TOKEN);
  });
});

describe('transport outcome bookkeeping', () => {
  it('a repeatable write that once lost its answer stays of unknown outcome even if later attempts were refused', async () => {
    server.script([{ reset: true }, { status: 503 }]);
    const error = await failure(transport({ maxAttempts: 3 }).send({ ...post, retry: 'repeatable' }));
    expect(error.code).toBe('UNCERTAIN_OUTCOME');
    expect(callOutcomeOf(error)).toBe('unknown');
    expect(server.seen).toHaveLength(3);
  });

  it('a read that keeps failing is UNAVAILABLE, never uncertain', async () => {
    server.script([{ reset: true }]);
    const error = await failure(transport({ maxAttempts: 2 }).send({ ...get }));
    expect(error.code).toBe('UNAVAILABLE');
    expect(callOutcomeOf(error)).toBe('not-applied');
  });
});

describe('transport lifecycle', () => {
  it('leaves no listener on the client-wide shutdown signal after requests and retries', async () => {
    const shutdown = new AbortController();
    const t = transport({ signal: shutdown.signal });
    server.script([{ status: 503 }, { status: 200, json: {} }]);
    await t.send({ ...get, deadline: Date.now() + 10_000 });
    server.script([{ status: 200, json: {} }]);
    await Promise.all(Array.from({ length: 20 }, () => t.send({ ...get, deadline: Date.now() + 10_000 })));
    // one listener for the client's lifetime, none left per request
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    server.script([{ delayMs: 30_000, status: 200, json: {} }]);
    const pending = failure(t.send({ ...get }));
    setTimeout(() => shutdown.abort(), 50);
    expect((await pending).code).toBe('ABORTED');
  });

  it('a closed client answers ABORTED instead of retrying', async () => {
    const t = transport();
    await t.close();
    const error = await failure(t.send({ ...post, retry: 'unsafe' }));
    expect(error.code).toBe('ABORTED');
    expect(server.seen).toHaveLength(0);
  });
});

describe('client configuration', () => {
  it('keeps a path prefix of the base URL', async () => {
    server.script([{ status: 200, json: {} }]);
    await transport({ baseUrl: `${server.url}/api/` }).send({ ...get });
    expect(server.seen[0].url).toBe('/api/v1/customer-shipments.json?status=pending');
  });

  it('refuses a bad base URL or an empty token with CONFIG_INVALID', async () => {
    const { WisClient } = await import('../../src/client/index.js');
    expect(() => new WisClient({ baseUrl: 'not a url', token: 't' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => new WisClient({ baseUrl: 'ftp://x', token: 't' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => new WisClient({ baseUrl: server.url, token: ' ' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
