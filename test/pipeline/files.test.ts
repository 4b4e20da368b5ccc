import { readFileSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { rawDatabase } from '../../src/journal/test-support.js';
import { processFile } from '../../src/pipeline/index.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { runInboundOnce, workspace, exportAwaitingConfirmation, exportAckStatuses } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});
const adjustmentCount = async () => (await adminState(emu, ['adjustments'])).adjustments.length;

describe('the same file twice', () => {
  it('dropped again (same name, then renamed) is not applied twice; each copy gets a result file of its own saying so and is archived', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    expect((await runInboundOnce(ws)).files[0].outcome).toBe('failed');
    expect(await adjustmentCount()).toBe(3);
    const original = ws.read('outbox', 'KORR_20261120.result.csv');

    ws.drop('KORR_20261120.csv');
    const again = (await runInboundOnce(ws)).files[0];
    expect(again.outcome).toBe('duplicate');
    expect(again.rows).toEqual({ ok: 0, error: 0, skipped: 5, uncertain: 0 });
    // The first result file (with its errors) is kept; the duplicate's has a name of its own.
    expect(ws.read('outbox', 'KORR_20261120.result.csv')).toBe(original);
    expect(again.resultFile).toMatch(/^KORR_20261120\.\d{8}T\d{9}Z\.result\.csv$/);
    const rows = ws.result(again.resultFile!);
    expect(rows.map((r) => r.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(rows[0].message).toMatch(/^duplicate: the same content was already processed as KORR_20261120\.csv on 2026-.* \(failed\); not applied again$/);

    ws.drop('KORR_20261120.csv', undefined, 'KORR_20261120_resent.csv');
    const renamed = (await runInboundOnce(ws)).files[0];
    expect(renamed.outcome).toBe('duplicate');
    expect(ws.result('KORR_20261120_resent.result.csv')[0].message).toContain('as KORR_20261120.csv');
    expect(await adjustmentCount()).toBe(3);
    expect(ws.files('archive')).toHaveLength(3);
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('outbox')).toHaveLength(3);
  });

  it('--force processes the same bytes again', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    await runInboundOnce(ws);
    ws.drop('KORR_20261120.csv');
    runtime = await ws.runtime();
    const report = await processFile(runtime, runtime.loaded.config.inbound[0], 'KORR_20261120.csv', { force: true });
    expect(report.outcome).toBe('failed');
    expect(report.rows.ok).toBe(3);
    expect(await adjustmentCount()).toBe(6);
  });

  it('a run stopped between finishing and archiving: the next run writes the real result and archives, sending nothing', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv');
    await runInboundOnce(ws);
    // Put the world back as a crash right after finishFile would have left it.
    renameSync(join(ws.folder('archive'), 'KORR_20261120.csv'), join(ws.folder('inbox'), 'KORR_20261120.csv'));
    unlinkSync(join(ws.folder('outbox'), 'KORR_20261120.result.csv'));
    const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
    rawDatabase(journal).prepare('UPDATE files SET disposed_to = NULL').run();
    await journal.close();
    const report = (await runInboundOnce(ws)).files[0];
    expect(report.outcome).toBe('failed');
    expect(report.requests).toBe(0);
    expect(ws.result('KORR_20261120.result.csv').map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'skipped', 'error']);
    expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
    expect(await adjustmentCount()).toBe(3);
  });
});

// The file mapped on the main thread, and on a thread of its own (the thread's errors keep their code and text).
describe.each([['on the main thread', undefined], ['on its own thread', { from_bytes: 1 }]])('a file that fails as a whole goes to error/ with a reason file, mapped %s', (_, mappingThreads) => {
  const cases: Array<[string, string | Buffer, RegExp]> = [
    ['ACK_SO_empty.csv', '', /FILE_UNREADABLE: ACK_SO_empty\.csv is empty: there is no header row/],
    ['ACK_SO_latin1.csv', Buffer.from('NUMBER\nSO-1001\nSO-10\xe902\n', 'latin1'), /is not valid UTF-8 \(near byte \d+\)/],
    ['UNKNOWN_20261120.csv', 'A,B\n1,2\n', /MAPPING_NOT_FOUND: no inbound mapping matches the file name "UNKNOWN_20261120\.csv"/],
    ['ACK_SO_layout.csv', 'NUM\nSO-1001\n', /FILE_LAYOUT: ACK_SO_layout\.csv, line 1: column "NUMBER" named by the mapping is not in the header/],
    ['ACK_SO_quote.csv', 'NUMBER\n"SO-1001\nSO-1002\n', /FILE_UNREADABLE: ACK_SO_quote\.csv, line \d+: a quoted field is not closed/],
  ];
  it.each(cases)('%s', async (name, content, reason) => {
    const ws = workspace({ url: emu.url, token: emu.token, mappingThreads });
    ws.drop(name, content);
    const report = (await runInboundOnce(ws)).files[0];
    expect(report.outcome).toBe('rejected');
    expect(report.reason).toMatch(reason);
    expect(ws.files('error')).toEqual([name, `${name}.error.txt`].sort());
    expect(ws.read('error', `${name}.error.txt`)).toMatch(reason);
    expect(ws.files('inbox')).toEqual([]);
    const state = await adminState(emu, ['customer_shipments']);
    expect(state.customer_shipments.find((s: any) => s.number === 'SO-1001').acknowledged_at).toBeNull();
  });
});

describe('acknowledgements from the WMS for the export policy on-confirmation', () => {
  it('an acknowledgement that succeeded is recorded for the exported work list, so the exporter does not acknowledge it again', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const exportId = await exportAwaitingConfirmation(ws);
    ws.drop('ACK_SO_20261120.csv');
    expect((await runInboundOnce(ws)).files[0].outcome).toBe('done');
    expect(await exportAckStatuses(ws, exportId)).toEqual([[1001, 'acknowledged', true], [1002, 'acknowledged', true], [1003, 'awaiting-confirmation', false]]);
    expect(readFileSync(join(ws.folder('outbox'), 'ACK_SO_20261120.result.csv'), 'utf8')).toContain('SO-1001,ok,1001');
  });
});
