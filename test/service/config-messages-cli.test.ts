import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** What `config check`, `config show` and `run` say about secrets: by reference, never shown, no code twice. */
const root = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'wisbridge-config-messages-'));
mkdirSync(join(dir, 'drop', 'inbox'), { recursive: true });
const wisbridge = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [join(root, 'bin/wisbridge.js'), ...args], { cwd: dir, env: { ...process.env, WB_MSG_TOKEN: undefined, ...env }, encoding: 'utf8' });

const config = (token: string, extra = '') => `journal: journal.sqlite
mappings: ${join(root, 'mappings')}
services:
  main:
    url: http://127.0.0.1:9
    token: ${token}
drops:
  wms: { type: local, root: drop }
${extra}`;

describe('configuration messages', () => {
  it('an inline secret says that secrets go by reference ({ env } or { file }), not "Invalid input"', () => {
    writeFileSync(join(dir, 'inline.yaml'), config('eyJhbGciOiJIUzI1NiJ9.payload.signature'));
    const check = wisbridge(['config', 'check', '--config', 'inline.yaml']);
    expect(check.status).toBe(1);
    expect(check.stderr).toBe('inline.yaml:6:12: services.main.token: a secret goes by reference, never inline: `{ env: NAME }` (an environment variable) or `{ file: PATH }` (a file holding it)\n');
    expect(check.stderr).not.toContain('eyJ');
    const run = wisbridge(['run', '--config', 'inline.yaml']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('a secret goes by reference, never inline');
  });

  it('a message never repeats its code: CONFIG_INVALID once, at the start', () => {
    writeFileSync(join(dir, 'unset.yaml'), config('{ env: WB_MSG_TOKEN }'));
    const run = wisbridge(['run', '--config', 'unset.yaml']);
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('wisbridge run: CONFIG_INVALID: cannot start: unset.yaml:6:12: services.main.token: environment variable WB_MSG_TOKEN (the token of service "main") is not set or empty\n');
    expect(wisbridge(['config', 'check', '--config', 'unset.yaml']).stderr).not.toContain('CONFIG_INVALID');
  });

  it('a mistyped mapping name is answered with the closest one', () => {
    writeFileSync(join(dir, 'typo.yaml'), config('{ env: WB_MSG_TOKEN }', 'inbound:\n  - { name: in, drop: wms, service: main, mappings: [inventory-adjustmens] }\n'));
    const check = wisbridge(['config', 'check', '--config', 'typo.yaml'], { WB_MSG_TOKEN: 'x' });
    expect(check.status).toBe(1);
    expect(check.stderr).toBe(`typo.yaml:10:54: inbound.0.mappings.0: no mapping named "inventory-adjustmens" in ${join(root, 'mappings')}; did you mean "inventory-adjustments"?\n`);
  });

  it("a refused configuration still has its mappings folder checked: both files' problems in one run", () => {
    mkdirSync(join(dir, 'broken-mappings'), { recursive: true });
    writeFileSync(join(dir, 'broken-mappings', 'adj.yaml'), 'document: inventory.adjustments\nfiles: "ADJ_*.csv"\nrequest:\n  fields:\n    product_code: SKU\n    quantity: { column: QTY, type: numbr }\n');
    writeFileSync(join(dir, 'both.yaml'), config('{ env: WB_MSG_TOKEN }', 'metrcs: { port: 9464 }\n').replace(`mappings: ${join(root, 'mappings')}`, 'mappings: broken-mappings'));
    const check = wisbridge(['config', 'check', '--config', 'both.yaml'], { WB_MSG_TOKEN: 'x' });
    expect(check.status).toBe(1);
    expect(check.stderr.trim().split('\n')).toEqual([
      'both.yaml:9:1: metrcs: unknown option; did you mean `metrics`?',
      `${join(dir, 'broken-mappings', 'adj.yaml')}:6:36: request.fields.quantity.type: Invalid option: expected one of "string"|"integer"|"number"|"boolean"|"date"|"datetime"; did you mean "number"?`,
    ]);
    // A folder that is not there is said at the option that names it.
    writeFileSync(join(dir, 'nofolder.yaml'), config('{ env: WB_MSG_TOKEN }', 'metrcs: { port: 9464 }\n').replace(`mappings: ${join(root, 'mappings')}`, 'mappings: no-such-folder'));
    const missing = wisbridge(['config', 'check', '--config', 'nofolder.yaml'], { WB_MSG_TOKEN: 'x' });
    expect(missing.stderr).toContain(`nofolder.yaml:2:11: mappings: cannot read the mappings folder ${join(dir, 'no-such-folder')}: ENOENT`);
  });

  it('config show and config check redact the query token of a webhook URL', () => {
    writeFileSync(join(dir, 'hook.yaml'), config('{ env: WB_MSG_TOKEN }', 'alerts:\n  webhook: { url: "https://hooks.example.com/services/x?token=s3cr3t-hook&channel=ops" }\n'));
    const env = { WB_MSG_TOKEN: 'x' };
    const show = wisbridge(['config', 'show', '--config', 'hook.yaml'], env);
    expect(show.status).toBe(0);
    expect(show.stdout).toContain('url: https://hooks.example.com/services/x?token=[redacted]&channel=[redacted]');
    const check = wisbridge(['config', 'check', '--config', 'hook.yaml'], env);
    expect(check.status).toBe(0);
    expect(check.stderr).toContain('alerts.webhook.url: https://hooks.example.com/services/x?token=[redacted]&channel=[redacted] carries credentials in the file; give the URL by reference');
    expect(show.stdout + show.stderr + check.stdout + check.stderr).not.toContain('s3cr3t-hook');
  });
});
