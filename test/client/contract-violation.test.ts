import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WisClient } from '../../src/client/index.js';
import { isWisbridgeError, writeStopOf } from '../../src/errors.js';
import { startFakeServer, type FakeServer } from './fake-server.js';

// A service that breaks the contract cannot be produced with the emulator: a loopback fake answers instead.

let server: FakeServer;
let client: WisClient;

beforeAll(async () => {
  server = await startFakeServer();
  client = new WisClient({ baseUrl: server.url, token: 'tok-123456', baseDelayMs: 1, maxDelayMs: 2 });
});
afterAll(async () => {
  await client.close(true);
  await server.close();
});

describe('responses that break the contract', () => {
  it('a list page with a bad field names endpoint, field path and value', async () => {
    server.script([{ status: 200, json: { data: [{ id: 1, number: 'SO-1', planned_date: '2026-13-45' }], has_more: false } }]);
    const error = await (async () => {
      for await (const _ of client.customerShipments.list()) void _;
    })().catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'CONTRACT_VIOLATION')).toBe(true);
    expect((error as Error).message).toMatch(/customerShipments\.list: response field data\.0\.\w+/);
  });

  it('a write answer with too few items stops the run; the batch is reported uncertain', async () => {
    server.script([{ status: 200, json: { shipments: [{ id: 1, acknowledged_at: '2026-11-22T10:00:00Z', errors: null }] } }]);
    const error = await client.customerShipments.acknowledge([{ id: 1 }, { id: 2 }]).catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'CONTRACT_VIOLATION')).toBe(true);
    expect((error as Error).message).toContain('answered 1 items for 2 sent');
    expect(writeStopOf(error)?.outcomes.map((o) => o.uncertain)).toEqual([true, true]);
  });

  it('a count that is not a number is a CONTRACT_VIOLATION showing the value', async () => {
    server.script([{ status: 200, json: { count: 'many' } }]);
    const error = await client.customerShipments.count().catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'CONTRACT_VIOLATION')).toBe(true);
    expect((error as Error).message).toContain('"many"');
  });
});
