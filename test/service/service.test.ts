import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInboundJob } from '../../src/pipeline/index.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { ManualClock } from '../../src/service/clock.js';
import { redriveFile } from '../../src/pipeline/index.js';
import { resolveRows } from '../../src/pipeline/index.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { formatStatus, statusReport } from '../../src/service/status.js';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { baseConfig, korrFile, memoryLogger, stockConfig, tempConfig, until, useCleanups } from './support.js';

const emu = useEmulator({ resetEachTest: true });
const root = resolve(import.meta.dirname, '../..');
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const config = (url: string) => stockConfig(url);

async function adjustmentsByReference(): Promise<Map<string, number>> {
  const state = await adminState(emu, ['adjustments']);
  const counts = new Map<string, number>();
  for (const a of state.adjustments as Array<{ reference: string | null }>) if (a.reference) counts.set(a.reference, (counts.get(a.reference) ?? 0) + 1);
  return counts;
}

const scrape = async (url: string) => (await fetch(`${url}/metrics`)).text();
const metricValue = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

async function startBridge(url: string) {
  const env = await tempConfig(config(url));
  const { logger, records } = memoryLogger();
  const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger });
  cleanups.push(env.cleanup, () => bridge.stop('test'));
  await bridge.start();
  return { env, bridge, records, inbox: join(env.dir, 'drop', 'inbox'), outbox: join(env.dir, 'drop', 'outbox') };
}

