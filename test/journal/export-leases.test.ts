import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import { openJournal, type InstanceInfo, type Journal, type JournalTarget } from '../../src/journal/index.js';
import { tempDir } from '../../src/journal/test-support.js';
import { freshDatabase } from '../support/postgres.js';

/*
 * An export is owned like a file (src/journal/outbound/export-lease.ts), the same cases on both engines. The owner's
 * liveness is its instance's heartbeat, judged by the database's clock, which the test's journals read moved by the
 * time the test let pass (openJournal's leaseClockOffsetMs).
 */

const LEASE = 2_000;
const A: InstanceInfo = { id: 'node-1-101-aaaaaa', host: 'node-1', pid: 101, version: '9.1.0' };
const B: InstanceInfo = { id: 'node-2-202-bbbbbb', host: 'node-2', pid: 202, version: '9.1.0' };
const WT = 'customer-shipments';
const records = (...ids: number[]) => ids.map((id) => ({ id, number: `SO-${id}`, updatedAt: '2026-03-01T07:00:00Z' }));

let passed = 0;
/** Longer than a lease passes for every journal of the test. */
const expire = () => {
  passed += LEASE * 3;
};

async function code(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    return isWisbridgeError(error) ? error.code : 'other';
  }
  return undefined;
}

const PLACES: Record<'sqlite' | 'postgres', () => Promise<{ target: JournalTarget; remove(): Promise<void> }>> = {
  sqlite: async () => {
    const tmp = tempDir();
    return { target: tmp.path, remove: async () => tmp.remove() };
  },
  postgres: async () => {
    const db = await freshDatabase();
    return { target: db.config, remove: () => db.drop() };
  },
};

for (const [engine, place] of Object.entries(PLACES)) {
  describe(`export ownership on ${engine}`, () => {
    let where: { target: JournalTarget; remove(): Promise<void> };
    const opened: Journal[] = [];
    beforeEach(async () => {
      where = await place();
      passed = 0;
    });
    afterEach(async () => {
      for (const journal of opened.splice(0)) await journal.close();
      await where.remove();
    });

    async function journal(instance?: InstanceInfo): Promise<Journal> {
      const j = await openJournal(where.target, { instance, leaseMs: LEASE, leaseClockOffsetMs: () => passed });
      opened.push(j);
      return j;
    }

    /** A, registered (live while the test lets no time pass), with an export of records 1-3; B beside it. */
    async function owned() {
      const a = await journal(A);
      await a.registerInstance();
      const b = await journal(B);
      const exportId = await a.beginExport({ workType: WT, fileName: 'cs-1.csv', records: records(1, 2) });
      await a.addExportRecords(exportId, records(3));
      return { a, b, exportId };
    }

    it('an export of a live owner is never taken over nor abandoned by another instance; its owner writes it to the end', async () => {
      const { a, b, exportId } = await owned();
      expect(await b.takeExport(exportId)).toEqual({ taken: false, owner: A.id, status: 'recorded' });
      expect(await code(b.abandonExport(exportId))).toBe('LEASE_LOST');
      expect(await code(b.markExportWritten(exportId))).toBe('LEASE_LOST');
      expect(await code(b.stageExport(exportId, '.cs-1.csv.1-x.tmp'))).toBe('LEASE_LOST');
      // however long its run lasts, while its heartbeats go on
      expire();
      await a.heartbeat(LEASE);
      expect(await b.takeExport(exportId)).toMatchObject({ taken: false, owner: A.id });
      await a.stageExport(exportId, '.cs-1.csv.1-x.tmp');
      await a.markExportWritten(exportId);
      expect((await a.getExport(exportId)).status).toBe('written');
      expect(await b.takeExport(exportId)).toEqual({ taken: false, owner: A.id, status: 'written' });
    });

    it('once its owner is silent past a lease, another instance takes it over with the next token: every later write of the owner is refused', async () => {
      const { a, b, exportId } = await owned();
      await a.stageExport(exportId, '.cs-1.csv.1-x.tmp');
      expire();
      expect(await b.takeExport(exportId)).toEqual({ taken: true, from: A.id, stagedName: '.cs-1.csv.1-x.tmp' });
      expect(await code(a.addExportRecords(exportId, records(4)))).toBe('LEASE_LOST');
      expect(await code(a.stageExport(exportId, '.cs-1.csv.1-y.tmp'))).toBe('LEASE_LOST');
      expect(await code(a.markExportWritten(exportId))).toBe('LEASE_LOST');
      expect(await code(a.abandonExport(exportId))).toBe('LEASE_LOST');
      expect((await a.getExport(exportId)).status).toBe('recorded');
      await b.abandonExport(exportId);
      expect(await a.alreadyExported(WT, [1, 2, 3])).toEqual(new Set());
      // The records go to another list once, the abandoned one can never be marked written.
      const again = await b.beginExport({ workType: WT, fileName: 'cs-2.csv', records: records(1, 2, 3) });
      await b.markExportWritten(again);
      expect(await code(a.markExportWritten(exportId))).toBe('LEASE_LOST');
      expect((await b.pendingAcknowledgements(WT)).map((r) => [r.id, r.fileName])).toEqual([[1, 'cs-2.csv'], [2, 'cs-2.csv'], [3, 'cs-2.csv']]);
    });

    it('an owner that stopped is not live: its export is taken over at once; one not staged is taken without a staged name', async () => {
      const { a, b, exportId } = await owned();
      await a.retireInstance();
      expect(await b.takeExport(exportId)).toEqual({ taken: true, from: A.id, stagedName: null });
      await b.markExportWritten(exportId);
      expect((await b.getExport(exportId)).status).toBe('written');
    });

    it('a second connection of the owner\'s instance (a worker thread) writes under its token; its own instance takes over what it has not in flight', async () => {
      const { a, exportId } = await owned();
      const thread = await journal(A);
      await thread.stageExport(exportId, '.cs-1.csv.1-x.tmp');
      // The instance's process tells what it has in flight (src/export/files.ts); the rest it takes over itself.
      expect(await a.takeExport(exportId)).toEqual({ taken: true, from: A.id, stagedName: '.cs-1.csv.1-x.tmp' });
      expect(await code(thread.markExportWritten(exportId))).toBe('LEASE_LOST');
      await a.abandonExport(exportId);
    });

    it('an export of a process without an instance has no liveness: any process may take it over, and its owner is fenced out', async () => {
      const plain = await journal();
      const b = await journal(B);
      const exportId = await plain.beginExport({ workType: WT, fileName: 'cs-1.csv', records: records(1) });
      expect(await b.takeExport(exportId)).toEqual({ taken: true, from: null, stagedName: null });
      expect(await code(plain.stageExport(exportId, '.cs-1.csv.1-x.tmp'))).toBe('LEASE_LOST');
      expect(await code(plain.markExportWritten(exportId))).toBe('LEASE_LOST');
      await b.abandonExport(exportId);
    });
  });
}
