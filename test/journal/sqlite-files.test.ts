import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import { JournalTally, openJournal, type Journal } from '../../src/journal/index.js';
import { rawDatabase, tempDir } from '../../src/journal/test-support.js';
import { testHooks } from '../../src/journal/testing.js';

const PROBE = fileURLToPath(new URL('./temp-files-probe.ts', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.remove());

const probe = (mode: 'savepoint' | 'units') => {
  const out = execFileSync(process.execPath, ['--import', 'tsx', PROBE, tmp.path, mode], { encoding: 'utf8', timeout: 60_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { tempDirectory: string; created: string[]; ok?: number };
};

// In a process of its own: the temporary folder is the process's, set by the first journal it opens.
it("writes SQLite's temporary files in the journal's folder, not in /var/tmp or /tmp (a read-only root file system has neither)", () => {
  const { tempDirectory, created } = probe('savepoint');
  expect(tempDirectory && realpathSync(tempDirectory)).toBe(realpathSync(tmp.dir));
  // The unit's statement journal outgrew memory and went to a file, there.
  expect(created.length).toBeGreaterThan(0);
});

it("the inbound flow's units of work write no statement journal (nested units join without a savepoint; OR FAIL inserts)", () => {
  const { created, ok } = probe('units');
  expect(ok).toBe(17700);
  expect(created).toEqual([]);
});

it('counts the syncs of its log and their time, and a write outside a unit of work as a commit', async () => {
  const tally = new JournalTally();
  const journal = await openJournal(tmp.path, { tally });
  try {
    const claim = await journal.claimFile({ drop: 'in', name: 'F.csv', checksum: 'c1', size: 1, mapping: 'm' });
    const afterClaim = tally.snapshot();
    expect(afterClaim.commits).toBeGreaterThanOrEqual(1);
    // Every commit is synced before its Promise resolves: at least one fdatasync of the log, timed.
    expect(afterClaim.syncs).toBeGreaterThanOrEqual(1);
    expect(afterClaim.syncSeconds).toBeGreaterThan(0);
    await journal.setCursor('k', 'v');
    expect(tally.commits).toBe(afterClaim.commits + 1);
    expect(tally.syncs).toBe(afterClaim.syncs + 1);
    expect(claim.fileId).toBeGreaterThan(0);
  } finally {
    await journal.close();
  }
});

describe("SQLite's failures as the journal reports them", () => {
  let journal: Journal;
  beforeEach(async () => {
    journal = await openJournal(tmp.path);
  });
  afterEach(() => journal.close());

  it('a full disk is a JOURNAL error naming the file and what to do; nothing of the unit of work is recorded', async () => {
    const claim = await journal.claimFile({ drop: 'in', name: 'F.csv', checksum: 'c1', size: 1, mapping: 'm' });
    const db = rawDatabase(journal);
    // The file may not grow past its size now (a setting of this connection): SQLite answers as for a full disk.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const items = Array.from({ length: 2000 }, (_, i) => ({ seq: i + 2, lines: [i + 2], body: { reference: `R-${i}`.padEnd(200, '.') } }));
    const failure = await testHooks(journal).recordBatch(claim.fileId, 'inventory.adjustments', items, { sent: true }).catch((error: unknown) => error);
    expect(isWisbridgeError(failure, 'JOURNAL')).toBe(true);
    expect((failure as Error).message).toBe(`the journal ${tmp.path} cannot grow: database or disk is full (SQLITE_FULL). Free space on its disk; nothing of the failed write was recorded`);
    expect(db.prepare('SELECT count(*) AS n FROM requests').get()).toEqual({ n: 0 });
  });

  it("leaves SQLite's answer to a statement the bridge got wrong as it is: a bug keeps its stack", async () => {
    const failure = await journal.transaction(async () => rawDatabase(journal).prepare('SELECT nothing FROM nowhere').get()).catch((error: unknown) => error);
    expect(isWisbridgeError(failure)).toBe(false);
    expect((failure as { code?: string }).code).toBe('SQLITE_ERROR');
  });
});
