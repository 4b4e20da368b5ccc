import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/service/clock.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { WebhookSender, type AlertKind } from '../../src/service/webhook.js';
import { openJournal } from '../../src/journal/index.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { baseConfig, korrFile, memoryLogger, tempConfig, until, useCleanups } from './support.js';

const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const SECRET = 'hook-secret-7f3a9c';
const PATH_TOKEN = 'T0KEN-in-the-path-55b1';
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
  process.env.WISBRIDGE_TEST_HOOK_AUTH = `Bearer ${SECRET}`;
});

interface Received { path: string; headers: IncomingHttpHeaders; body: any }

/** A real HTTP receiver on 127.0.0.1: answers `statuses` in turn (then 200) and records every POST. */
async function receiver(statuses: number[] = []): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) });
      res.writeHead(statuses.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const hookYaml = (url: string, extra = '') => `alerts:
  webhook:
    url: ${url}
    headers: { Authorization: { env: WISBRIDGE_TEST_HOOK_AUTH } }
    backoff_ms: 10
    max_attempts: 3${extra}
`;

describe('webhook sender', () => {
  it('POSTs JSON with the secret headers, retries after a 500 with backoff, and gives up after max_attempts without logging secrets', async () => {
    const hook = await receiver([500, 503]);
    const env = await tempConfig(`${baseConfig(emu.url)}${hookYaml(`${hook.url}/hooks/wisbridge`)}`);
    cleanups.push(env.cleanup);
    const { logger, records } = memoryLogger();
    const sender = new WebhookSender(env.loaded, env.loaded.config.alerts!.webhook!, { logger });
    sender.send({ kind: 'file-failed', message: 'file A.csv: 1 row(s) failed', job: 'stock', file: 'A.csv', fileId: 7 });
    await sender.idle();
    expect(hook.received).toHaveLength(3);
    expect(new Set(hook.received.map((r) => JSON.stringify(r.body))).size).toBe(1);
    const [first] = hook.received;
    expect(first.path).toBe('/hooks/wisbridge');
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(first.body).toMatchObject({ source: 'wisbridge', kind: 'file-failed', severity: 'warning', job: 'stock', file: 'A.csv', fileId: 7, message: 'file A.csv: 1 row(s) failed' });
    expect(Date.parse(first.body.at)).not.toBeNaN();
    expect(records.filter((r) => r.msg === 'webhook: delivery failed; retrying').map((r) => r.err)).toEqual(['HTTP 500', 'HTTP 503']);
    expect(sender.stats).toMatchObject({ sent: 1, failed: 0, attempts: 3 });

    const refused = await receiver([400]);
    const down = new WebhookSender(env.loaded, { ...env.loaded.config.alerts!.webhook!, url: refused.url }, { logger });
    down.send({ kind: 'job-failed', message: 'x' });
    await down.idle();
    expect(refused.received).toHaveLength(1); // a 4xx other than 408/429 is not retried
    expect(down.stats).toMatchObject({ sent: 0, failed: 1 });
    expect(JSON.stringify(records)).not.toContain(SECRET);
  });

  it('a URL given by reference (it carries a token) is used but never logged, even when the receiver is unreachable', async () => {
    const hook = await receiver([502, 502, 502]);
    process.env.WISBRIDGE_TEST_HOOK_URL = `${hook.url}/${PATH_TOKEN}`;
    const env = await tempConfig(`${baseConfig(emu.url)}${hookYaml('{ env: WISBRIDGE_TEST_HOOK_URL }')}`);
    cleanups.push(env.cleanup);
    const { logger, records } = memoryLogger();
    const sender = new WebhookSender(env.loaded, env.loaded.config.alerts!.webhook!, { logger });
    sender.send({ kind: 'drop-unlistable', message: 'drop wms cannot be listed', drop: 'wms' });
    await sender.idle();
    expect(hook.received.map((r) => r.path)).toEqual([`/${PATH_TOKEN}`, `/${PATH_TOKEN}`, `/${PATH_TOKEN}`]);
    expect(records.find((r) => r.msg === 'webhook: alert not delivered; giving up')).toMatchObject({ attempts: 3, url: '(URL from a secret reference)' });

    process.env.WISBRIDGE_TEST_HOOK_URL = `http://127.0.0.1:9/${PATH_TOKEN}`; // nothing listens on port 9
    const unreachable = new WebhookSender(env.loaded, env.loaded.config.alerts!.webhook!, { logger });
    unreachable.send({ kind: 'drop-unlistable', message: 'x' });
    await unreachable.idle();
    expect(unreachable.stats).toMatchObject({ failed: 1, attempts: 3 });
    expect(JSON.stringify(records)).not.toContain(PATH_TOKEN);
    expect(JSON.stringify(records)).not.toContain(SECRET);
  });
});

describe('webhook severities', () => {
  it('each kind is POSTed with the severity the console\'s alert inbox gives the same incident (one table: alert-severity.ts)', async () => {
    const hook = await receiver();
    const env = await tempConfig(`${baseConfig(emu.url)}${hookYaml(hook.url)}`);
    cleanups.push(env.cleanup);
    // The inbox kind the service raises for each webhook kind's incident (service/alert-inbox.ts, lost-instances.ts, service.ts).
    const incidents: Array<[AlertKind, string]> = [
      ['file-failed', 'file-failed'], ['file-rejected', 'file-rejected'], ['rows-uncertain', 'rows-uncertain'], ['expected-file-missing', 'missed-file'],
      ['drop-unlistable', 'drop-unreachable'], ['job-failed', 'job-failed'], ['instance-lost', 'instance-lost'],
    ];
    const journal = await openJournal(join(env.dir, 'severities.sqlite'));
    cleanups.push(() => journal.close());
    const sender = new WebhookSender(env.loaded, env.loaded.config.alerts!.webhook!);
    for (const [kind, inboxKind] of incidents) {
      await journal.console.raiseAlert({ kind: inboxKind, subject: kind, message: kind });
      sender.send({ kind, message: kind });
    }
    await sender.idle();
    const inbox = new Map((await journal.console.listAlerts({ limit: 50 })).open.map((a) => [a.subject, a.severity]));
    expect(hook.received.map((r) => [r.body.kind, r.body.severity])).toEqual(incidents.map(([kind]) => [kind, inbox.get(kind)]));
    expect(Object.fromEntries(hook.received.map((r) => [r.body.kind, r.body.severity]))).toEqual({
      'file-failed': 'warning', 'file-rejected': 'critical', 'rows-uncertain': 'critical', 'expected-file-missing': 'critical',
      'drop-unlistable': 'critical', 'job-failed': 'critical', 'instance-lost': 'critical',
    });
  });
});

describe('alerts pushed by wisbridge run', () => {
  it('failed files, uncertain rows, a missing nightly file and a drop that cannot be listed each POST one alert', async () => {
    const hook = await receiver();
    const env = await tempConfig(`${baseConfig(emu.url, '\n    batch_size: 1')}  gone:
    type: local
    root: no-such-folder
    pollIntervalMs: 50
inbound:
  - name: stock
    drop: wms
    service: main
    mappings: [inventory-adjustments]
    expect:
      - pattern: "^STOCK_"
        cutoff: { cron: "0 6 * * *", timezone: UTC }
  - name: partner
    drop: gone
    service: main
${hookYaml(hook.url)}`);
    cleanups.push(env.cleanup);
    const clock = new ManualClock(Date.now());
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, clock, httpServer: false, watchRetryMs: 60_000 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    const kinds = () => hook.received.map((r) => r.body.kind);

    const unlistable = await until(() => hook.received.find((r) => r.body.kind === 'drop-unlistable'), 'drop alert');
    expect(unlistable.body).toMatchObject({ severity: 'critical', job: 'partner', drop: 'gone', code: 'DROP_NOT_FOUND' });

    // SKU-00004 has 100 on hand: -500 fails. Then a write whose answer is lost: uncertain.
    writeFileSync(join(env.dir, 'drop', 'inbox', 'KORR_a.csv'), korrFile([['SKU-00001', 1, 'A-1'], ['SKU-00004', -500, 'A-2']]));
    const failed = await until(() => hook.received.find((r) => r.body.kind === 'file-failed'), 'file-failed');
    expect(failed.body).toMatchObject({ job: 'stock', file: 'KORR_a.csv', rows: { ok: 1, error: 1, uncertain: 0 }, resultFile: 'KORR_a.result.csv' });
    expect(failed.body.fileId).toBeGreaterThan(0);
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    writeFileSync(join(env.dir, 'drop', 'inbox', 'KORR_b.csv'), korrFile([['SKU-00005', 3, 'B-1']]));
    const uncertain = await until(() => hook.received.find((r) => r.body.kind === 'rows-uncertain'), 'rows-uncertain');
    expect(uncertain.body).toMatchObject({ file: 'KORR_b.csv', rows: { uncertain: 1 }, uncertain: [{ lines: [2], key: 'SKU-00005', hint: expect.stringContaining('SKU-00005') }] });

    // The missing drop was polled every 50 ms all along: one alert per drop per hour (bridge clock), not one per poll.
    expect(kinds().filter((k) => k === 'drop-unlistable')).toHaveLength(1);
    await clock.advanceTo(nextSixUtc(clock.now()));
    const missing = await until(() => hook.received.find((r) => r.body.kind === 'expected-file-missing'), 'expected-file-missing');
    expect(missing.body).toMatchObject({ job: 'stock', pattern: '^STOCK_', severity: 'critical' });
    expect(hook.received.every((r) => r.headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    expect((await bridge.metrics.text())).toMatch(/wisbridge_webhook_alerts_total\{kind="file-failed",result="sent",instance="[^"]+"\} 1/);
  });
});

function nextSixUtc(now: number): number {
  const d = new Date(now);
  const six = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 6);
  return six > now ? six : six + 24 * 3600 * 1000;
}
