import { describe, expect, it } from 'vitest';
import type { Journal } from './index.js';
import { MIGRATIONS } from './sqlite/migrations.js';
import { testJournal, useTestJournal, type TempDir, rawDatabase } from './test-support.js';

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

describe('work-list exports', () => {
  it('records the file before writing, then acknowledges after it is in place', async () => {
    const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-0001.csv', records: records(1, 2, 3) });
    expect(await journal.getExport(exportId)).toMatchObject({ status: 'recorded', policy: 'on-export', recordCount: 3 });
    // records of an export without acknowledgement are unwritten too until their file is in place
    const never = await journal.beginExport({ workType: 'products', fileName: 'p.csv', records: records(7, 8), policy: 'never', repeatable: true });
    expect((await journal.backlog()).exportsUnwritten).toBe(5);
    expect((await journal.exportRecords(never)).map((r) => r.ackStatus)).toEqual(['unwritten', 'unwritten']);
    await journal.markExportWritten(never);
    expect(await journal.alreadyExported('customer-shipments', [1, 2, 4])).toEqual(new Set([1, 2]));
    expect(await journal.pendingAcknowledgements('customer-shipments')).toEqual([]);
    expect((await journal.backlog()).exportsUnwritten).toBe(3);
    await journal.markExportWritten(exportId);
    expect((await journal.pendingAcknowledgements('customer-shipments')).map((r) => [r.id, r.number, r.fileName])).toEqual([
      [1, 'SO-1', 'cs-0001.csv'], [2, 'SO-2', 'cs-0001.csv'], [3, 'SO-3', 'cs-0001.csv'],
    ]);
    expect(await journal.recordAcknowledgements(exportId, [
      { id: 1, status: 'acknowledged', acknowledgedAt: '2026-03-01T08:00:05Z' },
      { id: 2, status: 'error', messages: ['shipment was cancelled'] },
    ])).toBe(false);
    expect(await journal.recordAcknowledgements(exportId, [{ id: 3, status: 'acknowledged' }])).toBe(true);
    expect((await journal.getExport(exportId)).status).toBe('completed');
    expect((await journal.exportRecords(exportId)).map((r) => [r.id, r.ackStatus, r.acknowledgedAt, r.messages])).toEqual([
      [1, 'acknowledged', '2026-03-01T08:00:05Z', []],
      [2, 'error', null, ['shipment was cancelled']],
      [3, 'acknowledged', expect.stringMatching(/^2026-03-01T/), []],
    ]);
    await expect(journal.recordAcknowledgements(exportId, [{ id: 3, status: 'acknowledged' }])).rejects.toThrow(/not waiting/);
    expect((await journal.listExports({ workType: 'customer-shipments', limit: 5 })).map((e) => e.exportId)).toEqual([exportId]);
  });

  it('after a crash between writing and acknowledging, neither loses the acknowledgement nor exports again', async () => {
    const exportId = await journal.beginExport({ workType: 'supplier-shipments', fileName: 'ss-0001.csv', records: records(10, 11) });
    await journal.markExportWritten(exportId);
    await journal.recordAcknowledgements(exportId, [{ id: 10, status: 'acknowledged' }]);
    await reopen(); // the process died here
    expect((await journal.pendingAcknowledgements('supplier-shipments')).map((r) => r.id)).toEqual([11]);
    expect(await journal.alreadyExported('supplier-shipments', [10, 11, 12])).toEqual(new Set([10, 11]));
    await expect(journal.beginExport({ workType: 'supplier-shipments', fileName: 'ss-0002.csv', records: records(11, 12) }))
      .rejects.toThrow(/already exported .*11/);
  });

  it('abandons an export whose file never reached the outbox, freeing its records', async () => {
    const lost = await journal.beginExport({ workType: 'customer-returns', fileName: 'cr-0001.csv', records: records(5, 6) });
    await reopen();
    expect((await journal.unwrittenExports('customer-returns')).map((e) => e.exportId)).toEqual([lost]);
    await journal.abandonExport(lost);
    expect((await journal.getExport(lost)).status).toBe('abandoned');
    expect(await journal.alreadyExported('customer-returns', [5, 6])).toEqual(new Set());
    const again = await journal.beginExport({ workType: 'customer-returns', fileName: 'cr-0002.csv', records: records(5, 6) });
    await expect(journal.abandonExport(lost)).rejects.toThrow(/only an unwritten export/);
    await journal.markExportWritten(again);
    await expect(journal.abandonExport(again)).rejects.toThrow(/only an unwritten export/);
  });

  it('records a large export in parts: records added while recorded, checked like the first part, refused once written', async () => {
    const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(1, 2), policy: 'on-export' });
    await journal.addExportRecords(exportId, records(3, 4));
    expect(await journal.getExport(exportId)).toMatchObject({ status: 'recorded', recordCount: 4 });
    const earlier = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-other.csv', records: records(9) });
    const taken = await (async () => {
      try {
        await journal.addExportRecords(exportId, records(5, 9));
      } catch (error) {
        return error as { code: string; details: { ids: number[] } };
      }
    })();
    expect(taken).toMatchObject({ code: 'JOURNAL_STATE', details: { ids: [9] } });
    expect((await journal.exportRecords(exportId)).map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect((await journal.exportRecords(earlier)).map((r) => r.id)).toEqual([9]);
    await journal.addExportRecords(exportId, records(5));
    await journal.markExportWritten(exportId);
    expect(await journal.getExport(exportId)).toMatchObject({ status: 'written', recordCount: 5 });
    await expect(journal.addExportRecords(exportId, records(6))).rejects.toThrow(/only be added before it is written/);
  });

  it('marks an export written in one step, however many records it has; its records read unwritten until then', async () => {
    const ids = Array.from({ length: 2_500 }, (_, i) => i + 1);
    const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(...ids) });
    expect((await journal.exportRecords(exportId)).every((r) => r.ackStatus === 'unwritten')).toBe(true);
    expect(await journal.cancelledNotYetExported('customer-shipments', [1, 2])).toEqual([]);
    await expect(journal.recordAcknowledgements(exportId, [{ id: 1, status: 'acknowledged' }])).rejects.toThrow(/is recorded: its records are not waiting/);
    const changes = () => rawDatabase(journal).prepare('SELECT total_changes()').pluck().get() as number;
    const before = changes();
    await journal.markExportWritten(exportId);
    expect(changes() - before).toBe(1); // the export row, no record row
    expect((await journal.getExport(exportId)).status).toBe('written');
    expect(await journal.pendingAcknowledgements('customer-shipments')).toHaveLength(2_500);
    expect((await journal.exportRecords(exportId)).every((r) => r.ackStatus === 'pending')).toBe(true);
    expect((await journal.cancelledNotYetExported('customer-shipments', [1, 2])).map((r) => r.id)).toEqual([1, 2]);
  });

  it('brings records an older journal left unwritten to their policy status, their export still unwritten', async () => {
    const raw = rawDatabase(journal);
    const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'old.csv', records: records(1, 2), policy: 'on-confirmation' });
    raw.prepare(`UPDATE export_records SET ack_status = 'unwritten' WHERE export_id = ?`).run(exportId);
    raw.exec(MIGRATIONS[2]!); // migration 3, as it ran on a journal of the version before it
    await reopen();
    expect(rawDatabase(journal).prepare('SELECT DISTINCT ack_status FROM export_records').pluck().all()).toEqual(['awaiting-confirmation']);
    expect((await journal.exportRecords(exportId)).map((r) => r.ackStatus)).toEqual(['unwritten', 'unwritten']);
    expect((await journal.backlog()).exportsUnwritten).toBe(2);
    expect(await journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [], unknown: [1] }); // not handed over yet
    await journal.markExportWritten(exportId);
    expect((await journal.awaitingConfirmation('customer-shipments')).map((r) => r.id)).toEqual([1, 2]);
    expect(await journal.backlog()).toMatchObject({ exportsUnwritten: 0, awaitingConfirmation: 2 });
  });

  it('lists the exports with records due for acknowledgement, and each one\'s due records, written exports only', async () => {
    const a = await journal.beginExport({ workType: 'customer-shipments', fileName: 'a.csv', records: records(1, 2) });
    const b = await journal.beginExport({ workType: 'customer-shipments', fileName: 'b.csv', records: records(3) });
    const c = await journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(4), policy: 'on-confirmation' });
    await journal.beginExport({ workType: 'customer-shipments', fileName: 'd.csv', records: records(5) }); // not written
    for (const id of [a, b, c]) await journal.markExportWritten(id);
    await journal.recordAcknowledgements(b, [{ id: 3, status: 'acknowledged' }]);
    expect(await journal.exportsDueForAcknowledgement('customer-shipments')).toEqual([a]);
    expect(await journal.exportsDueForAcknowledgement('customer-returns')).toEqual([]);
    expect((await journal.pendingAcknowledgementsOf(a)).map((r) => [r.id, r.fileName, r.ackStatus])).toEqual([[1, 'a.csv', 'pending'], [2, 'a.csv', 'pending']]);
    expect(await journal.pendingAcknowledgementsOf(b)).toEqual([]);
    expect(await journal.pendingIdsOf(a)).toEqual(new Set([1, 2]));
    expect(await journal.pendingIdsOf(b)).toEqual(new Set());
    await journal.confirmRecords('customer-shipments', [4]);
    expect(await journal.exportsDueForAcknowledgement('customer-shipments')).toEqual([a, c]);
    expect((await journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([1, 2, 4]);
  });

  it('answers which ids were exported for sparse and dense id lists alike', async () => {
    await journal.markExportWritten(await journal.beginExport({ workType: 'customer-shipments', fileName: 'a.csv', records: records(10, 12, 1_000_000) }));
    await journal.abandonExport(await journal.beginExport({ workType: 'customer-shipments', fileName: 'b.csv', records: records(11) }));
    expect(await journal.alreadyExported('customer-shipments', [9, 10, 11, 12, 13])).toEqual(new Set([10, 12]));
    expect(await journal.alreadyExported('customer-shipments', [12, 1_000_000, 5])).toEqual(new Set([12, 1_000_000]));
    expect(await journal.alreadyExported('customer-shipments', [])).toEqual(new Set());
  });

  it('keeps work types apart and rejects a record listed twice', async () => {
    await journal.markExportWritten(await journal.beginExport({ workType: 'inbound-transfers', fileName: 'it.csv', records: records(1) }));
    expect(await journal.alreadyExported('outbound-transfers', [1])).toEqual(new Set());
    await expect(journal.beginExport({ workType: 'outbound-transfers', fileName: 'ot.csv', records: records(1, 1) })).rejects.toThrow(/twice/);
  });

  it('lets repeatable exports (product catalog) list a record again and completes them without acknowledgement', async () => {
    const first = await journal.beginExport({ workType: 'products', fileName: 'p1.csv', records: records(1, 2), policy: 'never', repeatable: true });
    await journal.markExportWritten(first);
    const second = await journal.beginExport({ workType: 'products', fileName: 'p2.csv', records: records(2), policy: 'never', repeatable: true });
    await journal.markExportWritten(second);
    expect((await journal.getExport(second)).status).toBe('completed');
    expect((await journal.exportRecords(second))[0].ackStatus).toBe('not-required');
    expect(await journal.pendingAcknowledgements('products')).toEqual([]);
  });
});

