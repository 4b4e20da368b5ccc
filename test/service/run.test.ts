import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appliedReferences, setFaults, useEmulator } from '../support/emulator.js';
import { baseConfig, korrFile, stockConfig, tempConfig, until, useCleanups } from './support.js';

const root = resolve(import.meta.dirname, '../..');
const emu = useEmulator();
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

interface Child {
  process: ChildProcess;
  logs: Array<Record<string, any>>;
  exit: Promise<number | null>;
}

/** `wisbridge run` as its own process, the way systemd or Docker runs it; JSON logs from stderr. */
function startRun(configFile: string): Child {
  const child = spawn(process.execPath, [join(root, 'bin/wisbridge.js'), 'run', '--config', configFile], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token },
  });
  const logs: Array<Record<string, any>> = [];
  let buffer = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        logs.push(JSON.parse(line));
      } catch {
        logs.push({ msg: line, raw: true });
      }
    }
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { process: child, logs, exit };
}


describe('wisbridge run', () => {
  it('refuses a broken configuration with file:line:col messages and exit 2, no stack trace', async () => {
    const env = await tempConfig(`${baseConfig(emu.url)}
inbound:
  - name: stock
    drop: nowhere
    service: main
`, { load: false });
    cleanups.push(env.cleanup);
    const r = spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), 'run', '--config', env.file], { cwd: env.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^wisbridge run: CONFIG_INVALID: /);
    expect(r.stderr).toMatch(/wisbridge\.yaml:\d+:\d+: inbound\.0\.drop: unknown drop "nowhere" \(known: wms\)/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    const missing = spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), 'run', '--config', join(env.dir, 'nope.yaml')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('CONFIG_INVALID: cannot read the configuration file');
  });

  it('SIGTERM in the middle of a file: finishes the request in flight, exits within the bound; a restart finishes the file without duplicates', async () => {
    const rows = 200;
    const env = await tempConfig(`${stockConfig(emu.url, 5)}shutdown_timeout_ms: 8000\n`);
    cleanups.push(env.cleanup, async () => { await setFaults(emu, {}); });
    const inbox = join(env.dir, 'drop', 'inbox');
    const outbox = join(env.dir, 'drop', 'outbox');
    writeFileSync(join(inbox, 'KORR_big.csv'), korrFile(Array.from({ length: rows }, (_, i) => ['SKU-00001', 1, `SD-${i + 1}`] as [string, number, string])));
    // 40 requests of 5 rows, each held 250 ms by the emulator: the file takes about 10 s.
    await setFaults(emu, { latency_ms: 250, path_prefix: '/v1/inventory/adjustments' });

    const first = startRun(env.file);
    await until(async () => (await appliedReferences(emu, 'SD-')).size >= 10, 'some rows applied');
    first.process.kill('SIGTERM');
    // Exit 0 means the bridge's own bound held: past shutdown_timeout_ms it exits 3.
    expect(await first.exit).toBe(0);
    const messages = first.logs.map((l) => l.msg);
    expect(messages).toContain('shutting down: no new work; finishing the requests in flight');
    expect(messages).toContain('bridge stopped');
    expect(first.logs.find((l) => / metrics on http:.*, health on http:/.test(l.msg))?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const afterStop = await appliedReferences(emu, 'SD-');
    expect(afterStop.size).toBeGreaterThanOrEqual(10);
    expect(afterStop.size).toBeLessThan(rows);
    expect(afterStop.size % 5).toBe(0); // whole requests only: the one in flight was finished, not cut
    expect(existsSync(join(inbox, 'KORR_big.csv'))).toBe(true);
    expect(existsSync(join(outbox, 'KORR_big.result.csv'))).toBe(false);

    await setFaults(emu, { latency_ms: 20, path_prefix: '/v1/inventory/adjustments' });
    const second = startRun(env.file);
    await until(() => existsSync(join(outbox, 'KORR_big.result.csv')), 'the result file');
    second.process.kill('SIGTERM');
    expect(await second.exit).toBe(0);

    const applied = await appliedReferences(emu, 'SD-');
    expect(applied.size).toBe(rows);
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
    const result = readFileSync(join(outbox, 'KORR_big.result.csv'), 'utf8').trim().split('\r\n').slice(1);
    expect(result).toHaveLength(rows);
    expect(result.filter((l) => l.split(',')[2] !== 'ok')).toEqual([]);
    expect(readdirSync(join(env.dir, 'drop', 'archive'))).toEqual(['KORR_big.csv']);
    expect(second.logs.some((l) => l.msg === 'processing file' && l.claim === 'resume')).toBe(true);
  });
});
