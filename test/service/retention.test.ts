import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/runtime.js';
import { ManualClock } from '../../src/service/clock.js';
import { runRetention } from '../../src/service/retention.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { cli as spawnCli, finished } from '../pipeline/helpers.js';
import { useEmulator } from '../support/emulator.js';
import { baseConfig, korrFile, tempConfig, until, useCleanups } from './support.js';

const emu = useEmulator({ resetEachTest: true });
const DAY = 24 * 3600 * 1000;
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const config = (url: string, extra = '') => `${baseConfig(url)}    archive_retention_days: 7
    outbox_retention_days: 14
inbound:
  - name: stock
    drop: wms
    service: main
    mappings: [inventory-adjustments]
    watch: false
${extra}`;

// Asynchronous: the emulator answers from this process.
const cli = async (...args: string[]) => {
  const r = await finished(spawnCli(args, { WISBRIDGE_TEST_TOKEN: emu.token }));
  return { ...r, status: r.code };
};

describe('retention', () => {
  it('journal prune keeps the checksum: the same content dropped again after a prune is still a duplicate', async () => {
    const env = await tempConfig(config(emu.url));
    cleanups.push(env.cleanup);
    const inbox = join(env.dir, 'drop', 'inbox');
    writeFileSync(join(inbox, 'KORR_1.csv'), korrFile([['SKU-00001', 1, 'R-1'], ['SKU-00002', 2, 'R-2']]));
    const first = await cli('batch', '--config', env.file);
    expect(first.status, first.stdout + first.stderr).toBe(0);

    const recent = await cli('journal', 'prune', '--config', env.file, '--older-than', '30d');
    expect(recent.status, recent.stderr).toBe(0);
    expect(recent.stdout).toMatch(/^journal: 0 file\(s\) finished before \S+ pruned/);
    expect((await cli('journal', 'prune', '--config', env.file, '--older-than', '30x')).stderr).toMatch(/USAGE: an age is a positive number of days or hours/);

    // 31 days later (the runtime's clock is the caller's): the file's rows go, its row stays.
    const runtime = createRuntime(env.loaded);
    const report = await runRetention(runtime, { journalAgeMs: 30 * DAY, drops: false, now: Date.now() + 31 * DAY });
    expect(report.journal).toMatchObject({ files: 1, requests: 1 });
    await runtime.close();

    const status = await cli('status', '--config', env.file, '--file', 'KORR_1.csv');
    expect(status.stdout).toMatch(/its rows were pruned on \S+ \(journal retention\); documents then: 2 ok, 0 error/);
    expect((await cli('journal', 'stats', '--config', env.file)).stdout).toMatch(/files: 1 \(1 pruned\)/);

    writeFileSync(join(inbox, 'KORR_1_again.csv'), korrFile([['SKU-00001', 1, 'R-1'], ['SKU-00002', 2, 'R-2']]));
    const again = await cli('batch', '--config', env.file);
    expect(again.stdout).toMatch(/KORR_1_again\.csv\s+duplicate/);
    expect(readdirSync(join(env.dir, 'drop', 'archive')).sort()).toEqual(['KORR_1.csv', 'KORR_1_again.csv']);
  });

  it('wisbridge run prunes on its retention schedule once no job runs, cleans archive/ and outbox/ by age, and shows the journal in metrics', async () => {
    const env = await tempConfig(config(emu.url, 'retention: { journal_days: 30, cron: "0 4 * * *" }\n'));
    cleanups.push(env.cleanup);
    const drop = (folder: string, name: string) => join(env.dir, 'drop', folder, name);
    const clock = new ManualClock(Date.parse('2030-01-10T03:00:00Z'));
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, clock, httpServer: false });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    writeFileSync(drop('inbox', 'KORR_old.csv'), korrFile([['SKU-00001', 1, 'O-1']]));
    expect(await bridge.runNow('stock')).toMatchObject({ result: 'ok', files: 1 });
    // Ages by the bridge's clock: the archived file and its result are years old; fresh ones stay.
    writeFileSync(drop('archive', 'fresh.csv'), 'x');
    writeFileSync(drop('outbox', 'fresh.result.csv'), 'x');
    writeFileSync(drop('outbox', 'week-old.result.csv'), 'x');
    writeFileSync(drop('error', 'ancient.csv'), 'x');
    writeFileSync(drop('inbox', 'ancient-too.txt'), 'x');
    const at = (name: string, ms: number) => utimesSync(name, ms / 1000, ms / 1000);
    at(drop('archive', 'fresh.csv'), clock.now() - DAY);
    at(drop('outbox', 'fresh.result.csv'), clock.now() - DAY);
    at(drop('outbox', 'week-old.result.csv'), clock.now() - 8 * DAY);
    const before = await bridge.metrics.text();
    expect(before).toMatch(/wisbridge_journal_files\{state="kept",instance="[^"]+"\} 1/);
    expect(Number(/wisbridge_journal_bytes\{instance="[^"]+"\} (\d+)/.exec(before)?.[1])).toBeGreaterThan(0);

    await clock.advanceTo(Date.parse('2030-01-10T04:00:00Z'));
    const report = await until(() => bridge.lastRetention, 'retention tick');
    expect(report.journal).toMatchObject({ files: 1 });
    expect(report.drops).toEqual([{ drop: 'wms', folders: [
      { folder: 'archive', removed: ['KORR_old.csv'] },
      { folder: 'outbox', removed: ['KORR_old.result.csv'] },
    ] }]);
    expect(readdirSync(join(env.dir, 'drop', 'archive'))).toEqual(['fresh.csv']);
    expect(readdirSync(join(env.dir, 'drop', 'outbox')).sort()).toEqual(['fresh.result.csv', 'week-old.result.csv']);
    expect(existsSync(drop('error', 'ancient.csv')) && existsSync(drop('inbox', 'ancient-too.txt'))).toBe(true);
    const after = await bridge.metrics.text();
    expect(after).toMatch(/wisbridge_journal_files\{state="pruned",instance="[^"]+"\} 1/);
    expect(after).toMatch(/wisbridge_journal_oldest_rows_timestamp_seconds\{instance="[^"]+"\} 0/);
    expect(Number(/wisbridge_journal_oldest_entry_timestamp_seconds\{instance="[^"]+"\} (\d+)/.exec(after)?.[1])).toBeGreaterThan(0);
  });
});
