import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { pgWorkspace } from '../journal/pg-workspace.js';
import { useCleanups } from '../service/support.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { finished, korr, ROOT } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();

// The journal on PostgreSQL, so that the bridge's process writes no file but its working folder's before the limit
// bites: a file size limit (RLIMIT_FSIZE, set by the shell) makes its private copy of a 1.8 MB file fail with EFBIG,
// as a full disk fails it with ENOSPC.
it("a working folder that cannot take the file's private copy stops the run with WORK_FOLDER naming it; the file waits in the inbox and goes through once there is room", async () => {
  const ws = await pgWorkspace(emu, cleanups);
  const rows = Array.from({ length: 40000 }, (_, i) => `SKU-0000${(i % 2) + 1};1;Fund;REF-${i};19.11.2026;;ACME`);
  ws.drop('KORR_20261120.csv', korr(rows));

  const limited = await finished(spawn('sh', ['-c', `ulimit -f 1024 && exec "${process.execPath}" bin/wisbridge.js batch --config "${ws.configFile}"`], {
    cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'],
  }));
  expect(limited.code).toBe(2);
  expect(limited.stderr.trim()).toMatch(new RegExp(`^wisbridge batch: WORK_FOLDER: cannot write the private copy of inbox/KORR_20261120\\.csv in ${ws.dir}/wisbridge-snapshots: EFBIG: file too large, write\\. Free space there, or make it writable by the bridge's user; the file stays in the inbox and is taken again$`));
  expect(ws.files('inbox')).toEqual(['KORR_20261120.csv']);
  expect(ws.files('error')).toEqual([]);
  expect((await adminState(emu, ['adjustments'])).adjustments).toHaveLength(0);

  const again = await ws.run('batch');
  expect(again.code, again.stderr).toBe(0);
  expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
  expect((await adminState(emu, ['adjustments'])).adjustments).toHaveLength(40000);
});
