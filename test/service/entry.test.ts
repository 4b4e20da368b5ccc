import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** A checkout with bin/wisbridge.js, whose build and sources each say which one ran. */
function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-entry-'));
  for (const d of ['bin', 'src/cli', 'dist/cli']) mkdirSync(join(dir, d), { recursive: true });
  for (const f of ['wisbridge.js', 'build-state.js']) copyFileSync(join(root, 'bin', f), join(dir, 'bin', f));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  const main = (what: string, ts: boolean) => `export async function main(argv${ts ? ': string[]' : ''}) { console.log('${what}', argv.join(' ')); return 0; }\n`;
  writeFileSync(join(dir, 'src/cli/main.ts'), main('sources', true));
  writeFileSync(join(dir, 'dist/cli/main.js'), main('build', false));
  return dir;
}

const run = (dir: string, env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [join(dir, 'bin/wisbridge.js'), 'status'], { env: { ...process.env, ...env }, encoding: 'utf8' }).trim();
const setTime = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

describe('bin/wisbridge.js: the compiled build only while it is newer than every source', () => {
  const dir = checkout();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the sources through tsx when there is no build, the build once it is stamped, the sources again once one is edited', () => {
    expect(run(dir)).toBe('sources status');
    writeFileSync(join(dir, 'dist/.built'), 'now\n');
    setTime(join(dir, 'src/cli/main.ts'), 1_700_000_000);
    setTime(join(dir, 'dist/.built'), 1_700_000_100);
    expect(run(dir)).toBe('build status');
    expect(run(dir, { WISBRIDGE_SOURCES: '1' })).toBe('sources status');
    setTime(join(dir, 'src/cli/main.ts'), 1_700_000_200);
    expect(run(dir)).toBe('sources status');
  });
});
