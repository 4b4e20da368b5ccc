import { afterEach, describe, expect, it } from 'vitest';
import { runInboundJob } from '../../src/pipeline/index.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { workspace, type Workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

async function runOnce(ws: Workspace) {
  runtime = await ws.runtime();
  const job = runtime.loaded.config.inbound[0];
  const report = await runInboundJob(runtime, job);
  await runtime.close();
  runtime = undefined;
  return report;
}

describe('inbound pipeline: every document type from the samples', () => {
  it('adjustments (windows-1252, decimal comma): good rows applied with move ids, a skipped INFO row, a bad number reported with line and column', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    const before = await adminState(emu, ['adjustments']);
    const report = await runOnce(ws);
    expect(report.files.map((f) => [f.file, f.outcome])).toEqual([['KORR_20261120.csv', 'failed']]);
    expect(report.files[0].rows).toEqual({ ok: 3, error: 1, skipped: 1, uncertain: 0 });
    const rows = ws.result('KORR_20261120.result.csv');
    expect(rows.map((r) => [r.line, r.document, r.status])).toEqual([
      ['2', '', 'ok'], ['3', '', 'ok'], ['4', '', 'ok'], ['5', '', 'skipped'], ['6', '', 'error'],
    ]);
    expect(rows[0].move_id).toMatch(/^\d+$/);
    expect(rows[4].message).toBe('KORR_20261120.csv, line 6, column Menge: "3x" is not a number');
    const after = await adminState(emu, ['adjustments']);
    expect(after.adjustments.length - before.adjustments.length).toBe(3);
    expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
    expect(ws.files('inbox')).toEqual([]);
  });
});
