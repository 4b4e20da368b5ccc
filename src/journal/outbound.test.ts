import { describe, expect, it } from 'vitest';
import type { Journal } from './index.js';
import { MIGRATIONS } from './schema.js';
import { testJournal, useTestJournal, type TempDir, rawDatabase } from './test-support.js';

let tmp: TempDir;
let journal: Journal;
useTestJournal((j, t) => {
  journal = j;
  tmp = t;
});

const records = (...ids: number[]) => ids.map((id) => ({ id, number: `SO-${id}`, updatedAt: '2026-03-01T07:00:00Z' }));
const reopen = () => {
  journal.close();
  journal = testJournal(tmp.path, Date.parse('2026-03-02T08:00:00Z'));
};

describe('work-list exports', () => {
  it('records the file before writing, then acknowledges after it is in place', () => {
    const exportId = journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-0001.csv', records: records(1, 2, 3) });
    expect(journal.getExport(exportId)).toMatchObject({ status: 'recorded', policy: 'on-export', recordCount: 3 });
    // records of an export without acknowledgement are unwritten too until their file is in place
    const never = journal.beginExport({ workType: 'products', fileName: 'p.csv', records: records(7, 8), policy: 'never', repeatable: true });
    expect(journal.backlog().exportsUnwritten).toBe(5);
    expect(journal.exportRecords(never).map((r) => r.ackStatus)).toEqual(['unwritten', 'unwritten']);
    journal.markExportWritten(never);
    expect(journal.alreadyExported('customer-shipments', [1, 2, 4])).toEqual(new Set([1, 2]));
    expect(journal.pendingAcknowledgements('customer-shipments')).toEqual([]);
    expect(journal.backlog().exportsUnwritten).toBe(3);
    journal.markExportWritten(exportId);
    expect(journal.pendingAcknowledgements('customer-shipments').map((r) => [r.id, r.number, r.fileName])).toEqual([
      [1, 'SO-1', 'cs-0001.csv'], [2, 'SO-2', 'cs-0001.csv'], [3, 'SO-3', 'cs-0001.csv'],
    ]);
    expect(journal.recordAcknowledgements(exportId, [
      { id: 1, status: 'acknowledged', acknowledgedAt: '2026-03-01T08:00:05Z' },
      { id: 2, status: 'error', messages: ['shipment was cancelled'] },
    ])).toBe(false);
    expect(journal.recordAcknowledgements(exportId, [{ id: 3, status: 'acknowledged' }])).toBe(true);
    expect(journal.getExport(exportId).status).toBe('completed');
    expect(journal.exportRecords(exportId).map((r) => [r.id, r.ackStatus, r.acknowledgedAt, r.messages])).toEqual([
      [1, 'acknowledged', '2026-03-01T08:00:05Z', []],
      [2, 'error', null, ['shipment was cancelled']],
      [3, 'acknowledged', expect.stringMatching(/^2026-03-01T/), []],
    ]);
    expect(() => journal.recordAcknowledgements(exportId, [{ id: 3, status: 'acknowledged' }])).toThrow(/not waiting/);
    expect(journal.listExports({ workType: 'customer-shipments', limit: 5 }).map((e) => e.exportId)).toEqual([exportId]);
  });

  it('after a crash between writing and acknowledging, neither loses the acknowledgement nor exports again', () => {
    const exportId = journal.beginExport({ workType: 'supplier-shipments', fileName: 'ss-0001.csv', records: records(10, 11) });
    journal.markExportWritten(exportId);
    journal.recordAcknowledgements(exportId, [{ id: 10, status: 'acknowledged' }]);
    reopen(); // the process died here
    expect(journal.pendingAcknowledgements('supplier-shipments').map((r) => r.id)).toEqual([11]);
    expect(journal.alreadyExported('supplier-shipments', [10, 11, 12])).toEqual(new Set([10, 11]));
    expect(() => journal.beginExport({ workType: 'supplier-shipments', fileName: 'ss-0002.csv', records: records(11, 12) }))
      .toThrow(/already exported .*11/);
  });

  it('abandons an export whose file never reached the outbox, freeing its records', () => {
    const lost = journal.beginExport({ workType: 'customer-returns', fileName: 'cr-0001.csv', records: records(5, 6) });
    reopen();
    expect(journal.unwrittenExports('customer-returns').map((e) => e.exportId)).toEqual([lost]);
    journal.abandonExport(lost);
    expect(journal.getExport(lost).status).toBe('abandoned');
    expect(journal.alreadyExported('customer-returns', [5, 6])).toEqual(new Set());
    const again = journal.beginExport({ workType: 'customer-returns', fileName: 'cr-0002.csv', records: records(5, 6) });
    expect(() => journal.abandonExport(lost)).toThrow(/only an unwritten export/);
    journal.markExportWritten(again);
    expect(() => journal.abandonExport(again)).toThrow(/only an unwritten export/);
  });

  it('records a large export in parts: records added while recorded, checked like the first part, refused once written', () => {
    const exportId = journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(1, 2), policy: 'on-export' });
    journal.addExportRecords(exportId, records(3, 4));
    expect(journal.getExport(exportId)).toMatchObject({ status: 'recorded', recordCount: 4 });
    const earlier = journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-other.csv', records: records(9) });
    const taken = (() => {
      try {
        journal.addExportRecords(exportId, records(5, 9));
      } catch (error) {
        return error as { code: string; details: { ids: number[] } };
      }
    })();
    expect(taken).toMatchObject({ code: 'JOURNAL_STATE', details: { ids: [9] } });
    expect(journal.exportRecords(exportId).map((r) => r.id)).toEqual([1, 2, 3, 4]);
    expect(journal.exportRecords(earlier).map((r) => r.id)).toEqual([9]);
    journal.addExportRecords(exportId, records(5));
    journal.markExportWritten(exportId);
    expect(journal.getExport(exportId)).toMatchObject({ status: 'written', recordCount: 5 });
    expect(() => journal.addExportRecords(exportId, records(6))).toThrow(/only be added before it is written/);
  });

  it('marks an export written in one step, however many records it has; its records read unwritten until then', () => {
    const ids = Array.from({ length: 2_500 }, (_, i) => i + 1);
    const exportId = journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(...ids) });
    expect(journal.exportRecords(exportId).every((r) => r.ackStatus === 'unwritten')).toBe(true);
    expect(journal.cancelledNotYetExported('customer-shipments', [1, 2])).toEqual([]);
    expect(() => journal.recordAcknowledgements(exportId, [{ id: 1, status: 'acknowledged' }])).toThrow(/is recorded: its records are not waiting/);
    const changes = () => rawDatabase(journal).prepare('SELECT total_changes()').pluck().get() as number;
    const before = changes();
    journal.markExportWritten(exportId);
    expect(changes() - before).toBe(1); // the export row, no record row
    expect(journal.getExport(exportId).status).toBe('written');
    expect(journal.pendingAcknowledgements('customer-shipments')).toHaveLength(2_500);
    expect(journal.exportRecords(exportId).every((r) => r.ackStatus === 'pending')).toBe(true);
    expect(journal.cancelledNotYetExported('customer-shipments', [1, 2]).map((r) => r.id)).toEqual([1, 2]);
  });

  it('brings records an older journal left unwritten to their policy status, their export still unwritten', () => {
    const raw = rawDatabase(journal);
    const exportId = journal.beginExport({ workType: 'customer-shipments', fileName: 'old.csv', records: records(1, 2), policy: 'on-confirmation' });
    raw.prepare(`UPDATE export_records SET ack_status = 'unwritten' WHERE export_id = ?`).run(exportId);
    raw.exec(MIGRATIONS[2]!); // migration 3, as it ran on a journal of the version before it
    reopen();
    expect(rawDatabase(journal).prepare('SELECT DISTINCT ack_status FROM export_records').pluck().all()).toEqual(['awaiting-confirmation']);
    expect(journal.exportRecords(exportId).map((r) => r.ackStatus)).toEqual(['unwritten', 'unwritten']);
    expect(journal.backlog().exportsUnwritten).toBe(2);
    expect(journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [], unknown: [1] }); // not handed over yet
    journal.markExportWritten(exportId);
    expect(journal.awaitingConfirmation('customer-shipments').map((r) => r.id)).toEqual([1, 2]);
    expect(journal.backlog()).toMatchObject({ exportsUnwritten: 0, awaitingConfirmation: 2 });
  });

  it('lists the exports with records due for acknowledgement, and each one\'s due records, written exports only', () => {
    const a = journal.beginExport({ workType: 'customer-shipments', fileName: 'a.csv', records: records(1, 2) });
    const b = journal.beginExport({ workType: 'customer-shipments', fileName: 'b.csv', records: records(3) });
    const c = journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(4), policy: 'on-confirmation' });
    journal.beginExport({ workType: 'customer-shipments', fileName: 'd.csv', records: records(5) }); // not written
    for (const id of [a, b, c]) journal.markExportWritten(id);
    journal.recordAcknowledgements(b, [{ id: 3, status: 'acknowledged' }]);
    expect(journal.exportsDueForAcknowledgement('customer-shipments')).toEqual([a]);
    expect(journal.exportsDueForAcknowledgement('customer-returns')).toEqual([]);
    expect(journal.pendingAcknowledgementsOf(a).map((r) => [r.id, r.fileName, r.ackStatus])).toEqual([[1, 'a.csv', 'pending'], [2, 'a.csv', 'pending']]);
    expect(journal.pendingAcknowledgementsOf(b)).toEqual([]);
    expect(journal.pendingIdsOf(a)).toEqual(new Set([1, 2]));
    expect(journal.pendingIdsOf(b)).toEqual(new Set());
    journal.confirmRecords('customer-shipments', [4]);
    expect(journal.exportsDueForAcknowledgement('customer-shipments')).toEqual([a, c]);
    expect(journal.pendingAcknowledgements('customer-shipments').map((r) => r.id)).toEqual([1, 2, 4]);
  });

  it('answers which ids were exported for sparse and dense id lists alike', () => {
    journal.markExportWritten(journal.beginExport({ workType: 'customer-shipments', fileName: 'a.csv', records: records(10, 12, 1_000_000) }));
    journal.abandonExport(journal.beginExport({ workType: 'customer-shipments', fileName: 'b.csv', records: records(11) }));
    expect(journal.alreadyExported('customer-shipments', [9, 10, 11, 12, 13])).toEqual(new Set([10, 12]));
    expect(journal.alreadyExported('customer-shipments', [12, 1_000_000, 5])).toEqual(new Set([12, 1_000_000]));
    expect(journal.alreadyExported('customer-shipments', [])).toEqual(new Set());
  });

  it('keeps work types apart and rejects a record listed twice', () => {
    journal.markExportWritten(journal.beginExport({ workType: 'inbound-transfers', fileName: 'it.csv', records: records(1) }));
    expect(journal.alreadyExported('outbound-transfers', [1])).toEqual(new Set());
    expect(() => journal.beginExport({ workType: 'outbound-transfers', fileName: 'ot.csv', records: records(1, 1) })).toThrow(/twice/);
  });

  it('lets repeatable exports (product catalog) list a record again and completes them without acknowledgement', () => {
    const first = journal.beginExport({ workType: 'products', fileName: 'p1.csv', records: records(1, 2), policy: 'never', repeatable: true });
    journal.markExportWritten(first);
    const second = journal.beginExport({ workType: 'products', fileName: 'p2.csv', records: records(2), policy: 'never', repeatable: true });
    journal.markExportWritten(second);
    expect(journal.getExport(second).status).toBe('completed');
    expect(journal.exportRecords(second)[0].ackStatus).toBe('not-required');
    expect(journal.pendingAcknowledgements('products')).toEqual([]);
  });
});

