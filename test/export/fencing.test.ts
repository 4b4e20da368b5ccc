import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runExportJob } from '../../src/export/index.js';
import { openJournal } from '../../src/journal/index.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { records, useEmulator } from '../support/emulator.js';
import { freshDatabase } from '../support/postgres.js';
import { baseConfig, memoryLogger, tempConfig, until, useCleanups } from '../service/support.js';
import { REPO, readRows } from './helpers.js';

/*
 * An export is owned and fenced like a file (src/journal/outbound/export-lease.ts, src/export/files.ts): a `wisbridge
 * run` paused at a named point past its lease, another instance takes its unwritten work list over and exports the
 * records again; once the paused process resumes, its work list never reaches the outbox, wherever it was paused:
 * before it wrote the list (its fenced step before the rename is refused), or with the list whole under its temporary
 * name and that step done (the taker removed the temporary file first, so the rename finds nothing).
 */
const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const LEASE_MS = 3_000;
const config = (journal: string) => `${baseConfig(emu.url, '', journal)}exports:
  - name: nightly
    work_type: customerShipments
    drop: wms
    service: main
    mapping: customer-shipments-export
    acknowledge: on-export
    schedule: { cron: "*/2 * * * * *", timezone: UTC }
instance: { lease_ms: ${LEASE_MS}, heartbeat_ms: 500 }
`;

const pending = () => records(emu, 'customer_shipments', (r) => r.list_status === 'pending');

/** The order ids of each work list in the outbox (dot-files, temporary names, are not handed over). */
function workLists(outbox: string): Map<string, Set<string>> {
  const lists = new Map<string, Set<string>>();
  for (const name of readdirSync(outbox).filter((n) => n.startsWith('nightly_') && n.endsWith('.csv') && !n.endsWith('.ack.csv'))) {
    lists.set(name, new Set(readRows(join(outbox, name)).map((r) => r.ORDER_ID)));
  }
  return lists;
}

