import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { formatFileRows, fileRowsReport } from '../../src/service/file-rows.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { CONSOLE_TOKEN, consoleClient } from '../console/support.js';
import { appliedReferences, setFaults, useEmulator } from '../support/emulator.js';
import { freshDatabase } from '../support/postgres.js';
import { adjustmentsJob, baseConfig, eventsOf, korrFile, memoryLogger, tempConfig, until, useCleanups } from './support.js';

/**
 * A file's history of instances (the journal's file_owners): `wisbridge run` A, a child process, is killed (SIGKILL)
 * mid-file; instance B on the same PostgreSQL journal takes the file over once A's lease ran out. The history, the
 * file page's Instances section, `status --file` and B's file.claimed record each say who took it from whom, why and
 * with which fencing token.
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const root = resolve(import.meta.dirname, '../..');
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const ROWS = 24;

const config = (journal: string) => `${baseConfig(emu.url, '\n    batch_size: 2\n    requests_in_flight: 1', journal)}inbound:
${adjustmentsJob('stock', 'wms')}metrics: { host: 127.0.0.1, port: 0 }
console: { auth: { bearer_token: { file: console-token } } }
instance: { lease_ms: 3000, heartbeat_ms: 500 }
`;

describe('a file taken over after kill -9', () => {
  it('its history lists both instances: A claimed it (token 1), B took it from A for lost (token 2); the page, status --file and the log say so', async () => {
    const db = await freshDatabase();
    cleanups.push(() => db.drop());
    const env = await tempConfig(config(JSON.stringify(db.config)));
    cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
    writeFileSync(join(env.dir, 'console-token'), `${CONSOLE_TOKEN}\n`);
    const [inbox, archive] = ['inbox', 'archive'].map((folder) => join(env.dir, 'drop', folder)) as [string, string];
    // Slow writes, one at a time: the file is still in progress when A is killed.
    await setFaults(emu, { latency_ms: 250, path_prefix: '/v1/inventory/adjustments' });
    writeFileSync(join(inbox, 'KORR_taken.csv'), korrFile(Array.from({ length: ROWS }, (_, r) => ['SKU-00001', 1, `TAKEN-${r + 1}`] as [string, number, string])));

    const child = spawn(process.execPath, [join(root, 'bin/wisbridge.js'), 'run', '--config', env.file], {
      cwd: root, stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token },
    });
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_, signal) => done(signal)));
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    await until(async () => (await appliedReferences(emu, 'TAKEN-')).size >= 4, 'A applied some rows');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const journal = await openJournal(db.config);
    cleanups.push(() => journal.close());
    const left = (await journal.latestFileNamed('KORR_taken.csv'))!;
    expect(left.status).toBe('processing');
    const killed = left.lease!.owner;
    expect(killed).toMatch(new RegExp(`-${child.pid}-`));

    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, watchRetryMs: 200 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await until(() => existsSync(join(archive, 'KORR_taken.csv')), 'B finished the file');
    await setFaults(emu, {});
    const applied = await appliedReferences(emu, 'TAKEN-');
    // None twice; a write in flight at the kill is uncertain (an adjustment cannot be read back), every other row ok.
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
    const summary = (await journal.getFile(left.fileId)).summary!;
    expect(summary.ok + summary.uncertain).toBe(ROWS);
    expect(summary.ok).toBeLessThanOrEqual(applied.size);

    const owners = await journal.console.fileOwners(left.fileId);
    expect(owners.map(({ at: _, ...o }) => o)).toEqual([
      { instance: killed, from: null, token: 1, reason: 'claim' },
      { instance: bridge.instance.id, from: killed, token: 2, reason: 'lost' },
    ]);
    expect(Date.parse(owners[1]!.at)).toBeGreaterThan(Date.parse(owners[0]!.at));

    const claimed = eventsOf(records, 'file.claimed').find((r) => r.file === 'KORR_taken.csv');
    expect(claimed).toMatchObject({ claim: 'resume', from: killed, reason: 'lost', leaseToken: 2 });

    const page = await consoleClient(bridge.url!).get(`/console/files/${left.fileId}`);
    expect(page.status).toBe(200);
    const table = /<table id="owners">[\s\S]*?<\/table>/.exec(page.text)![0];
    const rows = [...table.matchAll(/<tr data-reason="([a-z]+)" data-token="(\d+)">([\s\S]*?)<\/tr>/g)];
    expect(rows.map((r) => [r[1], r[2]])).toEqual([['claim', '1'], ['lost', '2']]);
    expect(rows[1]![3]).toContain(`<td class="instance">${bridge.instance.id}</td>`);
    expect(rows[1]![3]).toContain(`<td class="from">${killed}</td>`);
    expect(rows[1]![3]).toContain('its owner was lost');
    expect(page.text).toContain('fencing token 2: taken over 1 time(s)');

    const text = formatFileRows(await fileRowsReport(journal, String(left.fileId), { limit: 0 }));
    expect(text).toContain(`${bridge.instance.id} took it from ${killed} (lost), fencing token 2`);
    expect(text).toContain(`${killed} claimed it, fencing token 1`);
  });
});
