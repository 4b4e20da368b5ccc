import { describe, expect, it } from 'vitest';
import type { Journal } from '../index.js';
import { MIGRATIONS } from '../sqlite/migrations.js';
import { testJournal, useTestJournal, type TempDir, rawDatabase } from '../test-support.js';
import { testHooks } from '../testing.js';

/*
 * The SQLite engine's own side of exports: what a write costs it, and a migration of its own. What exports do is the
 * behaviour suite's (test/journal/behaviour.ts), run on both engines.
 */

let tmp: TempDir;
let journal: Journal;
useTestJournal((j, t) => {
  journal = j;
  tmp = t;
});

const records = (...ids: number[]) => ids.map((id) => ({ id, number: `SO-${id}`, updatedAt: '2026-03-01T07:00:00Z' }));
const reopen = async () => {
  await journal.close();
  journal = await testJournal(tmp.path, Date.parse('2026-03-02T08:00:00Z'));
};

describe('SQLite engine: work-list exports', () => {
  it('marks an export written with one row write, however many records it has', async () => {
    const ids = Array.from({ length: 2_500 }, (_, i) => i + 1);
    const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(...ids) });
    const changes = () => rawDatabase(journal).prepare('SELECT total_changes()').pluck().get() as number;
    const before = changes();
    await journal.markExportWritten(exportId);
    expect(changes() - before).toBe(1); // the export row, no record row
    expect(await journal.pendingAcknowledgements('customer-shipments')).toHaveLength(2_500);
  });

  it('brings records an older journal left unwritten to their policy status, their export still unwritten', async () => {
    const raw = rawDatabase(journal);
    const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'old.csv', records: records(1, 2), policy: 'on-confirmation' });
    raw.prepare(`UPDATE export_records SET ack_status = 'unwritten' WHERE export_id = ?`).run(exportId);
    raw.exec(MIGRATIONS[2]!); // migration 3, as it ran on a journal of the version before it
    await reopen();
    expect(rawDatabase(journal).prepare('SELECT DISTINCT ack_status FROM export_records').pluck().all()).toEqual(['awaiting-confirmation']);
    expect((await testHooks(journal).exportRecords(exportId)).map((r) => r.ackStatus)).toEqual(['unwritten', 'unwritten']);
    expect((await journal.backlog()).exportsUnwritten).toBe(2);
    expect(await journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [], unknown: [1] }); // not handed over yet
    await journal.markExportWritten(exportId);
    expect((await journal.awaitingConfirmation('customer-shipments')).map((r) => r.id)).toEqual([1, 2]);
    expect(await journal.backlog()).toMatchObject({ exportsUnwritten: 0, awaitingConfirmation: 2 });
  });
});
