import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import type { InboundJournal, Journal, OperatorJournal, ResultReads } from './index.js';
import { claimInput, rawDatabase, useTestJournal } from './test-support.js';

let journal: Journal;
useTestJournal((j) => (journal = j));

describe('journal interfaces', () => {
  beforeEach(async () => {
    await journal.claimFile(claimInput('a.csv', 'abc'));
  });

  it('exposes no database handle: the connection is reachable only through the test accessor', () => {
    const values = Object.keys(journal).map((key) => (journal as unknown as Record<string, unknown>)[key]);
    expect(values.some((v) => v instanceof Database)).toBe(false);
    expect('db' in journal).toBe(false);
    expect(rawDatabase(journal)).toBeInstanceOf(Database);
    expect(() => rawDatabase({} as Journal)).toThrow(/not a journal/);
  });

  it('prepares the console queries once, on the journal clock', async () => {
    expect(journal.console).toBe(journal.console);
    await journal.console.recordAction({ action: 'download', fileId: 1, target: 'a.csv', actor: 'test', via: 'console', detail: null, outcome: 'ok' });
    expect((await journal.console.listActions({ limit: 5 }))[0]).toMatchObject({ action: 'download', at: expect.stringMatching(/^2026-03-01T08:/) });
  });

  it('hands each user only its part (checked by the compiler)', async () => {
    const inbound: InboundJournal = journal;
    const reads: ResultReads = journal;
    const operator: OperatorJournal = journal;
    // The narrowing is by type: at run time it is the same object, so the calls below exist but do not compile.
    // @ts-expect-error the operator side cannot record requests
    expect(operator.recordBatch).toBeDefined();
    // @ts-expect-error the inbound side cannot resolve uncertain rows
    expect(inbound.resolveUncertain).toBeDefined();
    expect(await reads.fileSummary(1)).toMatchObject({ fileId: 1, total: 0 });
  });
});
