import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { cli, finished, korr, parseCsv, SAMPLES, type Workspace } from '../pipeline/helpers.js';
import { useCleanups } from '../service/support.js';
import { adminState, setFaults, useEmulator } from '../support/emulator.js';
import { pgWorkspace as workspaceOn } from './pg-workspace.js';
import { testHooks } from '../../src/journal/testing.js';

/**
 * The operator's commands through the CLI (`bin/wisbridge.js` as a child process) with the journal on the run's real
 * PostgreSQL server: each test gets a database of its own, written into the workspace's configuration as `journal:`.
 * config check, run and console: service-postgres.test.ts.
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
const server = inject('postgres');
const pgWorkspace = (options?: Parameters<typeof workspaceOn>[2]) => workspaceOn(emu, cleanups, options);

const EXPORT_JOB = 'exports:\n  - { name: so-out, work_type: customerShipments, drop: wms, service: wis, mapping: customer-shipments-export }';

/** Nothing of the SQLite engine appears in the workspace: the journal really is on PostgreSQL. */
const expectNoSqliteJournal = (ws: Workspace) => expect(readdirSync(ws.dir).filter((n) => n.includes('sqlite'))).toEqual([]);

describe('the commands with the journal on PostgreSQL', () => {
  it('batch processes the inbox, writes result files and runs the export jobs; status and status --file read it back', async () => {
    const ws = await pgWorkspace({ extraYaml: EXPORT_JOB });
    ws.drop('ACK_SO_20261120.csv');
    ws.drop('KORR_20261120.csv');
    const batch = await ws.run('batch');
    expect(batch.code, batch.stderr).toBe(1);
    expect(batch.stdout).toMatch(/ACK_SO_20261120\.csv\s+done\s+2\s+0\s+0\s+0\s+1/);
    expect(batch.stdout).toMatch(/KORR_20261120\.csv\s+failed\s+3\s+1\s+1\s+0/);
    expect(batch.stdout).toMatch(/^so-out\s+customerShipments\s+\d+\s+[1-9]\d*\s+\S+\.csv/m);
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('archive')).toEqual(['ACK_SO_20261120.csv', 'KORR_20261120.csv']);
    expect(ws.result('ACK_SO_20261120.result.csv').map((r) => r.status)).toEqual(['ok', 'ok']);
    expect(ws.result('KORR_20261120.result.csv').map((r) => r.status)).toContain('error');
    expect(ws.files('outbox').some((n) => /^so-out_.*\.csv$/.test(n))).toBe(true);
    const pending = (await adminState(emu, ['customer_shipments'])).customer_shipments.filter((s: any) => s.list_status === 'pending' && s.warehouse_id === 1);
    expect(pending).toEqual([]);
    expectNoSqliteJournal(ws);
    await ws.withJournal(async (journal) => {
      expect((await journal.listFiles({ limit: 10 })).map((f) => [f.name, f.status]).sort()).toEqual([['ACK_SO_20261120.csv', 'done'], ['KORR_20261120.csv', 'failed']]);
      expect((await journal.listExports({ limit: 10 })).length).toBeGreaterThan(0);
    });

    const status = await ws.run('status');
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`journal: postgres://wisbridge@127.0.0.1:${server.port}/${ws.db.name} (`);
    expect(status.stdout).toMatch(/KORR_20261120\.csv\s+\d+\s+SKU-\d+\s+\S/);
    expect(status.stdout).not.toContain(server.owner.password);
    const json = JSON.parse((await ws.run('status', '--json')).stdout);
    expect(json.files.map((f: any) => f.name).sort()).toEqual(['ACK_SO_20261120.csv', 'KORR_20261120.csv']);

    const rows = await ws.run('status', '--file', 'KORR_20261120.csv');
    expect(rows.code, rows.stderr).toBe(0);
    expect(rows.stdout).toMatch(/^\s*2\s+SKU-00001\s+ok\b/m);
    expect(rows.stdout).toMatch(/\berror\b/);
    const failed = JSON.parse((await ws.run('status', '--file', 'KORR_20261120.csv', '--status', 'error', '--json')).stdout);
    expect(failed.shown.map((r: any) => r.status)).toEqual(['error']);
    expect(failed.rows).toMatchObject({ ok: 3, error: 1 });
  });

  it('batch maps a file on a thread of its own, which opens the same PostgreSQL journal by its address', async () => {
    const ws = await pgWorkspace({ batchSize: 2, mappingThreads: { from_bytes: 1 } });
    ws.drop('KORR_THREAD.csv', korr(['SKU-00001;1;Fund;T-1;19.11.2026;;', 'SKU-00004;-500;Bruch;T-2;19.11.2026;;', 'SKU-00002;2;Fund;T-3;19.11.2026;;']));
    const r = await finished(cli(['batch', '--config', ws.configFile], { WISBRIDGE_LOG_LEVEL: 'debug' }));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('the file is mapped and recorded on its own thread');
    expect(r.stdout).toMatch(/KORR_THREAD\.csv\s+failed\s+2\s+1\s+0\s+0\s+2/);
    expect(ws.result('KORR_THREAD.result.csv').map((row) => `${row.line}:${row.status}`)).toEqual(['2:ok', '3:error', '4:ok']);
    expect(await ws.withJournal((journal) => journal.backlog())).toMatchObject({ processingFiles: 0, pendingRequests: 0, sentRequests: 0, errorItems: 1 });
  });

  it('process FILE claims, sends and writes the result beside --out; again it is a duplicate; --dry-run claims nothing', async () => {
    const ws = await pgWorkspace();
    const local = join(ws.dir, 'local');
    const out = join(ws.dir, 'results');
    mkdirSync(local);
    copyFileSync(join(SAMPLES, 'KORR_20261120.csv'), join(local, 'KORR_20261120.csv'));
    copyFileSync(join(SAMPLES, 'ACK_SO_20261120.csv'), join(local, 'ACK_SO_20261120.csv'));

    const dry = await ws.run('process', join(local, 'KORR_20261120.csv'), '--dry-run');
    expect(dry.code, dry.stderr).toBe(1);
    expect(dry.stdout.trim().split('\n').map((l) => JSON.parse(l).kind)).toEqual(['skipped', 'rejected', 'request']);
    expect((await adminState(emu, ['adjustments'])).adjustments).toEqual([]);
    expect(await ws.withJournal((journal) => journal.listFiles({ limit: 10 }))).toEqual([]);

    const first = await ws.run('process', join(local, 'ACK_SO_20261120.csv'), '--out', out);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/ACK_SO_20261120\.csv\s+done\s+2\s+0\s+0\s+0\s+1/);
    expect(parseCsv(readFileSync(join(out, 'ACK_SO_20261120.result.csv'), 'utf8')).map((r) => r.status)).toEqual(['ok', 'ok']);
    const again = await ws.run('process', join(local, 'ACK_SO_20261120.csv'));
    expect(again.stdout).toMatch(/ACK_SO_20261120\.csv\s+duplicate/);
    expect(readdirSync(local).sort()).toEqual(['ACK_SO_20261120.csv', 'ACK_SO_20261120.result.csv', 'KORR_20261120.csv']);
    expectNoSqliteJournal(ws);
  });

  it('export TYPE writes a work list and acknowledges it', async () => {
    const ws = await pgWorkspace({ extraYaml: EXPORT_JOB });
    const r = await ws.run('export', 'customer-shipments');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^so-out \(customerShipments\): [1-9]\d* exported in 1 file\(s\)/);
    expect(r.stdout).toMatch(/acknowledged [1-9]\d*, already acknowledged 0, refused 0, uncertain 0/);
    const work = ws.files('outbox').filter((n) => n.startsWith('so-out') && !n.endsWith('.ack.csv'));
    expect(work).toHaveLength(1);
    expect(r.stdout).toContain(`work list: ${work[0]}`);
    expect(r.stdout).toContain(`result: ${work[0]}.ack.csv`);
    const exports = await ws.withJournal((journal) => journal.listExports({ limit: 10 }));
    expect(exports.map((e) => e.fileName)).toEqual(work);
    // Nothing is left to export: a second pass writes no file.
    const again = await ws.run('export', 'customer-shipments');
    expect(again.code, again.stderr).toBe(0);
    expect(ws.files('outbox').filter((n) => n.startsWith('so-out') && !n.endsWith('.ack.csv'))).toEqual(work);
  });

  it('retry --file sends the acknowledgements the service refused, once it accepts them', async () => {
    const ws = await pgWorkspace();
    const exportId = await ws.withJournal(async (journal) => {
      const id = await journal.beginExport({
        workType: 'customerShipments', fileName: 'SO_WORK_1.csv', policy: 'on-confirmation',
        records: [{ id: 1001, number: 'SO-1001' }, { id: 1002, number: 'SO-1002' }],
      });
      await journal.markExportWritten(id);
      return id;
    });
    const acks = () => ws.withJournal(async (journal) => (await testHooks(journal).exportRecords(exportId)).map((r) => r.ackStatus));
    await setFaults(emu, { error_rate: 1, error_status: 422, path_prefix: '/v1/customer-shipments/acknowledge' });
    ws.drop('ACK_SO_20261120.csv');
    const batch = await ws.run('batch');
    expect(batch.code, batch.stderr).toBe(1);
    expect(batch.stdout).toMatch(/ACK_SO_20261120\.csv\s+failed\s+0\s+2/);
    expect(await acks()).toEqual(['awaiting-confirmation', 'awaiting-confirmation']);

    await setFaults(emu, {});
    const retry = await ws.run('retry', '--file', 'ACK_SO_20261120.csv');
    expect(retry.code, retry.stderr).toBe(0);
    expect(retry.stdout).toMatch(/^file \d+ ACK_SO_20261120\.csv: re-drive 1, 2 row\(s\) sent again: 2 ok, 0 error, 0 uncertain\nfile is now done; result file rewritten: outbox\/ACK_SO_20261120\.result\.csv\n$/);
    expect(await acks()).toEqual(['acknowledged', 'acknowledged']);
    expect(ws.result('ACK_SO_20261120.result.csv').map((r) => [r.document, r.status])).toEqual([['SO-1001', 'ok'], ['SO-1002', 'ok']]);
    await ws.withJournal(async (journal) => {
      expect((await journal.console.listActions({ limit: 5 })).map((a) => [a.action, a.via, a.outcome])).toEqual([['redrive', 'cli', 'ok']]);
    });
  });

  it('resolve marks an uncertain row checked and rewrites the result file', async () => {
    const ws = await pgWorkspace();
    // The answer to B-1 is lost after the service applied it: the row is uncertain until a person resolves it.
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    ws.drop('KORR_b.csv', korr(['SKU-00002;1;Fund;B-1;19.11.2026;;']));
    const batch = await ws.run('batch');
    expect(batch.code, batch.stderr).toBe(1);
    expect(batch.stdout).toMatch(/KORR_b\.csv\s+failed\s+0\s+0\s+0\s+1/);
    expect((await ws.run('status')).stdout).toMatch(/^uncertain documents \(1\):\n.*\n.*\n\d+\s+KORR_b\.csv\s+2\s+SKU-00002\s+inventory\.adjustments/m);

    const resolve = await ws.run('resolve', '--file', 'KORR_b.csv', '--applied', '--note', 'found in the service', '--by', 'ops');
    expect(resolve.code, resolve.stderr).toBe(0);
    expect(resolve.stdout).toMatch(/^file \d+ KORR_b\.csv: 1 row\(s\) marked applied \(ok\); file is now done; result file rewritten: outbox\/KORR_b\.result\.csv\n$/);
    expect(ws.result('KORR_b.result.csv').map((r) => [r.line, r.status])).toEqual([['2', 'ok']]);
    expect(ws.read('outbox', 'KORR_b.result.csv')).toContain('applied: found in the service');
    await ws.withJournal(async (journal) => {
      expect(await journal.backlog()).toMatchObject({ uncertainItems: 0, errorItems: 0 });
      expect((await journal.console.listActions({ limit: 5 })).map((a) => [a.action, a.actor, a.outcome])).toEqual([['resolve applied', 'ops', 'ok']]);
    });
  });

  it('resolve --not-applied leaves the row failed and exits 1, as the exit-code table says', async () => {
    const ws = await pgWorkspace();
    await setFaults(emu, { reset_rate: 1, reset_phase: 'after', times: 1, path_prefix: '/v1/inventory/adjustments' });
    ws.drop('KORR_n.csv', korr(['SKU-00002;1;Fund;N-9;19.11.2026;;']));
    expect((await ws.run('batch')).code).toBe(1);
    const resolve = await ws.run('resolve', '--file', 'KORR_n.csv', '--not-applied', '--note', 'not in the service', '--by', 'ops');
    expect(resolve.code, resolve.stderr).toBe(1);
    expect(resolve.stdout).toMatch(/^file \d+ KORR_n\.csv: 1 row\(s\) marked not applied \(error\); file is now failed/);
    expect(resolve.stdout).toContain('to send them again: wisbridge retry');
  });

  it('journal stats names the database without a password and gives its size; journal prune --older-than prunes old files', async () => {
    const ws = await pgWorkspace();
    ws.drop('KORR_old.csv', korr(['SKU-00001;1;Fund;O-1;19.11.2026;;']));
    ws.drop('KORR_new.csv', korr(['SKU-00002;1;Fund;N-1;19.11.2026;;']));
    expect((await ws.run('batch')).code).toBe(0);

    const stats = await ws.run('journal', 'stats');
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toContain(`journal: postgres://wisbridge@127.0.0.1:${server.port}/${ws.db.name}\n`);
    expect(Number(/^size: (\d+) bytes/m.exec(stats.stdout)?.[1])).toBeGreaterThan(1_000_000);
    expect(stats.stdout).toMatch(/^files: 2 \(0 pruned\)$/m);
    expect(stats.stdout + stats.stderr).not.toContain(server.owner.password);

    // KORR_old finished three days ago (the clock of the journal's rows, set on the server).
    await ws.query("UPDATE files SET finished_at = '2020-01-01T00:00:00.000Z', claimed_at = '2020-01-01T00:00:00.000Z' WHERE name = 'KORR_old.csv'");
    const prune = await ws.run('journal', 'prune', '--older-than', '2d');
    expect(prune.code, prune.stderr).toBe(0);
    expect(prune.stdout).toMatch(/^journal: 1 file\(s\) finished before \S+ pruned \(0 row\(s\), 1 block\(s\), 1 request\(s\)\); 0 kept/);
    const after = await ws.run('journal', 'stats', '--json');
    expect(JSON.parse(after.stdout)).toMatchObject({ files: 2, prunedFiles: 1 });
    expect((await ws.run('status', '--file', 'KORR_old.csv')).stdout).toContain('its rows were pruned on');
    // A pruned file is still known by its checksum: the same content again is a duplicate.
    ws.drop('KORR_old.csv', korr(['SKU-00001;1;Fund;O-1;19.11.2026;;']), 'KORR_again.csv');
    expect((await ws.run('batch')).stdout).toMatch(/KORR_again\.csv\s+duplicate/);
  });
});
