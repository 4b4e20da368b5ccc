import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConfigFile } from '../../src/config/check.js';
import { loadConfig } from '../../src/config/load.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { useEmulator } from '../support/emulator.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { baseConfig, eventsOf, korrFile, memoryLogger, tempConfig, until, useCleanups } from './support.js';

const root = resolve(import.meta.dirname, '../..');
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
let server: SftpServer;
beforeAll(async () => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
  server = await startSftpServer();
});
afterAll(async () => {
  await server?.stop();
});

const inbound = `
inbound:
  - name: stock
    drop: wms
    service: main
    mappings: [inventory-adjustments]
`;

function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const env2 = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env2[k];
  return spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), ...args], { cwd: root, encoding: 'utf8', env: env2, timeout: 60_000 });
}

describe('start-up refuses what would fail later', () => {
  it('a missing token variable, an unreadable key file and an invalid mapping: config check names each; run exits 2 with one line', async () => {
    const mappings = join(root, 'mappings');
    const env = await tempConfig(`${baseConfig(emu.url)}
  partner:
    type: sftp
    host: 127.0.0.1
    username: wms
    private_key_path: keys/missing_key
    host_key_fingerprint: "SHA256:${'a'.repeat(43)}"
${inbound}`, { load: false });
    cleanups.push(env.cleanup);
    const unset = { WISBRIDGE_TEST_TOKEN: undefined };
    const check = runCli(['config', 'check', '--config', env.file], unset);
    expect(check.status).toBe(1);
    const lines = check.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/wisbridge\.yaml:\d+:\d+: services\.main\.token: environment variable WISBRIDGE_TEST_TOKEN \(the token of service "main"\) is not set or empty$/);
    expect(lines[1]).toMatch(/wisbridge\.yaml:\d+:\d+: drops\.partner: the private key file .*keys\/missing_key cannot be read \(ENOENT\)$/);
    expect(runCli(['config', 'check', '--skip-secrets', '--config', env.file], unset).status).toBe(0);

    const run = runCli(['run', '--config', env.file], unset);
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^wisbridge run: CONFIG_INVALID: cannot start: .*services\.main\.token: .*WISBRIDGE_TEST_TOKEN \(the token of service "main"\) is not set or empty \(and 1 more: wisbridge config check --config .* lists them\)$/),
    ]);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace

    // An invalid mapping in the folder: the same refusal, before any file is read.
    const broken = await tempConfig(baseConfig(emu.url).replace(JSON.stringify(mappings), JSON.stringify(join(env.dir, 'mappings'))) + inbound, { load: false });
    cleanups.push(broken.cleanup);
    spawnSync('cp', ['-r', mappings, join(env.dir, 'mappings')]);
    writeFileSync(join(env.dir, 'mappings', 'inventory-adjustments.yaml'), 'name: inventory-adjustments\ndirection: inbound\ndocument: inventory.adjustments\nfiles: ["^KORR"]\ncolumns: {}\nfields: { quantity: { colum: Menge } }\n');
    writeFileSync(join(broken.dir, 'drop', 'inbox', 'KORR_x.csv'), korrFile([['SKU-00001', 1, 'X-1']]));
    expect((await checkConfigFile(broken.file)).map((p) => p.message).join('\n')).toMatch(/inventory-adjustments/);
    const refused = runCli(['run', '--config', broken.file]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^wisbridge run: CONFIG_INVALID: cannot start: .*inventory-adjustments\.yaml/);
    const batch = runCli(['batch', '--config', broken.file]);
    expect(batch.status).toBe(2);
    expect(spawnSync('ls', [join(broken.dir, 'drop', 'inbox')], { encoding: 'utf8' }).stdout.trim()).toBe('KORR_x.csv'); // nothing moved to error/
  });
});

