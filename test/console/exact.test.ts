import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { useEmulator } from '../support/emulator.js';
import { tempConfig, useCleanups } from '../service/support.js';
import { CONSOLE_TOKEN, consoleClient, consoleConfig } from './support.js';

/** Every console action does exactly what it says, over HTTP through the real console. */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

async function startBridge() {
  const env = await tempConfig(consoleConfig(emu.url), { load: false });
  writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN);
  const bridge = new BridgeService(await loadConfig(env.file), { runners: flowRunners, watchRetryMs: 100 });
  cleanups.push(env.cleanup, () => bridge.stop('test'));
  await bridge.start();
  return { env, bridge, c: consoleClient(bridge.url!), drop: (folder: string) => join(env.dir, 'drop', folder) };
}

describe('console: re-process only what lies in error/', () => {
  it('refuses a name not in error/, a path out of it and a reason file, on the confirm page and on a POST; moves nothing', async () => {
    const { c, drop } = await startBridge();
    writeFileSync(join(drop('error'), 'KORR_rej.csv'), 'no;header\n');
    writeFileSync(join(drop('error'), 'KORR_rej.csv.error.txt'), 'reason: FILE_LAYOUT: no header\n');
    writeFileSync(join(drop('archive'), 'KORR_old.csv'), 'x\n');
    const csrf = c.csrfOf((await c.get('/console/rejected/reprocess?drop=wms&name=KORR_rej.csv')).text);
    expect(csrf).not.toBe('');

    const missing = await c.get('/console/rejected/reprocess?drop=wms&name=nonexist.csv');
    expect(missing.status).toBe(404);
    expect(missing.text).not.toContain('id="confirm"');
    expect(missing.text).toContain('error/nonexist.csv is not in drop wms');
    const outside = await c.get(`/console/rejected/reprocess?drop=wms&name=${encodeURIComponent('../archive/KORR_old.csv')}`);
    expect(outside.status).toBe(400);
    expect(outside.text).not.toContain('id="confirm"');
    expect(outside.text).toContain('is not a file name of the error/ folder');
    const reason = await c.get('/console/rejected/reprocess?drop=wms&name=KORR_rej.csv.error.txt');
    expect(reason.status).toBe(400);
    expect(reason.text).toContain('is the reason file of a rejection');
    expect((await c.get('/console/rejected/reprocess?drop=nowhere&name=KORR_rej.csv')).status).toBe(400);

    // A POST for another name with the form of KORR_rej.csv: its one-time token is bound to that name.
    for (const name of ['KORR_rej.csv.error.txt', '../archive/KORR_old.csv', 'nonexist.csv']) {
      const posted = await c.post(`/console/rejected/reprocess?drop=wms&name=${encodeURIComponent(name)}`, { csrf, by: 'Ana' });
      expect(posted.status, name).toBe(403);
      expect(posted.text, name).toContain('id="message"');
    }
    expect(readdirSync(drop('inbox'))).toEqual([]);
    expect(readdirSync(drop('error')).sort()).toEqual(['KORR_rej.csv', 'KORR_rej.csv.error.txt']);
    expect(existsSync(join(drop('archive'), 'KORR_old.csv'))).toBe(true);
  });
});
