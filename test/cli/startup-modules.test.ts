import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startupWorkspace } from '../support/startup-workspace.js';
import { REPOSITORY } from '../architecture/import-rules.js';

/*
 * What a command loads decides how long it takes to start (docs/conventions.md, "A command loads what it uses"). Each command
 * runs as `bin/wisbridge.js` in a child process (on the sources: the compiled build has the same imports) with
 * test/support/loaded-modules.mjs recording every module it loads; no timing is asserted.
 */

/** Modules only some commands need: the service's client, other transports, the console, the emulator... */
const HEAVY: Record<string, RegExp> = {
  pg: /\/node_modules\/pg\//,
  openpgp: /\/node_modules\/openpgp\//,
  ssh2: /\/node_modules\/ssh2(-sftp-client)?\//,
  undici: /\/node_modules\/undici\//,
  'pino-pretty': /\/node_modules\/pino-pretty\//,
  'date-holidays': /\/node_modules\/date-holidays\//,
  console: /\/src\/console\//,
  emulator: /\/src\/emulator\//,
  'the service': /\/src\/service\/service\.ts/,
  'the mapping thread': /\/src\/pipeline\/batches-worker\.ts/,
};

let dir: string;
let config: string;

/** The modules `wisbridge ARGS` loaded (URLs and paths), after checking it exited with `exit`. */
function loadedBy(args: string[], exit = 0): string[] {
  const record = join(dir, `modules-${args.join('-').replace(/\W+/g, '_')}.txt`);
  const r = spawnSync(process.execPath, ['--import', join(REPOSITORY, 'test/support/loaded-modules.mjs'), join(REPOSITORY, 'bin/wisbridge.js'), ...args], {
    cwd: REPOSITORY, encoding: 'utf8', env: { ...process.env, WISBRIDGE_SOURCES: '1', WISBRIDGE_LOADED_MODULES: record },
  });
  expect(r.status, r.stderr).toBe(exit);
  return readFileSync(record, 'utf8').split('\n').filter(Boolean);
}

const heavyIn = (modules: string[], except: string[] = []) =>
  Object.entries(HEAVY).filter(([name, pattern]) => !except.includes(name) && modules.some((m) => pattern.test(m))).map(([name]) => name);

beforeAll(() => {
  ({ dir, config } = startupWorkspace(REPOSITORY));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('what a command loads at start', () => {
  it('--version and --help load the CLI and none of the libraries', () => {
    for (const args of [['--version'], ['--help']]) {
      const modules = loadedBy(args);
      expect(modules.some((m) => m.endsWith('/src/cli/main.ts'))).toBe(true);
      expect(modules.filter((m) => /\/node_modules\/(zod|yaml|better-sqlite3|pino|csv-parse)\//.test(m))).toEqual([]);
      expect(heavyIn(modules)).toEqual([]);
    }
  }, 180_000);

  it('an empty batch reads the inbox and the journal without the client, the console or the mapping thread', () => {
    const modules = loadedBy(['batch', '--config', config]);
    expect(modules.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    expect(modules.some((m) => m.endsWith('/src/pipeline/job.ts'))).toBe(true);
    expect(heavyIn(modules)).toEqual([]);
    // The workspace has inbound jobs only: the export flow is not loaded. With no file, neither is a file's flow.
    expect(modules.filter((m) => /\/src\/export\//.test(m))).toEqual([]);
    expect(modules.filter((m) => /\/src\/(client\/|pipeline\/(containers|process-file|sender)\.ts)/.test(m))).toEqual([]);
  }, 180_000);

  it('status reads the journal without the pipeline, the client or the contract\'s schemas', () => {
    loadedBy(['batch', '--config', config]);
    const modules = loadedBy(['status', '--config', config]);
    expect(modules.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true);
    expect(modules.filter((m) => /\/src\/(pipeline|client|mapping|contract)\/|\/node_modules\/csv-parse\//.test(m))).toEqual([]);
    // The drops' option schemas and the names of their secret options, not their transports.
    expect(modules.filter((m) => /\/src\/drops\/(?!(secret-)?options\.ts)|\/node_modules\/chokidar\//.test(m))).toEqual([]);
    expect(heavyIn(modules)).toEqual([]);
  }, 180_000);

  it('config check reads the mappings without the client', () => {
    const modules = loadedBy(['config', 'check', '--config', config]);
    expect(modules.some((m) => m.endsWith('/src/mapping/load.ts'))).toBe(true);
    expect(heavyIn(modules)).toEqual([]);
  }, 180_000);
});