describe('a `wisbridge run` paused past its lease while it exports', { timeout: 120_000 }, () => {
  for (const point of ['export.after-record', 'export.after-stage'] as const) {
    it(`paused at ${point}: another instance takes its work list over; resumed, it puts none in the outbox: no order is in two work lists, each acknowledged once`, async () => {
      expect((await pending()).length).toBeGreaterThan(0);
      const db = await freshDatabase();
      cleanups.push(() => db.drop());
      const env = await tempConfig(config(JSON.stringify(db.config)));
      cleanups.push(env.cleanup);
      const outbox = join(env.dir, 'drop', 'outbox');
      const pauses = mkdtempSync(join(tmpdir(), 'wisbridge-pause-'));
      const pauseFile = join(pauses, 'paused');
      const child = spawn(process.execPath, [join(REPO, 'bin/wisbridge.js'), 'run', '--config', env.file], {
        cwd: env.dir, env: { ...process.env, WISBRIDGE_FAILPOINTS: `${point}=pause(${pauseFile})` }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      cleanups.push(() => {
        child.kill('SIGKILL');
        rmSync(pauses, { recursive: true, force: true });
      });
      await until(() => existsSync(pauseFile) || child.exitCode !== null, `the run paused at ${point}`, 100);
      expect(existsSync(pauseFile)).toBe(true);
      const reader = await openJournal(db.config);
      cleanups.push(() => reader.close());
      const [recorded] = await reader.unwrittenExports('customerShipments');
      expect(recorded).toBeDefined();
      // Paused after its fenced step, the list is whole under a temporary name in the outbox, not yet renamed.
      const temporary = readdirSync(outbox).filter((n) => n.startsWith(`.${recorded!.fileName}`));
      expect(temporary).toHaveLength(point === 'export.after-stage' ? 1 : 0);

      // Another instance, for which the paused one has been silent longer than its lease, runs the export.
      const log = memoryLogger();
      const thief = createRuntime(env.loaded, {
        logger: log.logger, journalOptions: { instance: { id: 'thief-1', host: 'elsewhere', pid: 1, version: 'test' }, leaseMs: LEASE_MS, leaseClockOffsetMs: 60_000 },
      });
      cleanups.push(() => thief.close());
      await (await thief.journal()).registerInstance();
      const summary = await runExportJob(thief, env.loaded.config.exports[0]!);
      expect(summary.recovered).toEqual({ markedWritten: 0, abandoned: recorded!.recordCount });
      expect(summary.files).toHaveLength(1);
      expect(log.records.find((r) => r.event === 'export.taken-over')).toMatchObject({ file: recorded!.fileName, outcome: 'abandoned', from: expect.any(String) });
      expect(readdirSync(outbox).filter((n) => n.startsWith('.'))).toEqual([]);

      // Resumed: its write is refused (the fenced step) or finds its temporary file gone (the rename).
      rmSync(pauseFile);
      await until(() => out.includes('"event":"job.run.failed"'), 'the resumed run failed');
      expect(out).toMatch(/LEASE_LOST|DROP_NOT_FOUND/);
      const lists = workLists(outbox);
      expect([...lists.keys()]).toEqual([summary.files[0]!.name]);
      expect(existsSync(join(outbox, recorded!.fileName))).toBe(false);
      const seen = new Map<string, string>();
      for (const [name, ids] of lists) {
        for (const id of ids) {
          expect(seen.get(id), `order ${id} in ${name} and ${seen.get(id)}`).toBeUndefined();
          seen.set(id, name);
        }
      }
      // Every order of the list taken over is in the taker's list, once.
      const taken = (await reader.exportRecordsAfter(recorded!.exportId, 0, 100_000)).map((r) => String(r.id));
      expect(taken.length).toBe(recorded!.recordCount);
      expect(new Set(seen.keys())).toEqual(new Set(taken));
      expect((await reader.getExport(recorded!.exportId)).status).toBe('abandoned');
      // The WMS was told of each order once, through the one list that holds it: acknowledged, off the pending list.
      const acknowledged = await records(emu, 'customer_shipments', (r) => seen.has(String(r.id)));
      expect(acknowledged).toHaveLength(taken.length);
      expect(acknowledged.every((r) => r.acknowledged_at !== null && r.list_status !== 'pending')).toBe(true);
      expect((await pending()).filter((r) => seen.has(String(r.id)))).toEqual([]);
      const acks = await reader.listExports({ workType: 'customerShipments', limit: 10 });
      expect(acks.filter((e) => e.status === 'completed').map((e) => e.fileName)).toEqual([summary.files[0]!.name]);
    });
  }
});

describe('an unwritten work list of a live instance', () => {
  it('is left to it by another instance\'s export: none of its orders goes into a second list; it is written once its owner gets to it', async () => {
    const db = await freshDatabase();
    cleanups.push(() => db.drop());
    const env = await tempConfig(config(JSON.stringify(db.config)));
    cleanups.push(env.cleanup);
    const outbox = join(env.dir, 'drop', 'outbox');
    // Instance A, live, has recorded a list of three orders and is still writing it (a slow outbox).
    const a = await openJournal(db.config, { instance: { id: 'a-1', host: 'here', pid: 1, version: 'test' }, leaseMs: LEASE_MS });
    cleanups.push(() => a.close());
    await a.registerInstance();
    const mine = (await pending()).slice(0, 3).map((r) => ({ id: r.id as number, number: r.number as string, updatedAt: r.updated_at as string }));
    const exportId = await a.beginExport({ workType: 'customerShipments', fileName: 'nightly_slow.csv', records: mine, policy: 'on-export' });

    const log = memoryLogger();
    const b = createRuntime(env.loaded, { logger: log.logger, journalOptions: { instance: { id: 'b-1', host: 'there', pid: 2, version: 'test' }, leaseMs: LEASE_MS } });
    cleanups.push(() => b.close());
    await (await b.journal()).registerInstance();
    const summary = await runExportJob(b, env.loaded.config.exports[0]!);
    expect(summary.recovered).toEqual({ markedWritten: 0, abandoned: 0 });
    expect(log.records.find((r) => r.event === 'export.held')).toMatchObject({ file: 'nightly_slow.csv', owner: 'a-1' });
    const lists = workLists(outbox);
    expect(lists.size).toBe(1);
    for (const order of mine) expect([...lists.values()][0]!.has(String(order.id))).toBe(false);
    // The owner's fenced step and its mark are still its own.
    await a.stageExport(exportId, '.nightly_slow.csv.tmp');
    await a.markExportWritten(exportId);
    expect((await a.getExport(exportId)).status).toBe('written');
  });
});
