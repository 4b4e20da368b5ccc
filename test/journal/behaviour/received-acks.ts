import { describe, expect, it } from 'vitest';
import type { ExportAckInput } from '../../../src/journal/index.js';
import { records, type Suite } from './support.js';

/** A written X12 work list of `sets` sets for `partner`: its export id. */
let nextRecord = 1;
async function writtenX12(suite: Suite, partner: string, name: string, sets: number): Promise<number> {
  const ids = Array.from({ length: sets }, () => nextRecord++);
  const exportId = await suite.journal.beginExport({ workType: 'customerShipments', fileName: name, records: records(...ids) });
  await suite.journal.allocateExportControls(exportId, partner, sets);
  await suite.journal.markExportWritten(exportId);
  return exportId;
}

const rejection = (exportId: number, fileId: number): ExportAckInput => ({
  exportId, fileId, kind: '997', state: 'accepted-with-errors', code: 'P', text: 'AK9 P: partially accepted, 1 of 2 sets accepted',
  sets: [
    { id: '940', control: '0001', state: 'accepted', code: 'A', reasons: [], errors: [], text: 'AK5 A: accepted' },
    {
      id: '940', control: '0002', state: 'rejected', code: 'R', reasons: ['5'], text: 'AK5 R: rejected, one or more segments in error (5)',
      errors: [{ segmentId: 'W01', position: 12, code: '8', elements: [{ element: 5, reference: '234', code: '7', copy: 'SKU-X' }] }],
    },
  ],
});

export function describeReceivedAcks(suite: Suite): void {
  describe('acknowledgements received for X12 work lists', () => {
    it('records a partner\'s 997 per export, per set its code and errors, and lists the written interchanges with it', async () => {
      const first = await writtenX12(suite, 'acme', 'so-1.x12', 2);
      const second = await writtenX12(suite, 'acme', 'so-2.x12', 1);
      const other = await writtenX12(suite, 'globex', 'so-3.x12', 1);
      expect(await suite.journal.exportAck(first)).toBeUndefined();
      expect(await suite.journal.recordExportAck(rejection(first, 7))).toBe(true);
      await suite.reopen();
      const ack = await suite.journal.exportAck(first);
      expect(ack).toMatchObject({ ...rejection(first, 7), receivedAt: expect.any(String) });
      expect(ack!.sets[1].errors[0].elements[0]).toEqual({ element: 5, reference: '234', code: '7', copy: 'SKU-X' });

      const listed = await suite.journal.x12Exports({ limit: 10 });
      expect(listed.map((e) => [e.exportId, e.partner, e.group, e.ack?.state])).toEqual([[other, 'globex', 1, undefined], [second, 'acme', 2, undefined], [first, 'acme', 1, 'accepted-with-errors']]);
      expect(listed[2]).toMatchObject({ fileName: 'so-1.x12', interchange: 1, firstSet: 1, sets: 2, writtenAt: expect.any(String) });
      expect((await suite.journal.x12Exports({ limit: 10, partner: 'acme' })).map((e) => e.exportId)).toEqual([second, first]);
      expect((await suite.journal.x12Exports({ limit: 10, exportIds: [first] })).map((e) => e.exportId)).toEqual([first]);
      expect(await suite.journal.x12Exports({ limit: 10, exportIds: [] })).toEqual([]);
    });

    it('the same file recording it again is no news; another file\'s acknowledgement replaces it', async () => {
      const exportId = await writtenX12(suite, 'acme', 'so-1.x12', 2);
      expect(await suite.journal.recordExportAck(rejection(exportId, 7))).toBe(true);
      expect(await suite.journal.recordExportAck(rejection(exportId, 7))).toBe(false);
      const accepted: ExportAckInput = { ...rejection(exportId, 9), state: 'accepted', code: 'A', text: 'AK9 A: accepted', sets: [] };
      expect(await suite.journal.recordExportAck(accepted)).toBe(true);
      expect(await suite.journal.exportAck(exportId)).toMatchObject({ fileId: 9, state: 'accepted', code: 'A', sets: [] });
    });

    it('lists as awaiting only written interchanges no acknowledgement came for, written before the instant given', async () => {
      const acked = await writtenX12(suite, 'acme', 'so-1.x12', 1);
      const awaiting = await writtenX12(suite, 'acme', 'so-2.x12', 1);
      const unwritten = await suite.journal.beginExport({ workType: 'customerShipments', fileName: 'so-3.x12', records: records(nextRecord++) });
      await suite.journal.allocateExportControls(unwritten, 'acme', 1);
      await suite.journal.recordExportAck({ ...rejection(acked, 3), sets: [] });
      const writtenAt = (await suite.journal.getExport(awaiting)).writtenAt!;
      expect((await suite.journal.x12Exports({ limit: 10, awaitingSince: '9999-01-01T00:00:00.000Z' })).map((e) => e.exportId)).toEqual([awaiting]);
      expect(await suite.journal.x12Exports({ limit: 10, awaitingSince: writtenAt })).toEqual([]);
      expect(await suite.journal.x12Exports({ limit: 10, awaitingSince: '9999-01-01T00:00:00.000Z', partner: 'globex' })).toEqual([]);
    });
  });
}
