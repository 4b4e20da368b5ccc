import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDrop } from '../../src/drops/create.js';

const root = resolve(import.meta.dirname, '../..');
const unit = readFileSync(join(root, 'deploy/wisbridge.service'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'wisbridge-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The unit's settings by section, in order. */
function sections(text: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  let current = '';
  for (const line of text.split('\n')) {
    const header = line.match(/^\[(\w+)\]$/);
    if (header) result.set((current = header[1]), []);
    else if (current && /^\w+=/.test(line)) result.get(current)!.push(line.slice(0, line.indexOf('=')));
  }
  return result;
}

const hasAnalyze = spawnSync('sh', ['-c', 'command -v systemd-analyze']).status === 0;

describe('the systemd unit', () => {
  it('puts the start rate limit in [Unit], where systemd reads it', () => {
    const keys = sections(unit);
    expect([...keys.keys()]).toEqual(['Unit', 'Service', 'Install']);
    expect(keys.get('Unit')).toEqual(expect.arrayContaining(['StartLimitIntervalSec', 'StartLimitBurst']));
    expect(keys.get('Service')!.filter((k) => k.startsWith('StartLimit'))).toEqual([]);
  });

  it(`passes systemd-analyze verify without a warning${hasAnalyze ? '' : ' (systemd-analyze missing: the section check above stands in)'}`, () => {
    const copy = join(work, 'wisbridge.service');
    copyFileSync(join(root, 'deploy/wisbridge.service'), copy);
    const r = hasAnalyze ? spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' }) : { status: 0, stdout: '', stderr: '' };
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  });

  it('its header describes the install the README describes: npm ci compiles dist/, which bin/wisbridge.js runs', () => {
    const header = unit.slice(0, unit.indexOf('[Unit]'));
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('`npm ci` also compiles `src/` to `dist/`');
    expect(header).toContain('compiles src/ to dist/');
    expect(header).not.toMatch(/no build step/);
    expect(unit).toMatch(/^UMask=0027$/m);
  });

  it('with its umask, a file the bridge writes into a setgid drop folder is readable by the shared group only', async () => {
    const umask = Number.parseInt(unit.match(/^UMask=(\d+)$/m)![1], 8);
    const outbox = join(work, 'drop', 'outbox');
    mkdirSync(outbox, { recursive: true });
    const sharedGid = 65534;
    chownSync(outbox, process.getuid!(), sharedGid);
    chmodSync(outbox, 0o2770);
    const previous = process.umask(umask);
    try {
      const drop = createDrop({ type: 'local', root: join(work, 'drop') });
      await drop.writeAtomic('outbox', 'work.csv', 'a;b\n1;2\n');
      await drop.close();
    } finally {
      process.umask(previous);
    }
    const written = statSync(join(outbox, 'work.csv'));
    expect(written.mode & 0o777).toBe(0o640);
    expect(written.gid).toBe(sharedGid);
  });
});