describe('wisbridge run in-process: watch, metrics, health', () => {
  it('processes a dropped file and exposes real counters on /metrics and the last run on /healthz', async () => {
    const { bridge, records, inbox, outbox } = await startBridge(emu.url);
    expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // One 429 first: the client retries it, and the retry shows in the metrics.
    await setFaults(emu, { rate_limit_rate: 1, retry_after_s: 0, times: 1, path_prefix: '/v1/inventory/adjustments' });
    writeFileSync(join(inbox, 'KORR_metrics.csv'), korrFile([['SKU-00001', 1, 'M-1'], ['SKU-00002', 2, 'M-2'], ['SKU-99999', 1, 'M-3']]));
    await until(() => bridge.lastRun('stock'), 'the watched file to be processed');
    expect(bridge.lastRun('stock')).toMatchObject({ trigger: 'watch', result: 'partial', files: 1, rows: { ok: 2, error: 1 } });
    expect(readFileSync(join(outbox, 'KORR_metrics.result.csv'), 'utf8')).toContain('SKU-99999');

    const text = await scrape(bridge.url!);
    expect(metricValue(text, `wisbridge_files_total{job="stock",outcome="failed",instance="${bridge.instance.id}"}`)).toBe(1);
    expect(metricValue(text, `wisbridge_rows_total{job="stock",status="ok",instance="${bridge.instance.id}"}`)).toBe(2);
    expect(metricValue(text, `wisbridge_rows_total{job="stock",status="error",instance="${bridge.instance.id}"}`)).toBe(1);
    expect(metricValue(text, `wisbridge_http_requests_total{service="main",endpoint="inventory.adjustments",status="429",instance="${bridge.instance.id}"}`)).toBe(1);
    expect(metricValue(text, `wisbridge_http_retries_total{service="main",endpoint="inventory.adjustments",instance="${bridge.instance.id}"}`)).toBe(1);
    expect(metricValue(text, `wisbridge_http_request_duration_seconds_count{instance="${bridge.instance.id}",service="main",endpoint="inventory.adjustments"}`)).toBeGreaterThanOrEqual(3);
    expect(metricValue(text, `wisbridge_journal_backlog{state="error",instance="${bridge.instance.id}"}`)).toBe(1);
    expect(metricValue(text, `wisbridge_journal_backlog{state="uncertain",instance="${bridge.instance.id}"}`)).toBe(0);
    expect(metricValue(text, `wisbridge_job_runs_total{job="stock",trigger="watch",result="partial",instance="${bridge.instance.id}"}`)).toBe(1);
    expect(text).toContain('# TYPE wisbridge_job_runs_skipped_total counter');
    // The journal's commits and the syncs of its log, with their time: a slow disk shows here.
    const id = bridge.instance.id;
    expect(metricValue(text, `wisbridge_journal_commits_total{instance="${id}"}`)).toBeGreaterThanOrEqual(3);
    expect(metricValue(text, `wisbridge_journal_commit_seconds_total{instance="${id}"}`)).toBeGreaterThan(0);
    expect(metricValue(text, `wisbridge_journal_syncs_total{instance="${id}"}`)).toBeGreaterThanOrEqual(3);
    expect(metricValue(text, `wisbridge_journal_sync_seconds_total{instance="${id}"}`)).toBeGreaterThan(0);
    expect(text).toContain('# TYPE wisbridge_journal_sync_seconds_total counter');

    const health = await fetch(`${bridge.url}/healthz`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as Record<string, any>;
    expect(body).toMatchObject({ status: 'ok', jobs: { stock: { kind: 'inbound', running: false, lastRun: { result: 'partial', files: 1 } } } });
    expect(body.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect((await fetch(`${bridge.url}/other`)).status).toBe(404);

    // Logs carry the job and file; the secret token never appears.
    const fileLog = records.find((r) => r.msg === 'file ready');
    expect(fileLog).toMatchObject({ job: 'stock', file: 'KORR_metrics.csv' });
    expect(records.find((r) => r.msg === 'row failed')).toMatchObject({
      level: 40, job: 'stock', file: 'KORR_metrics.csv', line: 4, requestId: expect.any(Number), endpoint: 'inventory.adjustments', err: expect.stringContaining('SKU-99999'),
    });
    expect(JSON.stringify(records)).not.toContain(emu.token);

    const url = bridge.url!;
    await bridge.stop('test');
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

describe('operator commands: status, retry, resolve', () => {
  it('retry re-drives only the failed rows once the cause is fixed; resolve marks uncertain rows checked', async () => {
    const { bridge, env, inbox, outbox } = await startBridge(emu.url);
    // M-2 needs 500 units of SKU-00004 (100 on hand): it fails until stock arrives.
    writeFileSync(join(inbox, 'KORR_a.csv'), korrFile([['SKU-00001', 1, 'A-1'], ['SKU-00004', -500, 'A-2'], ['SKU-00002', 1, 'A-3']]));
    await until(() => bridge.lastRun('stock'), 'KORR_a');
    // The next write is applied, but its answer is lost: uncertain.
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    writeFileSync(join(inbox, 'KORR_b.csv'), korrFile([['SKU-00005', 3, 'B-1'], ['SKU-00001', 1, 'B-2']]));
    await until(() => bridge.metrics.files.get().then((m) => m.values.reduce((n, v) => n + v.value, 0) >= 2), 'KORR_b');
    await bridge.stop('test');

    const runtime = createRuntime(env.loaded);
    cleanups.push(() => runtime.close());
    const journal = await runtime.journal();
    const report = await statusReport(journal, { limit: 10, rows: 10, leaseMs: 30_000 });
    expect(report.files.map((f) => [f.name, f.status, f.counts])).toEqual([
      ['KORR_b.csv', 'failed', { ok: 1, error: 0, skipped: 0, uncertain: 1 }],
      ['KORR_a.csv', 'failed', { ok: 2, error: 1, skipped: 0, uncertain: 0 }],
    ]);
    // Adjustments have no grouping key: the row is named by file, line and SKU.
    expect(report.failed).toEqual([expect.objectContaining({ file: 'KORR_a.csv', lines: [3], message: expect.stringContaining('insufficient stock of SKU-00004') })]);
    expect(report.uncertain).toEqual([expect.objectContaining({ file: 'KORR_b.csv', lines: [2], message: expect.stringContaining('check: check the stock of SKU-00005') })]);
    const text = formatStatus(report);
    expect(text).toContain('wisbridge retry --config FILE --file ID');
    expect(text).toMatch(/KORR_a\.csv\s+3\s+SKU-00004\s+insufficient stock of SKU-00004/);

    // A retry before the cause is fixed fails again and changes nothing else.
    const early = await redriveFile(runtime, 'KORR_a.csv');
    expect(early).toMatchObject({ sent: 1, ok: 0, error: 1, status: 'failed', attempt: 2 });
    // Stock arrives; the retry sends A-2 only.
    const topUp = await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    expect([200, 207]).toContain(topUp.status);
    const fixed = await redriveFile(runtime, String(report.files[1].fileId));
    expect(fixed).toMatchObject({ sent: 1, ok: 1, error: 0, status: 'done', resultFile: 'KORR_a.result.csv' });
    const result = readFileSync(join(outbox, 'KORR_a.result.csv'), 'utf8').trim().split('\r\n').map((l) => l.split(',').slice(0, 3).join(','));
    expect(result).toEqual(['line,document,status', '2,SKU-00001,ok', '3,SKU-00004,ok', '4,SKU-00002,ok']);
    await expect(redriveFile(runtime, 'KORR_a.csv')).rejects.toMatchObject({ code: 'JOURNAL_STATE' });

    // B-1 was applied (its answer was lost): a person checks and resolves it.
    await expect(resolveRows(runtime, 'KORR_b.csv', { lines: [3], resolution: 'applied', note: 'x', by: 'ops' })).rejects.toMatchObject({ code: 'USAGE' });
    const resolved = await resolveRows(runtime, 'KORR_b.csv', { lines: [2], resolution: 'applied', note: 'move found in the service', by: 'ops' });
    expect(resolved).toMatchObject({ resolved: 1, status: 'done' });
    expect(readFileSync(join(outbox, 'KORR_b.result.csv'), 'utf8')).toMatch(/^2,SKU-00005,ok,/m);

    // C-1's request never reached the service (connection reset before): a person finds no move, marks it
    // not applied, and retry sends it — applied exactly once.
    await setFaults(emu, { reset_rate: 1, reset_phase: 'before', times: 1, path_prefix: '/v1/inventory/adjustments' });
    writeFileSync(join(inbox, 'KORR_c.csv'), korrFile([['SKU-00002', 4, 'C-1']]));
    const pass = await runInboundJob(runtime, env.loaded.config.inbound[0]);
    expect(pass.files.map((f) => [f.file, f.rows.uncertain])).toEqual([['KORR_c.csv', 1]]);
    expect((await adjustmentsByReference()).has('C-1')).toBe(false);
    await resolveRows(runtime, 'KORR_c.csv', { resolution: 'not-applied', note: 'no move for C-1', by: 'ops' });
    expect(await redriveFile(runtime, 'KORR_c.csv')).toMatchObject({ sent: 1, ok: 1, status: 'done' });

    const applied = await adjustmentsByReference();
    expect(Object.fromEntries(applied)).toEqual({ 'A-1': 1, 'A-2': 1, 'A-3': 1, 'B-1': 1, 'B-2': 1, 'C-1': 1, TOPUP: 1 });
    expect(await journal.backlog()).toMatchObject({ uncertainItems: 0, errorItems: 0 });
  });

  it('the commands give clear usage errors and print the journal summary', async () => {
    const env = await tempConfig(config(emu.url));
    cleanups.push(env.cleanup);
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), ...args], { cwd: env.dir, encoding: 'utf8', env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token } });
    const noFile = cli('retry', '--config', env.file);
    expect(noFile.status).toBe(2);
    expect(noFile.stderr).toMatch(/^wisbridge retry: USAGE: --file NAME\|ID is required/);
    const both = cli('resolve', '--config', env.file, '--file', '1', '--applied', '--not-applied', '--note', 'x');
    expect(both.stderr).toContain('USAGE: give exactly one of --applied or --not-applied');
    const status = cli('status', '--config', env.file);
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('does not exist yet');
    // stdout of --json is JSON alone, whatever the journal's state: a script parses it.
    const json = cli('status', '--config', env.file, '--json');
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ journal: expect.stringMatching(/journal\.sqlite$/), exists: false, expected: [] });
  });
});

