import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import type { FileRecord } from '../../src/journal/index.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { parseCsv } from '../pipeline/helpers.js';
import { korrFile, memoryLogger, tempConfig, until, useCleanups } from '../service/support.js';
import { CONSOLE_TOKEN, consoleClient, consoleConfig } from './support.js';

const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const NAME = 'KORR_same.csv';
const FIRST_RESULT = 'KORR_same.result.csv';

describe('console: re-drive, resolve and download act on the file\'s own result file', () => {
  it('three files under one name: re-drive and resolve rewrite only their file\'s result, the download serves it, /metrics counts each', async () => {
    const env = await tempConfig(consoleConfig(emu.url), { load: false });
    cleanups.push(env.cleanup);
    writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN + '\n');
    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(await loadConfig(env.file), { runners: flowRunners, logger });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    const journal = await bridge.runtime.journal();
    const inbox = join(env.dir, 'drop', 'inbox');
    const outbox = join(env.dir, 'drop', 'outbox');
    const bytes = (name: string) => readFileSync(join(outbox, name));
    const rowsOf = (name: string) => parseCsv(bytes(name).toString('utf8')).map((r) => [r.document, r.status, r.message]);

    /** Drops a file named NAME and waits until the watcher's run took it out of the inbox and ended: its journal record. */
    const dropAndProcess = async (rows: Parameters<typeof korrFile>[0]): Promise<FileRecord> => {
      const before = (await journal.listFiles({ limit: 10 })).length;
      writeFileSync(join(inbox, NAME), korrFile(rows));
      const finished = async () => (await journal.listFiles({ limit: 10 })).filter((f) => f.status !== 'processing').length;
      await until(async () => readdirSync(inbox).length === 0 && (await finished()) > before && !bridge.jobViews()[0].running, NAME);
      const files = (await journal.listFiles({ limit: 10 })).filter((f) => f.name === NAME).sort((a, b) => a.fileId - b.fileId);
      expect(files).toHaveLength(before + 1);
      return files.at(-1)!;
    };

    const first = await dropAndProcess([['SKU-00001', 1, 'A-1']]);
    // SKU-00004 has 100 on hand: taking 500 fails until stock arrives.
    const second = await dropAndProcess([['SKU-00004', -500, 'B-1']]);
    // The answer to C-1's write is lost after the service applied it: the row is uncertain.
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    const third = await dropAndProcess([['SKU-00005', 3, 'C-1']]);
    expect(first.resultName).toBe(FIRST_RESULT);
    const stamped = /^KORR_same\.\d{8}T\d{9}Z(-\d+)?\.result\.csv$/;
    expect(second.resultName).toMatch(stamped);
    expect(third.resultName).toMatch(stamped);
    const secondResult = second.resultName!;
    const thirdResult = third.resultName!;
    expect(readdirSync(outbox).sort()).toEqual([FIRST_RESULT, secondResult, thirdResult].sort());
    expect(rowsOf(secondResult)).toEqual([['SKU-00004', 'error', expect.stringContaining('insufficient stock of SKU-00004')]]);
    expect(rowsOf(thirdResult)).toEqual([['SKU-00005', 'uncertain', expect.any(String)]]);
    const firstBytes = bytes(FIRST_RESULT);
    const thirdBytes = bytes(thirdResult);

    const c = consoleClient(bridge.url!);
    // Stock arrives, then the console's re-drive of the second file.
    await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    const csrf = c.csrfOf((await c.get(`/console/files/${second.fileId}/redrive`)).text);
    const redriven = await c.post(`/console/files/${second.fileId}/redrive`, { csrf, by: 'Maria' });
    expect(redriven.status).toBe(200);
    expect(bytes(FIRST_RESULT).equals(firstBytes), 'the first file\'s result is unchanged').toBe(true);
    expect(bytes(thirdResult).equals(thirdBytes), 'the third file\'s result is unchanged').toBe(true);
    expect(rowsOf(secondResult)).toEqual([['SKU-00004', 'ok', '']]);
    expect(redriven.text).toContain(`file is now done; result file rewritten: outbox/${secondResult}`);
    const secondBytes = bytes(secondResult);

    // The console's resolution of the third file's uncertain row.
    const [item] = await journal.uncertainItems(third.fileId);
    const form = await c.get(`/console/files/${third.fileId}/resolve?item=${item.itemId}`);
    const resolved = await c.post(`/console/files/${third.fileId}/resolve?item=${item.itemId}`, {
      csrf: c.csrfOf(form.text), by: 'Maria', resolution: 'applied', note: 'C-1 found in the service',
    });
    expect(resolved.status).toBe(200);
    expect(bytes(FIRST_RESULT).equals(firstBytes), 'the first file\'s result is unchanged').toBe(true);
    expect(bytes(secondResult).equals(secondBytes), 'the second file\'s result is unchanged').toBe(true);
    expect(rowsOf(thirdResult)).toEqual([['SKU-00005', 'ok', 'applied: C-1 found in the service']]);
    expect(resolved.text).toContain(`file is now done; result file rewritten: outbox/${thirdResult}`);
    expect(readdirSync(outbox).sort()).toEqual([FIRST_RESULT, secondResult, thirdResult].sort());

    // Each file's download is its own result file, under its recorded name.
    for (const [file, name] of [[first, FIRST_RESULT], [second, secondResult], [third, thirdResult]] as const) {
      const download = await c.get(`/console/files/${file.fileId}/result`);
      expect(download.headers.get('content-disposition'), name).toBe(`attachment; filename="${name}"`);
      expect(download.text, name).toBe(bytes(name).toString('utf8'));
    }

    // Whoever listens hears of both: the metrics counter by job, way and status reached, and a log line.
    const metrics = await (await fetch(`${bridge.url}/metrics`)).text();
    const concluded = metrics.split('\n').filter((l) => l.startsWith('wisbridge_files_concluded_again_total{'));
    expect(concluded.map(labelsAndValue).sort(byVia)).toEqual([
      { labels: { job: 'stock', via: 'redrive', status: 'done', instance: bridge.instance.id }, value: 1 },
      { labels: { job: 'stock', via: 'resolve', status: 'done', instance: bridge.instance.id }, value: 1 },
    ]);
    expect(records.filter((r) => r.msg === 'file concluded again').map((r) => [r.fileId, r.job, r.via, r.status, r.resultFile])).toEqual([
      [second.fileId, 'stock', 'redrive', 'done', secondResult],
      [third.fileId, 'stock', 'resolve', 'done', thirdResult],
    ]);
  });
});

/** `name{a="x",b="y"} 1` → its labels and value. */
function labelsAndValue(line: string): { labels: Record<string, string>; value: number } {
  const [, labels, value] = /^\w+\{(.*)\} (\S+)$/.exec(line)!;
  return { labels: Object.fromEntries([...labels.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]])), value: Number(value) };
}

const byVia = (a: { labels: Record<string, string> }, b: { labels: Record<string, string> }) => a.labels.via.localeCompare(b.labels.via);
