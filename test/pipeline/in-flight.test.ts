import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { UNASKABLE_REQUESTS_IN_FLIGHT } from '../../src/pipeline/requests-in-flight.js';
import { startEmulatorProcess } from '../chaos/processes.js';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { korr, runInboundOnce, workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => { s.close(() => resolve()); s.closeAllConnections(); });
});

/** A pass-through HTTP proxy to the emulator that counts the adjustment writes outstanding at once. */
async function countingProxy(target: string): Promise<{ url: string; most: () => number; writes: () => number }> {
  let now = 0;
  let most = 0;
  let writes = 0;
  const server = createServer((req, res) => {
    const counted = req.method === 'POST' && req.url?.startsWith('/v1/inventory/adjustments') === true;
    if (counted) {
      writes++;
      most = Math.max(most, ++now);
    }
    const upstream = request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('end', () => {
        if (counted) now--;
      });
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, most: () => most, writes: () => writes };
}

const SKUS = ['SKU-00001', 'SKU-00002', 'SKU-00004'];
const rowsOf = (count: number) => Array.from({ length: count }, (_, i) => `${SKUS[i % 3]};${i + 1};Fund;F-${i};19.11.2026;;ACME`);

describe('services.<name>.requests_in_flight: write requests of one file outstanding at once', () => {
  it.each([1, 2, 3])('%i: never more, and that many while the service is slow to answer', async (inFlight) => {
    const proxy = await countingProxy(emu.url);
    await setFaults(emu, { latency_ms: 150, path_prefix: '/v1/inventory' });
    const ws = workspace({ url: proxy.url, token: emu.token, batchSize: 4, requestsInFlight: inFlight });
    ws.drop('KORR_WINDOW.csv', korr(rowsOf(24)));
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.rows).toEqual({ ok: 24, error: 0, skipped: 0, uncertain: 0 });
    expect(proxy.writes()).toBe(6);
    expect(proxy.most()).toBe(inFlight);
  });

  it('a crash would leave at most that many of the file\'s requests in doubt: the journal never holds more recorded as sent', async () => {
    await setFaults(emu, { latency_ms: 60, path_prefix: '/v1/inventory' });
    const ws = workspace({ url: emu.url, token: emu.token, batchSize: 1, requestsInFlight: 3 });
    ws.drop('KORR_DOUBT.csv', korr(rowsOf(30)));
    const run = runInboundOnce(ws);
    let most = 0;
    let polls = 0;
    let over = false;
    void run.finally(() => (over = true));
    // Read beside the bridge's own connection (WAL), between its turns of the event loop.
    let journal: Database.Database | undefined;
    while (!over) {
      if (!journal && existsSync(join(ws.dir, 'journal.sqlite'))) journal = new Database(join(ws.dir, 'journal.sqlite'), { readonly: true, fileMustExist: true });
      if (journal) {
        try {
          most = Math.max(most, (journal.prepare("SELECT count(*) AS n FROM requests WHERE status = 'sent'").get() as { n: number }).n);
          polls++;
        } catch {
          // The schema is not there yet.
        }
      }
      await new Promise((r) => setImmediate(r));
    }
    journal?.close();
    expect((await run).files[0].rows).toEqual({ ok: 30, error: 0, skipped: 0, uncertain: 0 });
    expect(polls).toBeGreaterThan(30);
    expect(most).toBe(3);
  });

  // More than `concurrency` (default 5) sockets: the client opens as many connections as the window needs.
  it.each([8, 32])('%i: beyond the listings\' concurrency, every request of the window is on the wire at once', async (inFlight) => {
    const proxy = await countingProxy(emu.url);
    await setFaults(emu, { latency_ms: 300, path_prefix: '/v1/inventory' });
    const ws = workspace({ url: proxy.url, token: emu.token, batchSize: 1, requestsInFlight: inFlight });
    ws.drop('KORR_WINDOW.csv', korr(rowsOf(2 * inFlight)));
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.rows).toEqual({ ok: 2 * inFlight, error: 0, skipped: 0, uncertain: 0 });
    expect(proxy.writes()).toBe(2 * inFlight);
    expect(proxy.most()).toBe(inFlight);
  });
});

describe('writes the service cannot be asked about (adjustments, counts): 2 in flight unless configured', () => {
  it('an adjustments file with no requests_in_flight configured has at most 2 requests on the wire', async () => {
    const proxy = await countingProxy(emu.url);
    await setFaults(emu, { latency_ms: 150, path_prefix: '/v1/inventory' });
    const ws = workspace({ url: proxy.url, token: emu.token, batchSize: 2 });
    ws.drop('KORR_DEFAULT.csv', korr(rowsOf(20)));
    const file = (await runInboundOnce(ws)).files[0];
    expect(file.rows).toEqual({ ok: 20, error: 0, skipped: 0, uncertain: 0 });
    expect(proxy.most()).toBe(UNASKABLE_REQUESTS_IN_FLIGHT);
  });

  it('the service killed mid-file: only requests on the wire are in doubt; those refused at connect are retried, never uncertain', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wb-killed-'));
    const options = { scale: 'small' as const, seed: 1, logFile: join(dir, 'emulator.log'), db: join(dir, 'emulator.sqlite') };
    let service = await startEmulatorProcess(options);
    const url = service.url;
    try {
      await setFaults({ url }, { latency_ms: 200, path_prefix: '/v1/inventory' });
      // Attempts enough to outlast the restart: requests refused meanwhile are retried, not given up.
      const ws = workspace({ url, token: service.token, batchSize: 4, maxAttempts: 14 });
      ws.drop('KORR_KILLED.csv', korr(rowsOf(60)));
      const run = runInboundOnce(ws);
      const applied = async () => ((await adminState({ url }, ['adjustments'])).adjustments as Array<{ reference: string }>)
        .filter((a) => a.reference.startsWith('F-'));
      while ((await applied()).length < 8) await new Promise((r) => setTimeout(r, 20));
      // kill -9 with requests on the wire; back on the same port and state while the refused requests are retried.
      service.child.kill('SIGKILL');
      await new Promise((r) => service.child.once('exit', r));
      service = await startEmulatorProcess({ ...options, port: Number(new URL(url).port) });
      const file = (await run).files[0];
      const counts = new Map<string, number>();
      for (const a of await applied()) counts.set(a.reference, (counts.get(a.reference) ?? 0) + 1);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const result = ws.result('KORR_KILLED.result.csv');
      expect(result).toHaveLength(60);
      const uncertain = result.filter((r) => r.status === 'uncertain');
      // At most the requests on the wire at the kill (2 of 4 rows); every other row went through, once.
      expect(uncertain.length).toBeLessThanOrEqual(UNASKABLE_REQUESTS_IN_FLIGHT * 4);
      expect(result.filter((r) => r.status !== 'uncertain').every((r) => r.status === 'ok' && counts.get(`F-${Number(r.line) - 2}`) === 1)).toBe(true);
      expect(file.rows.error).toBe(0);
      expect(file.rows.ok + file.rows.uncertain).toBe(60);
    } finally {
      await service.stop();
    }
  });
});
