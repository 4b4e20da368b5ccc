import { describe, expect, it } from 'vitest';
import type { X12EnvelopeEntry } from '../../../src/journal/index.js';
import { claimInput } from '../../../src/journal/test-support.js';
import { failedFile, type Suite } from './support.js';

const entry = (ord: number, level: X12EnvelopeEntry['level'], detail: object): X12EnvelopeEntry => ({ ord, level, detail: JSON.stringify(detail) });

export function describeX12Envelopes(suite: Suite): void {
  describe('X12 envelopes of a file', () => {
    it('are kept in file order, read a page at a time, and recorded again in place', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('NWL_1.edi', 'x12-1'));
      const other = (await suite.journal.claimFile(claimInput('NWL_2.edi', 'x12-2'))).fileId;
      const entries = [
        entry(0, 'file', { sets: 3 }), entry(1, 'interchange', { control: '000004711' }), entry(2, 'group', { control: '1' }),
        ...[1, 2, 3].map((n) => entry(2 + n, 'set', { control: `000${n}` })),
      ];
      // Written out of order and in chunks larger than one statement's: read back by ord.
      await suite.journal.recordX12Envelopes(fileId, [...entries].reverse());
      await suite.journal.recordX12Envelopes(other, Array.from({ length: 450 }, (_, i) => entry(i + 1, 'set', { n: i })));
      const first = await suite.journal.console.x12Envelopes(fileId, { limit: 4 });
      expect(first.entries).toEqual(entries.slice(0, 4));
      expect(first.next).toBe(3);
      const second = await suite.journal.console.x12Envelopes(fileId, { after: first.next!, limit: 4 });
      expect(second).toEqual({ entries: entries.slice(4), next: null });
      const many = await suite.journal.console.x12Envelopes(other, { after: 400, limit: 100 });
      expect(many.entries.map((e) => e.ord)).toEqual(Array.from({ length: 50 }, (_, i) => 401 + i));

      // A later run (the rows decided) replaces what the claim recorded, entry by entry.
      await suite.journal.recordX12Envelopes(fileId, [entry(5, 'set', { control: '0003', rows: 2 })]);
      await suite.reopen();
      const again = await suite.journal.console.x12Envelopes(fileId, { after: 4, limit: 10 });
      expect(again.entries).toEqual([entry(5, 'set', { control: '0003', rows: 2 })]);
      expect((await suite.journal.console.x12Envelopes(fileId, { limit: 10 })).entries).toHaveLength(6);
    });

    it('records each interchange received by sender and ISA13 with the file that brought it first', async () => {
      const first = (await suite.journal.claimFile(claimInput('NWL_1.edi', 'isa-1'))).fileId;
      const second = (await suite.journal.claimFile(claimInput('NWL_2.edi', 'isa-2'))).fileId;
      expect(await suite.journal.recordReceivedInterchange(first, 'NWL', '000004711')).toBe(first);
      // A later run of the same file finds it its own; another file finds the first; another sender's is its own.
      expect(await suite.journal.recordReceivedInterchange(first, 'NWL', '000004711')).toBe(first);
      expect(await suite.journal.recordReceivedInterchange(second, 'NWL', '000004711')).toBe(first);
      expect(await suite.journal.recordReceivedInterchange(second, 'ZZ/ACMEWMS', '000004711')).toBe(second);
      await suite.reopen();
      expect(await suite.journal.recordReceivedInterchange(second, 'NWL', '000004711')).toBe(first);
      expect(await suite.journal.recordReceivedInterchange(second, 'NWL', '000004712')).toBe(second);
    });

    it('a file without any has none', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('a.csv', 'csv-1'));
      expect(await suite.journal.console.x12Envelopes(fileId, { limit: 10 })).toEqual({ entries: [], next: null });
    });

    it("the rows of one set: a file's rows from a seq through another", async () => {
      const fileId = await failedFile(suite.journal);
      const seqs = async (options: { after?: number; through?: number; limit: number; status?: 'error' | 'ok' }) =>
        (await suite.journal.console.fileRows(fileId, options)).rows.map((r) => r.seq);
      expect(await seqs({ after: 0, through: 3, limit: 10 })).toEqual([1, 2, 3]);
      expect(await seqs({ after: 0, through: 3, limit: 10, status: 'error' })).toEqual([2, 3]);
      expect(await seqs({ after: 0, through: 3, limit: 10, status: 'ok' })).toEqual([1]);
      const page = await suite.journal.console.fileRows(fileId, { after: 0, through: 3, limit: 2 });
      expect(page.rows.map((r) => r.seq)).toEqual([1, 2]);
      expect(page.next).toBe(2);
      expect((await suite.journal.console.fileRows(fileId, { after: 2, through: 3, limit: 1 })).next).toBeNull();
    });
  });
}