describe('scheduled jobs through the real flows', () => {
  it('a nightly inbound batch and an export job fire at their times in their time zones (manual clock)', async () => {
    const env = await tempConfig(`${baseConfig(emu.url)}
inbound:
  - name: nightly-stock
    drop: wms
    service: main
    mappings: [inventory-adjustments]
    watch: false
    schedule: { cron: "0 2 * * *", timezone: Europe/Berlin }
exports:
  - name: picks
    work_type: customerShipments
    drop: wms
    service: main
    mapping: customer-shipments-export
    schedule: { cron: "30 7 * * 1-5", timezone: America/New_York }
`);
    const clock = new ManualClock(Date.parse('2026-11-22T00:30:00Z')); // a Sunday
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, clock, httpServer: false });
    cleanups.push(env.cleanup, () => bridge.stop('test'));
    await bridge.start();
    writeFileSync(join(env.dir, 'drop', 'inbox', 'KORR_night.csv'), korrFile([['SKU-00001', 1, 'N-1']]));
    await clock.advanceTo(Date.parse('2026-11-22T00:59:59Z'));
    expect(bridge.lastRun('nightly-stock')).toBeUndefined();
    await clock.advanceTo(Date.parse('2026-11-22T01:00:00Z')); // 02:00 in Berlin
    await until(() => bridge.lastRun('nightly-stock'), 'the nightly batch');
    expect(bridge.lastRun('nightly-stock')).toMatchObject({ trigger: 'schedule', result: 'ok', files: 1, rows: { ok: 1 } });
    expect(existsSync(join(env.dir, 'drop', 'outbox', 'KORR_night.result.csv'))).toBe(true);

    // Monday 07:30 in New York = 12:30 UTC (EST, UTC-5): the pending shipments become a work list.
    await clock.advanceTo(Date.parse('2026-11-23T12:29:59Z'));
    expect(bridge.lastRun('picks')).toBeUndefined();
    await clock.advanceTo(Date.parse('2026-11-23T12:30:00Z'));
    await until(() => bridge.lastRun('picks'), 'the export');
    expect(bridge.lastRun('picks')).toMatchObject({ trigger: 'schedule', result: 'ok', exports: 1 });
    expect(readdirSync(join(env.dir, 'drop', 'outbox')).filter((n) => n.startsWith('picks_'))).toHaveLength(2); // work list + .ack.csv
  });

  it('/healthz turns 503 while the bridge shuts down', async () => {
    const env = await tempConfig(`${baseConfig(emu.url)}
exports:
  - name: slow
    work_type: customerShipments
    drop: wms
    service: main
    mapping: customer-shipments-export
metrics: { host: 127.0.0.1, port: 0 }
`);
    let release!: () => void;
    const busy = new Promise<void>((resolve) => { release = resolve; });
    const none = async () => ({ files: [], exports: [] });
    const bridge = new BridgeService(env.loaded, { runners: { inboundPass: none, inboundFile: none, exportRun: async () => { await busy; return { files: [], exports: [] }; } }, httpServer: true });
    cleanups.push(env.cleanup);
    await bridge.start();
    const running = bridge.runNow('slow');
    expect((await fetch(`${bridge.url}/healthz`)).status).toBe(200);
    const stopped = bridge.stop('test');
    const during = await fetch(`${bridge.url}/healthz`);
    expect(during.status).toBe(503);
    expect(await during.json()).toMatchObject({ status: 'stopping', jobs: { slow: { running: true } } });
    release();
    await running;
    await stopped;
  });
});
