import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal, type FileRecord } from '../../src/journal/index.js';
import { findJobOfFile, jobOfFile } from '../../src/pipeline/index.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { cli, finished, korr, parseCsv, workspace, type Workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });

/*
 * Two different files dropped under one name: the second's result file takes a timestamped name, recorded in the
 * journal. `wisbridge retry` and `wisbridge resolve` on the second rewrite that file, and never the first's
 * `NAME.result.csv` (a name rebuilt from the input name would be the first file's).
 */

/** Runs `wisbridge batch` on the workspace: the inbox's files are processed once. */
async function batch(ws: Workspace, expectedCode: number): Promise<void> {
  const r = await finished(cli(['batch', '--config', ws.configFile]));
  expect(r.code, r.stderr).toBe(expectedCode);
}

/** The journal's files of that name, first claimed first. */
async function filesNamed(ws: Workspace, name: string): Promise<FileRecord[]> {
  const journal = await openJournal(join(ws.dir, 'journal.sqlite'));
  try {
    return (await journal.listFiles({ limit: 100 })).filter((f) => f.name === name).sort((a, b) => a.fileId - b.fileId);
  } finally {
    await journal.close();
  }
}

/** The first file's result and the second's timestamped one, after two same-named files were processed. */
async function twoResults(ws: Workspace, name: string, stem: string) {
  const [first, second] = await filesNamed(ws, name);
  expect(first.resultName).toBe(`${stem}.result.csv`);
  expect(second.resultName).toMatch(new RegExp(`^${stem}\\.\\d{8}T\\d{9}Z(-\\d+)?\\.result\\.csv$`));
  const secondName = second.resultName!;
  expect(ws.files('outbox')).toEqual([`${stem}.result.csv`, secondName].sort());
  const bytes = (file: string) => readFileSync(join(ws.folder('outbox'), file));
  return { first, second, secondName, firstBytes: bytes(`${stem}.result.csv`), bytes };
}

const statusOf = (ws: Workspace, file: string) => ws.result(file).map((r) => [r.document, r.status]);

describe('wisbridge retry and resolve rewrite the result file of the file they act on, under its recorded name', () => {
  it('retry on the second of two ACK_SO_20261120.csv: the first\'s result is unchanged byte for byte, the second\'s says ok', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('ACK_SO_20261120.csv', 'NUMBER\nSO-1001\n');
    await batch(ws, 0);
    // A different file under the same name, while the service refuses acknowledgements (422 changes nothing).
    await setFaults(emu, { error_rate: 1, error_status: 422, path_prefix: '/v1/customer-shipments/acknowledge' });
    ws.drop('ACK_SO_20261120.csv', 'NUMBER\nSO-1002\n');
    await batch(ws, 1);
    const { second, secondName, firstBytes, bytes } = await twoResults(ws, 'ACK_SO_20261120.csv', 'ACK_SO_20261120');
    expect(statusOf(ws, 'ACK_SO_20261120.result.csv')).toEqual([['SO-1001', 'ok']]);
    expect(statusOf(ws, secondName)).toEqual([['SO-1002', 'error']]);

    await setFaults(emu, {});
    const retry = await finished(cli(['retry', '--config', ws.configFile, '--file', String(second.fileId)]));
    expect(retry.code, retry.stderr).toBe(0);
    expect(bytes('ACK_SO_20261120.result.csv').equals(firstBytes), 'the first file\'s result is unchanged').toBe(true);
    expect(statusOf(ws, secondName)).toEqual([['SO-1002', 'ok']]);
    expect(retry.stdout).toContain(`file is now done; result file rewritten: outbox/${secondName}\n`);
    expect(ws.files('outbox')).toEqual(['ACK_SO_20261120.result.csv', secondName].sort());
  });

  it('resolve on the second of two KORR_20261120.csv (its row uncertain): the first\'s result is unchanged byte for byte, the second\'s is resolved', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    ws.drop('KORR_20261120.csv', korr(['SKU-00001;1;Fund;K-1;19.11.2026;;']));
    await batch(ws, 0);
    // The answer to the second file's write is lost after the service applied it: the row is uncertain.
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    ws.drop('KORR_20261120.csv', korr(['SKU-00002;1;Fund;K-2;19.11.2026;;']));
    await batch(ws, 1);
    const { second, secondName, firstBytes, bytes } = await twoResults(ws, 'KORR_20261120.csv', 'KORR_20261120');
    expect(statusOf(ws, 'KORR_20261120.result.csv')).toEqual([['SKU-00001', 'ok']]);
    expect(statusOf(ws, secondName)).toEqual([['SKU-00002', 'uncertain']]);

    const resolve = await finished(cli(['resolve', '--config', ws.configFile, '--file', String(second.fileId), '--applied', '--note', 'K-2 found in the service', '--by', 'ops']));
    expect(resolve.code, resolve.stderr).toBe(0);
    expect(bytes('KORR_20261120.result.csv').equals(firstBytes), 'the first file\'s result is unchanged').toBe(true);
    expect(parseCsv(bytes(secondName).toString('utf8')).map((r) => [r.document, r.status, r.message])).toEqual([['SKU-00002', 'ok', 'applied: K-2 found in the service']]);
    expect(resolve.stdout).toContain(`file is now done; result file rewritten: outbox/${secondName}\n`);
    expect(ws.files('outbox')).toEqual(['KORR_20261120.result.csv', secondName].sort());
  });
});

