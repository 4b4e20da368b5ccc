import { spawn } from 'node:child_process';
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AlertLog } from '../../src/console/alerts.js';
import { ProgressRegistry } from '../../src/console/progress.js';
import { WisbridgeError } from '../../src/errors.js';
import { openJournal } from '../../src/journal/index.js';
import { rawDatabase } from '../../src/journal/test-support.js';
import { ROOT } from '../pipeline/helpers.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { korrFile, memoryLogger, tempConfig, until, useCleanups } from '../service/support.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { CONSOLE_TOKEN, consoleClient, consoleConfig } from './support.js';

const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

async function startBridge(yaml = consoleConfig(emu.url)) {
  const env = await tempConfig(yaml, { load: false });
  writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN);
  const { loadConfig } = await import('../../src/config/load.js');
  const { logger, records } = memoryLogger();
  const bridge = new BridgeService(await loadConfig(env.file), { runners: flowRunners, logger, watchRetryMs: 100 });
  cleanups.push(env.cleanup, () => bridge.stop('test'));
  await bridge.start();
  return { env, bridge, records, c: consoleClient(bridge.url!), inbox: join(env.dir, 'drop', 'inbox') };
}

/** The first `progress` event of the console's SSE stream whose list is not empty. */
async function firstLiveEvent(url: string): Promise<Array<Record<string, any>>> {
  const res = await fetch(`${url}/console/events`, { headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = res.body!.getReader();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('event stream ended');
      text += Buffer.from(value).toString('utf8');
      for (const m of text.matchAll(/event: progress\ndata: (.*)\n\n/g)) {
        const list = JSON.parse(m[1]) as Array<Record<string, any>>;
        if (list.length > 0) return list;
      }
    }
  } finally {
    await reader.cancel();
  }
}

describe('console: live progress of files under wisbridge run', () => {
  it('shows rows done, the estimated total and the rate while a long file is sent, over SSE and JSON; gone once done', async () => {
    const { bridge, c, inbox } = await startBridge();
    // Long enough to be seen: 40 writes of one row, two at a time (the default for adjustments), 240 ms each.
    await setFaults(emu, { latency_ms: 240, path_prefix: '/v1/inventory/adjustments' });
    const rows = Array.from({ length: 40 }, (_, i): [string, number, string] => [`SKU-0000${(i % 5) + 1}`, 1, `P-${i}`]);
    writeFileSync(join(inbox, 'KORR_long.csv'), korrFile(rows));
    const live = await firstLiveEvent(bridge.url!);
    expect(live[0]).toMatchObject({ job: 'stock', file: 'KORR_long.csv', rows: expect.any(Number), size: expect.any(Number), rate: expect.any(Number) });
    expect(live[0].rows).toBeGreaterThan(0);
    // 41 lines: the header and 40 rows, counted while the checksum was computed.
    expect(live[0].estimatedTotal).toBe(40);
    expect(live[0].percent).toBe(Math.floor((live[0].rows / 40) * 100));
    const page = await c.get('/console/progress');
    expect(page.text).toContain('<script src="/console/static/live.js"></script>');
    expect((await c.get('/console/static/live.js')).text).toContain("new EventSource('/console/events')");
    await until(() => bridge.lastRun('stock'), 'the long file');
    expect(JSON.parse((await c.get('/console/progress.json')).text)).toEqual([]);
  });

  it('the registry estimates the total from bytes read and logs a long file every 30 s', () => {
    let now = 0;
    const { logger, records } = memoryLogger();
    const registry = new ProgressRegistry(() => now, logger);
    const report = registry.reporter('stock');
    report({ file: 'A.csv', rows: 100, bytes: 1000, size: 10_000 });
    now = 31_000;
    report({ file: 'A.csv', rows: 3100, bytes: 3100 * 10, size: 10_000 * 10 });
    expect(registry.snapshot()).toEqual([expect.objectContaining({ file: 'A.csv', rows: 3100, estimatedTotal: 10_000, rate: 100 })]);
    expect(records.filter((r) => r.msg === 'file in progress')).toEqual([expect.objectContaining({ job: 'stock', file: 'A.csv', rows: 3100, rowsPerSecond: 100 })]);
    report({ file: 'B.csv', rows: 10, bytes: 100, size: 100, lines: 41 });
    // Two files of one job at once (files_in_flight): both listed until each is finished.
    expect(registry.snapshot().map((p) => p.file)).toEqual(['A.csv', 'B.csv']);
    report({ file: 'A.csv', rows: 0, bytes: 0, size: 0, finished: true });
    expect(registry.snapshot()).toHaveLength(1);
    expect(registry.snapshot()[0]).toMatchObject({ file: 'B.csv', estimatedTotal: 40, percent: 25 });
    registry.end('stock');
    expect(registry.snapshot()).toEqual([]);
  });
});

