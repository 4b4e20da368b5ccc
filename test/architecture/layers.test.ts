import { describe, expect, it } from 'vitest';
import { posix } from 'node:path';
import { checkImports, importsOf, REPOSITORY, sourceModules } from './import-rules.js';

/** A tree of modules to check: the real src/ plus the given files (path → text). */
function withFiles(files: Record<string, string>): Map<string, string> {
  return new Map([...sourceModules(REPOSITORY), ...Object.entries(files)]);
}

describe('the import graph of src/', () => {
  it('points down the layers, enters folders by their index and has no cycle', () => {
    expect(checkImports(sourceModules(REPOSITORY))).toEqual([]);
  });

  it('reads every form of relative import and re-export', () => {
    expect(importsOf([
      "import { a } from './a.js';",
      "import type {\n  B,\n  C,\n} from '../b.js';",
      "export * from './c.js';",
      "export type * from './d.js';",
      "export { e } from './e.js';",
      "import './f.js';",
      "const g = await import('./g.js');",
      "import { z } from 'zod';",
    ].join('\n'))).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js', './g.js']);
  });

  it('refuses an import from a higher layer and between units of one layer', () => {
    const upward = checkImports(withFiles({ 'src/errors.ts': "import type { WisClient } from './client/index.js';\n" }));
    expect(upward).toContain('src/errors.ts → src/client/index.ts: errors imports from client, a higher layer');
    expect(upward).toContain('folders in a cycle: client ↔ errors ↔ mapping ↔ secret ↔ x12');
    expect(checkImports(withFiles({ 'src/drops/bad.ts': "import { loadMappings } from '../mapping/index.js';\n" }))).toEqual([
      'src/drops/bad.ts → src/mapping/index.ts: drops and mapping are one layer and do not import each other',
    ]);
  });

  it('keeps the emulator apart from the bridge', () => {
    expect(checkImports(withFiles({ 'src/emulator/bad.ts': "import { openJournal } from '../journal/index.js';\n" }))).toEqual([
      'src/emulator/bad.ts → src/journal/index.ts: emulator stands apart and imports only util, contract, errors, log',
    ]);
    expect(checkImports(withFiles({ 'src/pipeline/bad.ts': "import { startEmulator } from '../emulator/index.js';\n" }))).toEqual([
      'src/pipeline/bad.ts → src/emulator/index.ts: emulator stands apart, imported only by demo, cli',
    ]);
  });

  it('refuses reaching past a folder index into its internals', () => {
    expect(checkImports(withFiles({ 'src/service/bad.ts': "import { deliver } from '../pipeline/sender.js';\n" }))).toEqual([
      "src/service/bad.ts → src/pipeline/sender.ts: reaches past src/pipeline/index.ts into the folder's internals",
    ]);
  });

  it('refuses cycles between folders and between modules', () => {
    const folders = checkImports(withFiles({ 'src/log.ts': "import { version } from './util/version.js';\n", 'src/util/bad.ts': "import { createLogger } from '../log.js';\n" }));
    expect(folders).toContain('folders in a cycle: log ↔ util');
    const modules = checkImports(withFiles({ 'src/util/a-bad.ts': "import type { B } from './b-bad.js';\n", 'src/util/b-bad.ts': "import type { A } from './a-bad.js';\n" }));
    expect(modules).toEqual(['modules in a cycle: src/util/a-bad.ts ↔ src/util/b-bad.ts']);
  });

  it('asks for a new folder to be placed in the layer order', () => {
    expect(checkImports(withFiles({ 'src/reports/x.ts': 'export const x = 1;\n' }))).toEqual([
      'reports: not in the layer order (test/architecture/import-rules.ts, docs/conventions.md)',
    ]);
  });
});

describe("the journal's test hooks (src/journal/testing.ts)", () => {
  const HOOKS = 'src/journal/testing.ts';
  /** The modules of src/ (tests and their helpers aside) that import the test hooks. */
  const importersOfHooks = (modules: Map<string, string>): string[] =>
    [...modules].filter(([path, text]) => path !== HOOKS && importsOf(text).some((spec) =>
      spec.startsWith('.') && posix.join(posix.dirname(path), spec).replace(/\.js$/, '.ts') === HOOKS)).map(([path]) => path);

  it('are imported by tests only, never by a module of the bridge', () => {
    expect(importersOfHooks(sourceModules(REPOSITORY))).toEqual([]);
  });

  it('refuses an import of them from a module of the bridge', () => {
    expect(importersOfHooks(withFiles({ 'src/pipeline/bad.ts': "import { testHooks } from '../journal/testing.js';\n" }))).toEqual(['src/pipeline/bad.ts']);
  });
});
