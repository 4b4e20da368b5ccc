import { describe, expect, it } from 'vitest';
import { MAX_CONTROL_NUMBER } from '../../../src/journal/index.js';
import { testHooks } from '../../../src/journal/testing.js';
import { records, type Suite } from './support.js';

export function describeControlNumbers(suite: Suite): void {
  describe('X12 control numbers', () => {
    it('are increasing per partner and kind, a range at once, and go on after a reopen', async () => {
      const j = suite.journal;
      expect(await j.nextControlNumber('acme', 'interchange')).toBe(1);
      expect(await j.nextControlNumber('acme', 'interchange')).toBe(2);
      expect(await j.nextControlNumber('acme', 'set', 5)).toBe(1);
      expect(await j.nextControlNumber('acme', 'set', 2)).toBe(6);
      expect(await j.nextControlNumber('acme', 'group')).toBe(1);
      expect(await j.nextControlNumber('globex', 'interchange')).toBe(1);
      await suite.reopen();
      expect(await suite.journal.nextControlNumber('acme', 'interchange')).toBe(3);
      expect(await suite.journal.nextControlNumber('acme', 'set')).toBe(8);
    });

    it('a unit of work that fails hands out nothing, one that commits keeps its numbers', async () => {
      await expect(suite.journal.transaction(async (tx) => {
        expect(await tx.nextControlNumber('acme', 'interchange', 10)).toBe(1);
        throw new Error('the write failed');
      })).rejects.toThrow('the write failed');
      expect(await suite.journal.transaction((tx) => tx.nextControlNumber('acme', 'interchange'))).toBe(1);
      expect(await suite.journal.nextControlNumber('acme', 'interchange')).toBe(2);
    });

    it('wrap at nine digits to 1, never splitting a range across the wrap', async () => {
      await testHooks(suite.journal).setControlNumber('acme', 'interchange', MAX_CONTROL_NUMBER - 3);
      expect(await suite.journal.nextControlNumber('acme', 'interchange', 2)).toBe(MAX_CONTROL_NUMBER - 2);
      // 999999999 alone is left: a range of two starts again at 1.
      expect(await suite.journal.nextControlNumber('acme', 'interchange', 2)).toBe(1);
      expect(await suite.journal.nextControlNumber('acme', 'interchange')).toBe(3);
      await testHooks(suite.journal).setControlNumber('acme', 'set', MAX_CONTROL_NUMBER - 1);
      expect(await suite.journal.nextControlNumber('acme', 'set')).toBe(MAX_CONTROL_NUMBER);
      expect(await suite.journal.nextControlNumber('acme', 'set')).toBe(1);
    });

    it('refuses a count, a kind or a partner it cannot allocate for', async () => {
      await expect(suite.journal.nextControlNumber('acme', 'set', 0)).rejects.toThrow(/1 to 999999999 at a time/);
      await expect(suite.journal.nextControlNumber('acme', 'set', 1.5)).rejects.toThrow(/at a time/);
      // eslint-disable-next-line no-restricted-syntax -- a kind the type refuses, as a caller without types could pass
      await expect(suite.journal.nextControlNumber('acme', 'batch' as never)).rejects.toThrow(/of kind interchange, group, set/);
      await expect(suite.journal.nextControlNumber('', 'set')).rejects.toThrow(/for a partner/);
      expect(await suite.journal.nextControlNumber('acme', 'set')).toBe(1);
    });

    it('an export\'s interchange numbers are recorded with it: asked again, the same; another export, new ones', async () => {
      const first = await suite.journal.beginExport({ workType: 'customerShipments', fileName: 'cs-1.x12', records: records(1, 2, 3) });
      expect(await suite.journal.exportControls(first)).toBeUndefined();
      const controls = await suite.journal.allocateExportControls(first, 'acme', 3);
      expect(controls).toEqual({ partner: 'acme', interchange: 1, group: 1, firstSet: 1, sets: 3 });
      await suite.reopen();
      expect(await suite.journal.allocateExportControls(first, 'acme', 3)).toEqual(controls);
      expect(await suite.journal.exportControls(first)).toEqual(controls);
      await suite.journal.abandonExport(first);
      const second = await suite.journal.beginExport({ workType: 'customerShipments', fileName: 'cs-2.x12', records: records(1, 2) });
      expect(await suite.journal.allocateExportControls(second, 'acme', 2)).toEqual({ partner: 'acme', interchange: 2, group: 2, firstSet: 4, sets: 2 });
      expect(await suite.journal.nextControlNumber('acme', 'set')).toBe(6);
      // A 997 names the group (AK102): found per partner.
      expect(await suite.journal.exportOfGroup('acme', 2)).toEqual({ exportId: second, partner: 'acme', interchange: 2, group: 2, firstSet: 4, sets: 2 });
      expect(await suite.journal.exportOfGroup('acme', 1)).toMatchObject({ exportId: first });
      expect(await suite.journal.exportOfGroup('globex', 2)).toBeUndefined();
    });

    it('two connections allocating at once never get the same number', async () => {
      const other = await suite.fx.second();
      const calls = Array.from({ length: 40 }, (_, i) => (i % 2 ? suite.journal : other).nextControlNumber('acme', 'set', 1 + (i % 3))
        .then((first) => Array.from({ length: 1 + (i % 3) }, (_, k) => first + k)));
      const numbers = (await Promise.all(calls)).flat().sort((a, b) => a - b);
      // Every number once, and none skipped: nothing crashed.
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
      expect(await other.nextControlNumber('acme', 'set')).toBe(numbers.length + 1);
    });
  });
}
