import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'wisbridge-config-cli-'));
const wisbridge = (args: string[], env: NodeJS.ProcessEnv = {}, cwd = dir) =>
  spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });

const CONFIG = `
journal: journal.sqlite
mappings: ${join(root, 'mappings')}
services:
  main:
    url: http://127.0.0.1:9
    token: { env: WB_CFG_TOKEN }
drops:
  wms:
    type: sftp
    host: 127.0.0.1
    username: bridge
    password: { env: WB_CFG_PASSWORD }
    insecure_accept_any_host_key: true
  local:
    type: local
    root: drop
    settle_ms: 0
`;

describe('wisbridge config', () => {
  it('show prints the effective configuration in snake_case, defaults and environment overrides in, secrets out', () => {
    const file = join(dir, 'show.yaml');
    writeFileSync(file, CONFIG);
    const r = wisbridge(['config', 'show', '--config', file], { WB_CFG_TOKEN: 'jwt-very-secret', WB_CFG_PASSWORD: 'pw-very-secret', WISBRIDGE_METRICS_PORT: '9555' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/very-secret/);
    const shown = parse(r.stdout);
    expect(shown.services.main).toMatchObject({ token: '[secret from environment variable WB_CFG_TOKEN]', batch_size: 100 });
    expect(shown.drops.wms).toMatchObject({ password: '[secret from environment variable WB_CFG_PASSWORD]', settle_ms: 2000, reconnect_attempts: 5 });
    expect(shown.drops.local).toMatchObject({ settle_ms: 0, watch_events: true });
    expect(Object.keys(shown.drops.wms).filter((k) => /[A-Z]/.test(k))).toEqual([]);
    expect(shown.metrics).toEqual({ host: '127.0.0.1', port: 9555 });
  });

  it('check accepts an old spelling with a warning naming the new key, and refuses a typo with "did you mean"', () => {
    mkdirSync(join(dir, 'drop', 'inbox'), { recursive: true });
    const old = join(dir, 'old.yaml');
    writeFileSync(old, CONFIG.replace('settle_ms: 0', 'settleMs: 0'));
    const ok = wisbridge(['config', 'check', '--config', old], { WB_CFG_TOKEN: 't', WB_CFG_PASSWORD: 'p' });
    expect(ok.status).toBe(0);
    expect(ok.stderr).toBe(`${old}:18:5: drops.local.settleMs: deprecated spelling; write \`settle_ms\` (the old name still works for now) (warning)\n`);
    const typo = join(dir, 'typo.yaml');
    writeFileSync(typo, CONFIG.replace('settle_ms: 0', 'setle_ms: 0'));
    const bad = wisbridge(['config', 'check', '--config', typo], { WB_CFG_TOKEN: 't', WB_CFG_PASSWORD: 'p' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('drops.local.setle_ms: unknown option; did you mean `settle_ms`?');
  });

  it('check fails on a secret variable that is not set (run would refuse to start); --skip-secrets checks the shape only', () => {
    const file = join(dir, 'unset.yaml');
    writeFileSync(file, CONFIG);
    const { WB_CFG_TOKEN: _t, WB_CFG_PASSWORD: _p, ...env } = process.env;
    const r = spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), 'config', 'check', '--config', file], { cwd: dir, env, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/services\.main\.token: environment variable WB_CFG_TOKEN \(the token of service "main"\) is not set or empty/);
    expect(r.stderr).toMatch(/drops\.wms: environment variable WB_CFG_PASSWORD \(the password of drop "wms"\) is not set or empty/);
    const shape = spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), 'config', 'check', '--skip-secrets', '--config', file], { cwd: dir, env, encoding: 'utf8' });
    expect(shape.status, shape.stderr).toBe(0);
  });

  it('check refuses a local drop whose inbox does not exist, at the drop, with the folder it looked for', () => {
    const file = join(dir, 'noinbox.yaml');
    writeFileSync(file, CONFIG.replace('root: drop', 'root: gone'));
    rmSync(join(dir, 'gone'), { recursive: true, force: true });
    const r = wisbridge(['config', 'check', '--config', file], { WB_CFG_TOKEN: 't', WB_CFG_PASSWORD: 'p' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`${file}:16:5: drops.local.inbox: the inbox ${join(dir, 'gone', 'inbox')} cannot be read (ENOENT); create it, or name the folder the WMS writes to\n`);
    mkdirSync(join(dir, 'gone', 'inbox'), { recursive: true });
    expect(wisbridge(['config', 'check', '--config', file], { WB_CFG_TOKEN: 't', WB_CFG_PASSWORD: 'p' }).status).toBe(0);
  });

  it('a missing configuration file is named by its full path, with --config suggested', () => {
    const r = wisbridge(['status']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`wisbridge status: CONFIG_INVALID: cannot read the configuration file ${join(dir, 'wisbridge.yaml')} (no such file; give the configuration with --config FILE (start from examples/wisbridge.yaml))\n`);
  });
});
