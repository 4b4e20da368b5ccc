import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '../../src/journal/test-support.js';

const PROBE = fileURLToPath(new URL('./temp-files-probe.ts', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

// In a process of its own: the temporary folder is the process's, set by the first journal it opens.
it("writes SQLite's temporary files in the journal's folder, not in /var/tmp or /tmp (a read-only root file system has neither)", () => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', PROBE, tmp.path], { encoding: 'utf8', timeout: 60_000 });
  const { tempDirectory, created } = JSON.parse(out.trim().split('\n').at(-1)!) as { tempDirectory: string; created: string[] };
  expect(tempDirectory && realpathSync(tempDirectory)).toBe(realpathSync(tmp.dir));
  // The unit's statement journal outgrew memory and went to a file, there.
  expect(created.length).toBeGreaterThan(0);
});
