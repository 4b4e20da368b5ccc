import { describe, expect, it } from 'vitest';
import { records, type Suite } from './support.js';
import { testHooks } from '../../../src/journal/testing.js';

export function describeExports(suite: Suite): void {
  describe('exports with acknowledgement and confirmation', () => {
    it('records the file before writing, then acknowledges after it is in place', async () => {
      const exportId = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-0001.csv', records: records(1, 2, 3) });
      expect(await suite.journal.getExport(exportId)).toMatchObject({ status: 'recorded', policy: 'on-export', recordCount: 3 });
      // records of an export without acknowledgement are unwritten too until their file is in place
      const never = await suite.journal.beginExport({ workType: 'products', fileName: 'p.csv', records: records(7, 8), policy: 'never', repeatable: true });
      expect((await suite.journal.backlog()).exportsUnwritten).toBe(5);
      expect((await testHooks(suite.journal).exportRecords(never)).map((r) => r.ackStatus)).toEqual(['unwritten', 'unwritten']);
      await suite.journal.markExportWritten(never);
      expect(await suite.journal.alreadyExported('customer-shipments', [1, 2, 4])).toEqual(new Set([1, 2]));
      expect(await suite.journal.pendingAcknowledgements('customer-shipments')).toEqual([]);
      expect((await suite.journal.backlog()).exportsUnwritten).toBe(3);
      await suite.journal.markExportWritten(exportId);
      expect((await suite.journal.pendingAcknowledgements('customer-shipments')).map((r) => [r.id, r.number, r.fileName])).toEqual([
        [1, 'SO-1', 'cs-0001.csv'], [2, 'SO-2', 'cs-0001.csv'], [3, 'SO-3', 'cs-0001.csv'],
      ]);
      expect(await suite.journal.recordAcknowledgements(exportId, [
        { id: 1, status: 'acknowledged', acknowledgedAt: '2026-03-01T08:00:05Z' },
        { id: 2, status: 'error', messages: ['shipment was cancelled'] },
      ])).toBe(false);
      expect(await suite.journal.recordAcknowledgements(exportId, [{ id: 3, status: 'acknowledged' }])).toBe(true);
      expect((await suite.journal.getExport(exportId)).status).toBe('completed');
      expect((await testHooks(suite.journal).exportRecords(exportId)).map((r) => [r.id, r.ackStatus, r.acknowledgedAt, r.messages])).toEqual([
        [1, 'acknowledged', '2026-03-01T08:00:05Z', []],
        [2, 'error', null, ['shipment was cancelled']],
        [3, 'acknowledged', expect.stringMatching(/^2026-03-01T/), []],
      ]);
      await expect(suite.journal.recordAcknowledgements(exportId, [{ id: 3, status: 'acknowledged' }])).rejects.toThrow(/not waiting/);
      expect((await suite.journal.listExports({ workType: 'customer-shipments', limit: 5 })).map((e) => e.exportId)).toEqual([exportId]);
    });

    it('after a crash between writing and acknowledging, neither loses the acknowledgement nor exports again', async () => {
      const exportId = await suite.journal.beginExport({ workType: 'supplier-shipments', fileName: 'ss-0001.csv', records: records(10, 11) });
      await suite.journal.markExportWritten(exportId);
      await suite.journal.recordAcknowledgements(exportId, [{ id: 10, status: 'acknowledged' }]);
      await suite.reopen(); // the process died here
      expect((await suite.journal.pendingAcknowledgements('supplier-shipments')).map((r) => r.id)).toEqual([11]);
      expect(await suite.journal.alreadyExported('supplier-shipments', [10, 11, 12])).toEqual(new Set([10, 11]));
      await expect(suite.journal.beginExport({ workType: 'supplier-shipments', fileName: 'ss-0002.csv', records: records(11, 12) }))
        .rejects.toThrow(/already exported .*11/);
    });

    it('abandons an export whose file never reached the outbox, freeing its records', async () => {
      const lost = await suite.journal.beginExport({ workType: 'customer-returns', fileName: 'cr-0001.csv', records: records(5, 6) });
      await suite.reopen();
      expect((await suite.journal.unwrittenExports('customer-returns')).map((e) => e.exportId)).toEqual([lost]);
      await suite.journal.abandonExport(lost);
      expect((await suite.journal.getExport(lost)).status).toBe('abandoned');
      expect(await suite.journal.alreadyExported('customer-returns', [5, 6])).toEqual(new Set());
      const again = await suite.journal.beginExport({ workType: 'customer-returns', fileName: 'cr-0002.csv', records: records(5, 6) });
      await expect(suite.journal.abandonExport(lost)).rejects.toThrow(/only an unwritten export/);
      await suite.journal.markExportWritten(again);
      await expect(suite.journal.abandonExport(again)).rejects.toThrow(/only an unwritten export/);
    });

    it('records a large export in parts: records added while recorded, checked like the first part, refused once written', async () => {
      const exportId = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(1, 2), policy: 'on-export' });
      await suite.journal.addExportRecords(exportId, records(3, 4));
      expect(await suite.journal.getExport(exportId)).toMatchObject({ status: 'recorded', recordCount: 4 });
      const earlier = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-other.csv', records: records(9) });
      const taken = await (async () => {
        try {
          await suite.journal.addExportRecords(exportId, records(5, 9));
        } catch (error) {
          return error;
        }
      })();
      expect(taken).toMatchObject({ code: 'JOURNAL_STATE', details: { ids: [9] } });
      expect((await testHooks(suite.journal).exportRecords(exportId)).map((r) => r.id)).toEqual([1, 2, 3, 4]);
      expect((await testHooks(suite.journal).exportRecords(earlier)).map((r) => r.id)).toEqual([9]);
      await suite.journal.addExportRecords(exportId, records(5));
      await suite.journal.markExportWritten(exportId);
      expect(await suite.journal.getExport(exportId)).toMatchObject({ status: 'written', recordCount: 5 });
      await expect(suite.journal.addExportRecords(exportId, records(6))).rejects.toThrow(/only be added before it is written/);
    });

    it('marks an export written in one step, however many records it has; its records read unwritten until then', async () => {
      const ids = Array.from({ length: 2_500 }, (_, i) => i + 1);
      const exportId = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'cs-big.csv', records: records(...ids) });
      expect((await testHooks(suite.journal).exportRecords(exportId)).every((r) => r.ackStatus === 'unwritten')).toBe(true);
      expect(await suite.journal.cancelledNotYetExported('customer-shipments', [1, 2])).toEqual([]);
      await expect(suite.journal.recordAcknowledgements(exportId, [{ id: 1, status: 'acknowledged' }])).rejects.toThrow(/is recorded: its records are not waiting/);
      await suite.journal.markExportWritten(exportId);
      expect((await suite.journal.getExport(exportId)).status).toBe('written');
      expect(await suite.journal.pendingAcknowledgements('customer-shipments')).toHaveLength(2_500);
      expect((await testHooks(suite.journal).exportRecords(exportId)).every((r) => r.ackStatus === 'pending')).toBe(true);
      expect((await suite.journal.cancelledNotYetExported('customer-shipments', [1, 2])).map((r) => r.id)).toEqual([1, 2]);
      expect((await suite.journal.exportRecordsAfter(exportId, 1_000, 3)).map((r) => r.id)).toEqual([1_001, 1_002, 1_003]);
      expect(await suite.journal.exportRecordsAfter(exportId, 2_500, 3)).toEqual([]);
    });

    it('lists the exports with records due for acknowledgement, and each one\'s due records, written exports only', async () => {
      const a = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'a.csv', records: records(1, 2) });
      const b = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'b.csv', records: records(3) });
      const c = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(4), policy: 'on-confirmation' });
      await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'd.csv', records: records(5) }); // not written
      for (const id of [a, b, c]) await suite.journal.markExportWritten(id);
      await suite.journal.recordAcknowledgements(b, [{ id: 3, status: 'acknowledged' }]);
      expect(await suite.journal.exportsDueForAcknowledgement('customer-shipments')).toEqual([a]);
      expect(await suite.journal.exportsDueForAcknowledgement('customer-returns')).toEqual([]);
      expect((await suite.journal.pendingAcknowledgementsOf(a)).map((r) => [r.id, r.fileName, r.ackStatus])).toEqual([[1, 'a.csv', 'pending'], [2, 'a.csv', 'pending']]);
      expect(await suite.journal.pendingAcknowledgementsOf(b)).toEqual([]);
      expect(await suite.journal.pendingIdsOf(a)).toEqual(new Set([1, 2]));
      expect(await suite.journal.pendingIdsOf(b)).toEqual(new Set());
      await suite.journal.confirmRecords('customer-shipments', [4]);
      expect(await suite.journal.exportsDueForAcknowledgement('customer-shipments')).toEqual([a, c]);
      expect((await suite.journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([1, 2, 4]);
    });

    it('answers which ids were exported for sparse and dense id lists alike', async () => {
      await suite.journal.markExportWritten(await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'a.csv', records: records(10, 12, 1_000_000) }));
      await suite.journal.abandonExport(await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'b.csv', records: records(11) }));
      expect(await suite.journal.alreadyExported('customer-shipments', [9, 10, 11, 12, 13])).toEqual(new Set([10, 12]));
      expect(await suite.journal.alreadyExported('customer-shipments', [12, 1_000_000, 5])).toEqual(new Set([12, 1_000_000]));
      expect(await suite.journal.alreadyExported('customer-shipments', [])).toEqual(new Set());
    });

    it('keeps work types apart and rejects a record listed twice', async () => {
      await suite.journal.markExportWritten(await suite.journal.beginExport({ workType: 'inbound-transfers', fileName: 'it.csv', records: records(1) }));
      expect(await suite.journal.alreadyExported('outbound-transfers', [1])).toEqual(new Set());
      await expect(suite.journal.beginExport({ workType: 'outbound-transfers', fileName: 'ot.csv', records: records(1, 1) })).rejects.toThrow(/twice/);
    });

    it('lets repeatable exports (product catalog) list a record again and completes them without acknowledgement', async () => {
      const first = await suite.journal.beginExport({ workType: 'products', fileName: 'p1.csv', records: records(1, 2), policy: 'never', repeatable: true });
      await suite.journal.markExportWritten(first);
      const second = await suite.journal.beginExport({ workType: 'products', fileName: 'p2.csv', records: records(2), policy: 'never', repeatable: true });
      await suite.journal.markExportWritten(second);
      expect((await suite.journal.getExport(second)).status).toBe('completed');
      expect((await testHooks(suite.journal).exportRecords(second))[0].ackStatus).toBe('not-required');
      expect(await suite.journal.pendingAcknowledgements('products')).toEqual([]);
    });

    it('confirmation-file policy: waits for the WMS confirmation before the records are due for acknowledgement', async () => {
      const exportId = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(1, 2), policy: 'on-confirmation' });
      await suite.journal.markExportWritten(exportId);
      expect(await suite.journal.pendingAcknowledgements('customer-shipments')).toEqual([]);
      expect((await suite.journal.awaitingConfirmation('customer-shipments')).map((r) => r.id)).toEqual([1, 2]);
      expect((await suite.journal.backlog()).awaitingConfirmation).toBe(2);
      expect(await suite.journal.confirmRecords('customer-shipments', [2, 99])).toEqual({ confirmed: [2], unknown: [99] });
      expect((await suite.journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([2]);
      await suite.journal.recordAcknowledgements(exportId, [{ id: 2, status: 'acknowledged' }]);
      expect((await suite.journal.getExport(exportId)).status).toBe('written');
      expect((await suite.journal.awaitingConfirmation('customer-shipments')).map((r) => r.id)).toEqual([1]);
    });

    it('confirmation-file policy: a confirmation of a record not yet handed over confirms nothing; a restart keeps what waits', async () => {
      const exportId = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'c.csv', records: records(1, 2), policy: 'on-confirmation' });
      expect(await suite.journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [], unknown: [1] });
      await suite.journal.markExportWritten(exportId);
      expect(await suite.journal.confirmRecords('customer-returns', [1])).toEqual({ confirmed: [], unknown: [1] }); // another work type
      await suite.reopen();
      expect(await suite.journal.backlog()).toMatchObject({ exportsUnwritten: 0, awaitingConfirmation: 2, acknowledgementsPending: 0 });
      expect(await suite.journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [1], unknown: [] });
      expect(await suite.journal.confirmRecords('customer-shipments', [1])).toEqual({ confirmed: [], unknown: [1] }); // once only
      expect(await suite.journal.backlog()).toMatchObject({ awaitingConfirmation: 1, acknowledgementsPending: 1 });
    });

    it('cancellations: exports a cancelled record once in a cancellation list', async () => {
      const work = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'w.csv', records: records(1, 2, 3) });
      await suite.journal.markExportWritten(work);
      // 4 was never exported: the WMS never heard of it.
      expect((await suite.journal.cancelledNotYetExported('customer-shipments', [2, 3, 4])).map((r) => [r.id, r.fileName])).toEqual([
        [2, 'w.csv'], [3, 'w.csv'],
      ]);
      const cancel = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'cancel-1.csv', records: records(2), kind: 'cancellation' });
      expect((await suite.journal.cancelledNotYetExported('customer-shipments', [2, 3])).map((r) => r.id)).toEqual([3]);
      await suite.journal.markExportWritten(cancel);
      expect(await suite.journal.getExport(cancel)).toMatchObject({ kind: 'cancellation', status: 'completed', policy: 'never' });
      await expect(suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'c2.csv', records: records(2, 4), kind: 'cancellation' }))
        .rejects.toThrow(/not exported or already cancelled: 2, 4/);
      // A cancellation list never counts as handing the work over.
      expect(await suite.journal.alreadyExported('customer-shipments', [2])).toEqual(new Set([2]));
      expect((await suite.journal.pendingAcknowledgements('customer-shipments')).map((r) => r.id)).toEqual([1, 2, 3]);
    });

    it('cancellations: offers the record again when the cancellation file was lost in a crash', async () => {
      await suite.journal.markExportWritten(await suite.journal.beginExport({ workType: 'customer-returns', fileName: 'w.csv', records: records(7) }));
      const cancel = await suite.journal.beginExport({ workType: 'customer-returns', fileName: 'cancel.csv', records: records(7), kind: 'cancellation' });
      await suite.reopen();
      await suite.journal.abandonExport(cancel);
      expect((await suite.journal.cancelledNotYetExported('customer-returns', [7])).map((r) => r.id)).toEqual([7]);
    });

    it('persists cursors and per-work-type sequence numbers across reopen', async () => {
      expect(await suite.journal.getCursor('products.updated_at')).toBeNull();
      await suite.journal.setCursor('products.updated_at', '2026-03-01T00:00:00Z');
      await suite.journal.setCursor('products.updated_at', '2026-03-01T06:00:00Z');
      expect([await suite.journal.nextFileSequence('customer-shipments'), await suite.journal.nextFileSequence('customer-shipments')]).toEqual([1, 2]);
      expect(await suite.journal.nextFileSequence('supplier-shipments')).toBe(1);
      await suite.reopen();
      expect(await suite.journal.getCursor('products.updated_at')).toBe('2026-03-01T06:00:00Z');
      expect(await suite.journal.nextFileSequence('customer-shipments')).toBe(3);
    });
  });
}
