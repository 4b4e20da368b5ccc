import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { setFaults, type EmulatorHandle } from '../support/emulator.js';
import { korrFile, stockConfig, tempConfig, until } from '../service/support.js';

export const CONSOLE_TOKEN = 'console-secret-4711-abcdef';

export const consoleConfig = (url: string, auth = 'auth: { bearer_token: { file: console-token } }') => `${stockConfig(url)}console:
  ${auth}
`;

/**
 * A running bridge with the console on, after two files: KORR_a (one row failed: too little stock of SKU-00004)
 * and KORR_b (one row uncertain: the answer to its write was lost, the write applied).
 */
export async function bridgeWithFailures(emu: EmulatorHandle, auth?: string) {
  const env = await tempConfig(consoleConfig(emu.url, auth), { load: false });
  writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN + '\n');
  const { loadConfig } = await import('../../src/config/load.js');
  const loaded = await loadConfig(env.file);
  const bridge = new BridgeService(loaded, { runners: flowRunners });
  await bridge.start();
  const inbox = join(env.dir, 'drop', 'inbox');
  writeFileSync(join(inbox, 'KORR_a.csv'), korrFile([['SKU-00001', 1, 'A-1'], ['SKU-00004', -500, 'A-2'], ['SKU-00002', 1, 'A-3']]));
  await until(() => bridge.lastRun('stock'), 'KORR_a');
  await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
  writeFileSync(join(inbox, 'KORR_b.csv'), korrFile([['SKU-00005', 3, 'B-1'], ['SKU-00001', 1, 'B-2']]));
  await until(async () => (await (await bridge.runtime.journal()).listFiles({ limit: 10 })).filter((f) => f.status !== 'processing').length >= 2, 'KORR_b');
  await until(() => !bridge.jobViews()[0].running, 'the run to end');
  return {
    env, bridge, loaded, url: bridge.url!, outbox: join(env.dir, 'drop', 'outbox'), errorDir: join(env.dir, 'drop', 'error'),
    async close() {
      await bridge.stop('test');
      env.cleanup();
    },
  };
}

/** An HTTP client of the console with the bearer token (or none), returning status, text and headers. */
export function consoleClient(base: string, token: string | null = CONSOLE_TOKEN) {
  const request = async (path: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const res = await fetch(`${base}${path}`, { method: init.method ?? (init.form ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  return {
    request,
    get: (path: string) => request(path),
    /** POSTs a form; an action's 303 to its result page (`/console/actions/ID`) is followed, like a browser does. */
    post: async (path: string, form: Record<string, string>) => {
      const posted = await request(path, { form });
      const location = posted.headers.get('location');
      return posted.status === 303 && location?.startsWith('/console/actions/') ? { ...(await request(location)), location } : { ...posted, location: undefined };
    },
    /** The CSRF token of a page's form. */
    csrfOf: (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '',
  };
}
