import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BridgeService } from '../../src/service/service.js';
import { flowRunners } from '../../src/service/runners.js';
import { cli, finished, workspace } from '../pipeline/helpers.js';
import { pgWorkspace } from '../journal/pg-workspace.js';
import { useCleanups } from '../service/support.js';
import { useEmulator } from '../support/emulator.js';
import { loadConfig } from '../../src/config/load.js';

/**
 * `batch` and `process` write (claims, requests, result files): they take part as short-lived instances, as `retry`
 * and `resolve` do (src/cli/one-shot.ts). A file one of them resumes is leased to it, so a running instance that meets
 * the file finds it busy rather than resuming it beside the command; at its end the command retires.
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();

describe('one-shot commands as short-lived instances', { timeout: 180_000 }, () => {
  it('batch registers, holds the lease of the file it works on while it runs, and retires at its end (PostgreSQL)', async () => {
    const ws = await pgWorkspace(emu, cleanups);
    ws.drop('KORR_20261120.csv');
    const pauseFile = join(ws.dir, 'paused');
    const child = cli(['batch', '--config', ws.configFile], { WISBRIDGE_FAILPOINTS: `send.after-answer=pause(${pauseFile})` });
    const done = finished(child);
    let exited = false;
    void done.then(() => (exited = true));
    while (!existsSync(pauseFile)) {
      expect(exited, 'batch ended before its pause').toBe(false);
      await sleep(20);
    }
    const pid = Number(readFileSync(pauseFile, 'utf8'));
    await ws.withJournal(async (journal) => {
      const [instance] = (await journal.listInstances()).filter((i) => i.pid === pid);
      expect(instance).toMatchObject({ stoppedAt: null, files: 1 });
      const [file] = await journal.listFiles({ limit: 10 });
      expect(file).toMatchObject({ name: 'KORR_20261120.csv', lease: { owner: instance!.id } });
    });
    rmSync(pauseFile);
    const batch = await done;
    expect(batch.code, batch.stderr).toBe(1);
    expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
    await ws.withJournal(async (journal) => {
      const [instance] = (await journal.listInstances()).filter((i) => i.pid === pid);
      expect(instance?.stoppedAt).not.toBeNull();
      expect(instance?.files).toBe(0);
    });
  });

  it('beside a running instance on a SQLite journal, batch and process are refused with what to do instead; a dry run is not', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    cleanups.push(() => rmSync(ws.dir, { recursive: true, force: true }));
    ws.drop('KORR_20261120.csv');
    const sample = join(ws.dir, 'KORR_local.csv');
    writeFileSync(sample, readFileSync(join(ws.folder('inbox'), 'KORR_20261120.csv')));
    const bridge = new BridgeService(await loadConfig(ws.configFile), { runners: flowRunners, httpServer: false });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    const batch = await finished(cli(['batch', '--config', ws.configFile]));
    expect(batch.code).toBe(2);
    expect(batch.stderr).toMatch(/a SQLite journal serves one instance.*; beside a running instance, it processes its inboxes and runs the exports itself: drop the files there/);
    const processed = await finished(cli(['process', '--config', ws.configFile, sample]));
    expect(processed.code).toBe(2);
    expect(processed.stderr).toMatch(/; beside a running instance, drop the files into its inbox/);
    expect(processed.stderr).not.toMatch(/\n\s+at /);
    const dryRun = await finished(cli(['process', '--config', ws.configFile, '--dry-run', sample]));
    expect(dryRun.code, dryRun.stderr).toBe(1);
    expect(dryRun.stdout).toContain('"kind":"request","endpoint":"inventory.adjustments"');
  });
});