describe('confirmation-file policy', () => {
  it('waits for the WMS confirmation before the records are due for acknowledgement', async () => {
    const exportId = await journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(1, 2), policy: 'on-confirmation' });
    await journal.markExportWritten(exportId);
    expect(await journal.pendingAcknowledgements('customer-shipments')).toEqual([]);
    expect((await journal.awaitingConfirmation('customer-shipments')).map((r) => r.id)).toEqual([1, 2]);
    expect((await journal.backlog()).awaitingConfirmation).toBe(2);
    expect(await journal.confirmRecords('customer-shipments', [2, 99])).toEqual({ confirmed: [2], unknown: [99] });
    expect((await journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([2]);
    await journal.recordAcknowledgements(exportId, [{ id: 2, status: 'acknowledged' }]);
    expect((await journal.getExport(exportId)).status).toBe('written');
    expect((await journal.awaitingConfirmation('customer-shipments')).map((r) => r.id)).toEqual([1]);
  });
});

describe('cancellations', () => {
  it('exports a cancelled record once in a cancellation list', async () => {
    const work = await journal.beginExport({ workType: 'customer-shipments', fileName: 'w.csv', records: records(1, 2, 3) });
    await journal.markExportWritten(work);
    // 4 was never exported: the WMS never heard of it.
    expect((await journal.cancelledNotYetExported('customer-shipments', [2, 3, 4])).map((r) => [r.id, r.fileName])).toEqual([
      [2, 'w.csv'], [3, 'w.csv'],
    ]);
    const cancel = await journal.beginCancellationExport({ workType: 'customer-shipments', fileName: 'cancel-1.csv', records: records(2) });
    expect((await journal.cancelledNotYetExported('customer-shipments', [2, 3])).map((r) => r.id)).toEqual([3]);
    await journal.markCancellationExported(cancel);
    expect(await journal.getExport(cancel)).toMatchObject({ kind: 'cancellation', status: 'completed', policy: 'never' });
    await expect(journal.beginCancellationExport({ workType: 'customer-shipments', fileName: 'c2.csv', records: records(2, 4) }))
      .rejects.toThrow(/not exported or already cancelled: 2, 4/);
    // A cancellation list never counts as handing the work over.
    expect(await journal.alreadyExported('customer-shipments', [2])).toEqual(new Set([2]));
    expect((await journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('offers the record again when the cancellation file was lost in a crash', async () => {
    await journal.markExportWritten(await journal.beginExport({ workType: 'customer-returns', fileName: 'w.csv', records: records(7) }));
    const cancel = await journal.beginCancellationExport({ workType: 'customer-returns', fileName: 'cancel.csv', records: records(7) });
    await reopen();
    await journal.abandonExport(cancel);
    expect((await journal.cancelledNotYetExported('customer-returns', [7])).map((r) => r.id)).toEqual([7]);
  });
});

describe('cursors and file sequences', () => {
  it('persists cursors and per-work-type sequence numbers across reopen', async () => {
    expect(await journal.getCursor('products.updated_at')).toBeNull();
    await journal.setCursor('products.updated_at', '2026-03-01T00:00:00Z');
    await journal.setCursor('products.updated_at', '2026-03-01T06:00:00Z');
    expect([await journal.nextFileSequence('customer-shipments'), await journal.nextFileSequence('customer-shipments')]).toEqual([1, 2]);
    expect(await journal.nextFileSequence('supplier-shipments')).toBe(1);
    await reopen();
    expect(await journal.getCursor('products.updated_at')).toBe('2026-03-01T06:00:00Z');
    expect(await journal.nextFileSequence('customer-shipments')).toBe(3);
  });
});