describe('console: alerts', () => {
  it('a drop whose inbox cannot be listed and a refused service token show on the alerts page', async () => {
    const { bridge, c, inbox } = await startBridge();
    renameSync(inbox, `${inbox}.gone`);
    await until(async () => (await c.get('/console/alerts')).text.includes('drop-unreachable'), 'the drop alert');
    renameSync(`${inbox}.gone`, inbox);
    process.env.WISBRIDGE_TEST_TOKEN = emu.mintToken([1], -60);
    try {
      // The client was built with the good token: a fresh bridge reads the expired one.
      await bridge.stop('test');
      const second = await startBridge();
      writeFileSync(join(second.inbox, 'KORR_auth.csv'), korrFile([['SKU-00001', 1, 'X-1']]));
      await until(() => second.bridge.lastRun('stock'), 'the refused run');
      const alerts = await second.c.get('/console/alerts');
      expect(alerts.text).toMatch(/<td>authentication<\/td><td>stock<\/td><td>AUTHENTICATION: /);
      expect(alerts.text).not.toContain(process.env.WISBRIDGE_TEST_TOKEN);
      expect((await second.c.get('/console')).text).toMatch(/1 alert\(s\)/);
    } finally {
      process.env.WISBRIDGE_TEST_TOKEN = emu.token;
    }
  });

  it('only drop and authentication failures become alerts; missed files come from the expectations', () => {
    const log = new AlertLog(() => Date.parse('2026-11-20T10:00:00Z'));
    expect(log.noteFailure('stock', new WisbridgeError('UNAVAILABLE', 'down', { details: { endpoint: 'customerShipments.list', outcome: 'not-applied' } }))).toBe(false);
    expect(log.noteFailure('stock', new WisbridgeError('DROP_CONNECT', 'sftp down', { details: { drop: 'wms' } }))).toBe(true);
    const list = log.list([{ job: 'stock', pattern: '^KORR', cutoff: '2026-11-20T06:00:00.000Z', since: '2026-11-19T06:00:00.000Z' }]);
    expect(list.map((a) => a.kind)).toEqual(['drop-unreachable', 'missed-file']);
    expect(list[1].message).toContain('/^KORR/');
  });
});

describe('console: re-process a rejected file, and wisbridge console without jobs', () => {
  it('moves a rejected file from error/ back to the inbox (confirmed, recorded); the watcher processes it again', async () => {
    const { bridge, env, c, inbox } = await startBridge();
    writeFileSync(join(inbox, 'KORR_bad.csv'), 'no;header;here\n');
    await until(() => existsSync(join(env.dir, 'drop', 'error', 'KORR_bad.csv')) && bridge.lastRun('stock'), 'the rejection');
    // The watcher forgets a file once a poll (50 ms here) has seen it gone from the inbox; an operator is never that fast.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const list = await c.get('/console/rejected');
    expect(list.text).toContain('KORR_bad.csv');
    expect(list.text).toMatch(/FILE_LAYOUT|FILE_UNREADABLE/);
    const confirm = await c.get('/console/rejected/reprocess?drop=wms&name=KORR_bad.csv');
    const runsBefore = (await bridge.metrics.files.get()).values.reduce((n, v) => n + v.value, 0);
    const done = await c.post('/console/rejected/reprocess?drop=wms&name=KORR_bad.csv', { csrf: c.csrfOf(confirm.text), by: 'Ana' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('moved to inbox/KORR_bad.csv; the watcher processes it next');
    await until(async () => (await bridge.metrics.files.get()).values.reduce((n, v) => n + v.value, 0) > runsBefore, 'the second look');
    const journal = await openJournal(join(env.dir, 'journal.sqlite'));
    try {
      expect(rawDatabase(journal).prepare('SELECT action, target, actor, outcome FROM operator_actions').all())
        .toEqual([{ action: 'reprocess', target: 'wms:error/KORR_bad.csv', actor: 'Ana (console token)', outcome: 'ok' }]);
    } finally {
      await journal.close();
    }
  });

  it('wisbridge console serves the pages of an existing journal and runs no job', async () => {
    const { env, bridge, inbox } = await startBridge();
    writeFileSync(join(inbox, 'KORR_one.csv'), korrFile([['SKU-00001', 1, 'O-1']]));
    await until(() => bridge.lastRun('stock'), 'KORR_one');
    await bridge.stop('test');
    writeFileSync(join(inbox, 'KORR_two.csv'), korrFile([['SKU-00001', 1, 'O-2']]));
    const child = spawn(process.execPath, [join(ROOT, 'bin/wisbridge.js'), 'console', '--config', env.file, '--port', '0'], {
      env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => { child.kill('SIGTERM'); });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const url = await until(() => /console: (http:\/\/[\d.:]+)\/console/.exec(out)?.[1], 'the console to listen');
    const page = await consoleClient(url).get('/console/files');
    expect(page.text).toContain('KORR_one.csv');
    expect((await consoleClient(url).get('/console')).text).toContain('Served by <code>wisbridge console</code>');
    expect(existsSync(join(inbox, 'KORR_two.csv'))).toBe(true);
    child.kill('SIGTERM');
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
  });
});
