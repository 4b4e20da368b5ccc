import { afterEach, beforeEach, expect, it } from 'vitest';
import { JournalThread } from '../../src/export/journal-writer.js';
import { JournalTally, openJournal } from '../../src/journal/index.js';
import { tempDir } from '../../src/journal/test-support.js';
import { testHooks } from '../../src/journal/testing.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

it("an export's journal thread records on its own connection, and its commits and syncs reach the process's tally when it closes", async () => {
  const journal = await openJournal(tmp.path);
  const tally = new JournalTally();
  const thread = new JournalThread(journal.address, tally);
  try {
    await thread.ready;
    const records = Array.from({ length: 3 }, (_, i) => ({ id: 100 + i, number: `SO-${i}` }));
    const exportId = await thread.begin({ workType: 'customerShipments', fileName: 'so_1.csv', records: records.slice(0, 1) });
    await thread.add(exportId, records.slice(1), {});
    await thread.markWritten(exportId);
    // Counted on the thread, added here only once it has closed.
    expect(tally.commits).toBe(0);
    await thread.close();
    expect(tally.commits).toBeGreaterThanOrEqual(3);
    expect(tally.commitSeconds).toBeGreaterThan(0);
    expect(tally.syncs).toBeGreaterThanOrEqual(1);
    expect(tally.syncSeconds).toBeGreaterThan(0);
    expect((await testHooks(journal).exportRecords(exportId)).map((r) => r.number)).toEqual(['SO-0', 'SO-1', 'SO-2']);
  } finally {
    await thread.close();
    await journal.close();
  }
});
