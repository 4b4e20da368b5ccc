import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startupWorkspace } from '../support/startup-workspace.js';

/*
 * The build as production runs it (scripts/build.mjs: one esbuild bundle with chunks), made afresh in an install of
 * its own with no sources beside it, so that nothing of it can fall back to the sources through tsx: the demo proves
 * the worker threads, the lazily loaded modules and the package paths resolve from the chunks.
 */
const root = resolve(import.meta.dirname, '../..');
let app: string;
let cacheHome: string;

beforeAll(() => {
  app = mkdtempSync(join(tmpdir(), 'wisbridge-bundle-'));
  cacheHome = join(app, 'cache');
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--out', join(app, 'dist')], { stdio: 'pipe' });
  mkdirSync(join(app, 'bin'));
  for (const f of ['wisbridge.js', 'build-state.js']) cpSync(join(root, 'bin', f), join(app, 'bin', f));
  cpSync(join(root, 'package.json'), join(app, 'package.json'));
  for (const d of ['node_modules', 'mappings', 'samples', 'schemas']) symlinkSync(join(root, d), join(app, d));
}, 120_000);

afterAll(() => rmSync(app, { recursive: true, force: true }));

const wisbridge = (...args: string[]) => spawnSync(process.execPath, [join(app, 'bin/wisbridge.js'), ...args], {
  cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, env: { ...process.env, XDG_CACHE_HOME: cacheHome },
});

describe('the bundled build', () => {
  it('is a handful of files, not one per source module', () => {
    const files = readdirSync(join(app, 'dist'), { recursive: true }).filter((f) => String(f).endsWith('.js'));
    const sources = readdirSync(join(root, 'src'), { recursive: true }).filter((f) => /(?<!\.test)\.ts$/.test(String(f)));
    expect(files.length).toBeLessThan(sources.length / 3);
    expect(files).toContain(join('cli', 'main.js'));
  });

  it('runs the demo end to end: worker threads, exports, the journal and the emulator from the chunks', () => {
    const r = wisbridge('demo', '--dir', join(app, 'demo'));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/1\. export pass/);
    expect(readdirSync(join(app, 'demo', 'wms', 'outbox')).length).toBeGreaterThan(6);
  }, 180_000);

  it('keeps the mappings it checked under the build stamp and reads them back to the same verdict', () => {
    const first = wisbridge('mappings', 'check');
    expect(first.status, first.stderr).toBe(0);
    const [cacheFile] = readdirSync(join(cacheHome, 'wisbridge')).filter((f) => f.startsWith('mappings-'));
    const cache = JSON.parse(readFileSync(join(cacheHome, 'wisbridge', cacheFile), 'utf8')) as { checker: string; entries: Record<string, unknown> };
    expect(cache.checker).toBe(readFileSync(join(app, 'dist/.built'), 'utf8').trim());
    expect(Object.keys(cache.entries).length).toBe(readdirSync(join(root, 'mappings')).filter((n) => n.endsWith('.yaml')).length);
    const again = wisbridge('mappings', 'check');
    expect(again.status).toBe(0);
    expect(again.stdout).toBe(first.stdout);
  });

  it('starts an empty batch, its configuration and mappings checked before, without the YAML parser, zod, the schemas or the mapping compile steps, which a first file loads', () => {
    // What a chunk holds is named by esbuild's `// src/…` comments; the chunks are read as the build loaded them.
    const ws = startupWorkspace(app);
    try {
      const record = join(ws.dir, 'modules.txt');
      const batch = () => spawnSync(process.execPath, ['--import', join(root, 'test/support/loaded-modules.mjs'), join(app, 'bin/wisbridge.js'), 'batch', '--config', ws.config], {
        cwd: app, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cacheHome, WISBRIDGE_LOADED_MODULES: record },
      });
      expect(batch().status).toBe(0);
      rmSync(record);
      const r = batch();
      expect(r.status, r.stderr).toBe(0);
      const sources = readFileSync(record, 'utf8').split('\n').filter((u) => u.startsWith('file:') && u.includes('/dist/'))
        .flatMap((u) => readFileSync(fileURLToPath(u), 'utf8').match(/^\/\/ (src|node_modules)\/\S+/gm) ?? []).map((m) => m.slice(3));
      expect(sources).toContain('src/mapping/folder.ts');
      expect(sources).toContain('src/config/load.ts');
      expect(sources.filter((f) => /^src\/(contract|client|x12)\/|^src\/mapping\/(load|mapping|compile|definition-schema)\.ts$/.test(f))).toEqual([]);
      // The configuration found in the cache of checked ones: neither parsed nor validated, its drops opened as checked.
      expect(sources.filter((f) => /^node_modules\/(zod|yaml)\/|^src\/(config\/(schema|check-text)|drops\/(options|create)|util\/yaml-document|journal\/postgres\/options)\.ts$/.test(f))).toEqual([]);
      // A file then: its mapping, taken from the cache, is compiled on use and maps the rows into a request (which
      // finds no service on the workspace's port: nothing applied, the run stops with the service unavailable).
      cpSync(join(root, 'samples/KORR_20261120.csv'), join(ws.dir, 'drop/inbox/KORR_20261120.csv'));
      const withFile = batch();
      expect(withFile.status).toBe(2);
      expect(withFile.stderr).toMatch(/^wisbridge batch: UNAVAILABLE: inventory\.adjustments \(POST /);
      // A problem found after the check (a secret gone) is placed in the cached configuration's text, parsed for it.
      rmSync(join(ws.dir, 'token'));
      const refused = batch();
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/wisbridge\.yaml:4:\d+: services\.wis\.token: file \S+token \(the token of service "wis"\) cannot be read/);
    } finally {
      rmSync(ws.dir, { recursive: true, force: true });
    }
  }, 120_000);
});