describe('files read by wisbridge process are re-driven and resolved like any other, their result file rewritten where process wrote it', () => {
  const statuses = (path: string) => parseCsv(readFileSync(path, 'utf8')).map((r) => [r.document, r.status]);

  it('the job they are re-driven through: the configuration\'s one service; with several, refused by name', () => {
    const config = { drops: {}, inbound: [], services: { a: {}, b: {} } } as unknown as Parameters<typeof jobOfFile>[0];
    const file = { fileId: 7, name: 'X.csv', drop: 'process:/in', mapping: 'm' };
    expect(() => jobOfFile(config, file)).toThrow('file 7 (X.csv) was read by wisbridge process, which records no service, and the configuration has 2 services: give it only the service the file was sent to (a configuration of its own)');
    expect(findJobOfFile(config, file)).toBeUndefined();
    expect(jobOfFile({ ...config, services: { a: {} } } as unknown as typeof config, file)).toMatchObject({ name: 'process', drop: 'process:/in', service: 'a' });
    // A name that records its service is re-driven through that one, whatever else is configured.
    const recorded = { ...file, drop: 'process@b:/in' };
    expect(jobOfFile(config, recorded)).toMatchObject({ name: 'process', drop: 'process@b:/in', service: 'b' });
    expect(() => jobOfFile({ ...config, services: { a: {} } } as unknown as typeof config, recorded)).toThrow('file 7 (X.csv) was sent by wisbridge process to service "b", which the configuration does not have (it has a)');
  });

  it('retry with several services configured: the failed row is sent again through the service process used, and the result file beside the input says ok', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    // A second service, never reachable: the file must go to the one process was told.
    writeFileSync(ws.configFile, readFileSync(ws.configFile, 'utf8').replace('drops:\n', '  other:\n    url: http://127.0.0.1:9\n    token: { file: token }\ndrops:\n'));
    const local = join(ws.dir, 'local');
    mkdirSync(local);
    const input = join(local, 'ACK_SO_20261120.csv');
    writeFileSync(input, 'NUMBER\nSO-1002\n');
    await setFaults(emu, { error_rate: 1, error_status: 422, path_prefix: '/v1/customer-shipments/acknowledge' });
    const first = await finished(cli(['process', input, '--config', ws.configFile, '--service', 'wis']));
    expect(first.code, first.stderr).toBe(1);
    const result = join(local, 'ACK_SO_20261120.result.csv');
    expect(statuses(result)).toEqual([['SO-1002', 'error']]);
    const [file] = await filesNamed(ws, 'ACK_SO_20261120.csv');
    expect(file.drop).toBe(`process@wis:${local}`);

    await setFaults(emu, {});
    const retry = await finished(cli(['retry', '--config', ws.configFile, '--file', String(file.fileId)]));
    expect(retry.code, retry.stderr).toBe(0);
    expect(statuses(result)).toEqual([['SO-1002', 'ok']]);
    expect(retry.stdout).toContain(`file is now done; result file rewritten: ${result}\n`);
    expect(readdirSync(local).sort()).toEqual(['ACK_SO_20261120.csv', 'ACK_SO_20261120.result.csv']);
  });

  it('resolve: an uncertain row of a file processed with --out is resolved in the result file there', async () => {
    const ws = workspace({ url: emu.url, token: emu.token });
    const local = join(ws.dir, 'local');
    const out = join(ws.dir, 'results');
    mkdirSync(local);
    const input = join(local, 'KORR_20261120.csv');
    writeFileSync(input, korr(['SKU-00002;1;Fund;K-2;19.11.2026;;']));
    // The answer is lost after the service applied the write: the row is uncertain.
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    const first = await finished(cli(['process', input, '--config', ws.configFile, '--out', out]));
    expect(first.code, first.stderr).toBe(1);
    const [file] = await filesNamed(ws, 'KORR_20261120.csv');
    expect(file.drop).toBe(`process@wis:${local} → ${out}`);
    expect(statuses(join(out, 'KORR_20261120.result.csv'))).toEqual([['SKU-00002', 'uncertain']]);

    const resolve = await finished(cli(['resolve', '--config', ws.configFile, '--file', String(file.fileId), '--applied', '--note', 'K-2 found in the service', '--by', 'ops']));
    expect(resolve.code, resolve.stderr).toBe(0);
    expect(statuses(join(out, 'KORR_20261120.result.csv'))).toEqual([['SKU-00002', 'ok']]);
    expect(resolve.stdout).toContain(`; result file rewritten: ${join(out, 'KORR_20261120.result.csv')}\n`);
    expect(readdirSync(local)).toEqual(['KORR_20261120.csv']);
  });
});