describe('confirmation-file policy', () => {
  it('waits for the WMS confirmation before the records are due for acknowledgement', () => {
    const exportId = journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(1, 2), policy: 'on-confirmation' });
    journal.markExportWritten(exportId);
    expect(journal.pendingAcknowledgements('customer-shipments')).toEqual([]);
    expect(journal.awaitingConfirmation('customer-shipments').map((r) => r.id)).toEqual([1, 2]);
    expect(journal.backlog().awaitingConfirmation).toBe(2);
    expect(journal.confirmRecords('customer-shipments', [2, 99])).toEqual({ confirmed: [2], unknown: [99] });
    expect(journal.pendingAcknowledgements('customer-shipments').map((r) => r.id)).toEqual([2]);
    journal.recordAcknowledgements(exportId, [{ id: 2, status: 'acknowledged' }]);
    expect(journal.getExport(exportId).status).toBe('written');
    expect(journal.awaitingConfirmation('customer-shipments').map((r) => r.id)).toEqual([1]);
  });
});

describe('cancellations', () => {
  it('exports a cancelled record once in a cancellation list', () => {
    const work = journal.beginExport({ workType: 'customer-shipments', fileName: 'w.csv', records: records(1, 2, 3) });
    journal.markExportWritten(work);
    // 4 was never exported: the WMS never heard of it.
    expect(journal.cancelledNotYetExported('customer-shipments', [2, 3, 4]).map((r) => [r.id, r.fileName])).toEqual([
      [2, 'w.csv'], [3, 'w.csv'],
    ]);
    const cancel = journal.beginCancellationExport({ workType: 'customer-shipments', fileName: 'cancel-1.csv', records: records(2) });
    expect(journal.cancelledNotYetExported('customer-shipments', [2, 3]).map((r) => r.id)).toEqual([3]);
    journal.markCancellationExported(cancel);
    expect(journal.getExport(cancel)).toMatchObject({ kind: 'cancellation', status: 'completed', policy: 'never' });
    expect(() => journal.beginCancellationExport({ workType: 'customer-shipments', fileName: 'c2.csv', records: records(2, 4) }))
      .toThrow(/not exported or already cancelled: 2, 4/);
    // A cancellation list never counts as handing the work over.
    expect(journal.alreadyExported('customer-shipments', [2])).toEqual(new Set([2]));
    expect(journal.pendingAcknowledgements('customer-shipments').map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('offers the record again when the cancellation file was lost in a crash', () => {
    journal.markExportWritten(journal.beginExport({ workType: 'customer-returns', fileName: 'w.csv', records: records(7) }));
    const cancel = journal.beginCancellationExport({ workType: 'customer-returns', fileName: 'cancel.csv', records: records(7) });
    reopen();
    journal.abandonExport(cancel);
    expect(journal.cancelledNotYetExported('customer-returns', [7]).map((r) => r.id)).toEqual([7]);
  });
});

describe('cursors and file sequences', () => {
  it('persists cursors and per-work-type sequence numbers across reopen', () => {
    expect(journal.getCursor('products.updated_at')).toBeNull();
    journal.setCursor('products.updated_at', '2026-03-01T00:00:00Z');
    journal.setCursor('products.updated_at', '2026-03-01T06:00:00Z');
    expect([1, 2].map(() => journal.nextFileSequence('customer-shipments'))).toEqual([1, 2]);
    expect(journal.nextFileSequence('supplier-shipments')).toBe(1);
    reopen();
    expect(journal.getCursor('products.updated_at')).toBe('2026-03-01T06:00:00Z');
    expect(journal.nextFileSequence('customer-shipments')).toBe(3);
  });
});