describe('every secret reference is checked', () => {
  it('the console\'s token and the webhook\'s header are secrets too: config check names a missing one, run refuses', async () => {
    const env = await tempConfig(`${baseConfig(emu.url)}${inbound}console:
  auth: { bearer_token: { env: WB_TEST_CONSOLE_TOKEN } }
alerts:
  webhook:
    url: http://127.0.0.1:9/alerts
    headers: { Authorization: { file: no-such-alert-token } }
`, { load: false });
    cleanups.push(env.cleanup);
    const problems = (await checkConfigFile(env.file)).map((p) => p.message);
    expect(problems).toEqual([
      expect.stringMatching(/^console\.auth\.bearer_token: environment variable WB_TEST_CONSOLE_TOKEN \(the console bearer token\) is not set or empty$/),
      expect.stringMatching(/^alerts\.webhook\.headers\.Authorization: file .*no-such-alert-token \(the webhook's Authorization header\) cannot be read \(ENOENT\)$/),
    ]);
    const run = runCli(['run', '--config', env.file], { WB_TEST_CONSOLE_TOKEN: undefined });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^wisbridge run: CONFIG_INVALID: cannot start: .*console\.auth\.bearer_token/);
  });
});

describe('a job run says what happened', () => {
  it('a run whose file had a failed row is partial, logged at warn, counted as partial', async () => {
    const env = await tempConfig(`${baseConfig(emu.url)}${inbound}  - { name: acks, drop: wms, service: main, mappings: [customer-shipment-acknowledgements], watch: false }\n`);
    cleanups.push(env.cleanup);
    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(env.loaded, { runners: flowRunners, logger, httpServer: false });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    writeFileSync(join(env.dir, 'drop', 'inbox', 'KORR_bad.csv'), korrFile([['SKU-00001', 1, 'P-1'], ['SKU-99999', 1, 'P-2']]));
    await until(() => bridge.lastRun('stock'), 'the watched file');
    expect(bridge.lastRun('stock')).toMatchObject({ result: 'partial', rows: { ok: 1, error: 1 } });
    const finished = eventsOf(records, 'job.run.finished').find((r) => r.job === 'stock');
    expect(finished).toMatchObject({ level: 40, result: 'partial' });
    expect((await bridge.metrics.text())).toMatch(/wisbridge_job_runs_total\{job="stock",trigger="watch",result="partial",instance="[^"]+"\} 1/);
    expect(await bridge.runNow('acks')).toMatchObject({ result: 'ok', files: 0 });
  });
});

describe('a drop that cannot be listed', () => {
  it('shows in /healthz as degraded with the reason, in wisbridge_drop_up, and at error level once', async () => {
    const keyFile = 'client_key';
    const env = await tempConfig(`
journal: journal.sqlite
mappings: ${JSON.stringify(join(root, 'mappings'))}
services:
  main: { url: ${emu.url}, token: { env: WISBRIDGE_TEST_TOKEN } }
drops:
  wms:
    type: sftp
    host: ${server.host}
    port: ${server.port}
    username: ${server.username}
    private_key: { file: ${keyFile} }
    host_key_fingerprint: "SHA256:${'b'.repeat(43)}"
    root: ${server.root}
    settle_ms: 0
    poll_interval_ms: 50
    reconnect_attempts: 1
    reconnect_initial_delay_ms: 10
${inbound}metrics: { host: 127.0.0.1, port: 0 }
`, { load: false });
    cleanups.push(env.cleanup);
    writeFileSync(join(env.dir, keyFile), server.privateKey, { mode: 0o600 });
    const { logger, records } = memoryLogger();
    const bridge = new BridgeService(await loadConfig(env.file), { runners: flowRunners, logger, watchRetryMs: 50 });
    cleanups.push(() => bridge.stop('test'));
    await bridge.start();
    await until(() => bridge.drops.problems.length > 0 && bridge.drops.problems[0]!.failures >= 3, 'three failed listings');

    const health = await fetch(`${bridge.url}/healthz`);
    expect(health.status).toBe(503);
    const body = (await health.json()) as { status: string; drops: Array<{ drop: string; reason: string }> };
    expect(body.status).toBe('degraded');
    expect(body.drops).toEqual([expect.objectContaining({ drop: 'wms', reason: expect.stringMatching(/^DROP_HOST_KEY: /) })]);
    const metrics = await (await fetch(`${bridge.url}/metrics`)).text();
    expect(metrics).toMatch(/wisbridge_drop_up\{drop="wms",instance="[^"]+"\} 0/);
    expect(Number(/wisbridge_drop_list_failures_total\{drop="wms",code="DROP_HOST_KEY",instance="[^"]+"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
    const errors = records.filter((r) => r.level === 50 && r.msg === 'the drop cannot be listed: its files wait until it can');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ drop: 'wms', err: expect.stringMatching(/^DROP_HOST_KEY/) });
    expect(JSON.stringify(records)).not.toContain(server.privateKey.slice(40, 80));
  });
});
