import { expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import { rawDatabase } from '../../src/journal/test-support.js';
import { runInboundJob } from '../../src/pipeline/index.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { korr, runInboundOnce, workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

it("the journal's disk full in the middle of a file: the run stops with the reason, the file waits in the inbox, and once there is room it is finished with nothing applied twice", async () => {
  const ws = workspace({ url: emu.url, token: emu.token });
  const rows = Array.from({ length: 3000 }, (_, i) => `SKU-0000${(i % 2) + 1};1;Fund;REF-${i};19.11.2026;;ACME`);
  ws.drop('KORR_20261120.csv', korr(rows));

  const runtime = await ws.runtime();
  try {
    const db = rawDatabase(await runtime.journal());
    // Room for a few commits of the file (a setting of this connection): SQLite then answers as for a full disk.
    db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + 40}`);
    const failure = await runInboundJob(runtime, runtime.loaded.config.inbound[0]!).catch((error: unknown) => error);
    expect(isWisbridgeError(failure, 'JOURNAL')).toBe(true);
    expect((failure as Error).message).toMatch(/^the journal .*journal\.sqlite cannot grow: database or disk is full \(SQLITE_FULL\)\. Free space on its disk/);
  } finally {
    await runtime.close();
  }
  // Not the file's fault: it is neither refused nor archived.
  expect(ws.files('inbox')).toEqual(['KORR_20261120.csv']);
  expect(ws.files('error')).toEqual([]);
  expect(ws.files('archive')).toEqual([]);
  const appliedBefore = (await adminState(emu, ['adjustments'])).adjustments.length;
  expect(appliedBefore).toBeGreaterThan(0);
  expect(appliedBefore).toBeLessThan(3000);

  const report = (await runInboundOnce(ws)).files[0];
  // Requests whose answers could not be stored are uncertain (an adjustment cannot be read back), never sent again.
  expect(report.rows.error).toBe(0);
  expect(report.rows.ok + report.rows.uncertain).toBe(3000);
  expect((await adminState(emu, ['adjustments'])).adjustments.length).toBe(3000);
  expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
  expect(ws.result('KORR_20261120.result.csv')).toHaveLength(3000);
});
