import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Journal } from './index.js';
import { claimInput, rawDatabase, useTestJournal } from './test-support.js';

/*
 * The SQLite engine keeps its connection out of the journal's reach. How each user's part of the contract narrows is
 * the behaviour suite's (test/journal/behaviour.ts), run on both engines.
 */

let journal: Journal;
useTestJournal((j) => (journal = j));

describe('SQLite engine: journal interfaces', () => {
  it('exposes no database handle: the connection is reachable only through the test accessor', async () => {
    await journal.claimFile(claimInput('a.csv', 'abc'));
    const values = Object.keys(journal).map((key) => (journal as unknown as Record<string, unknown>)[key]);
    expect(values.some((v) => v instanceof Database)).toBe(false);
    expect('db' in journal).toBe(false);
    expect(rawDatabase(journal)).toBeInstanceOf(Database);
    expect(() => rawDatabase({} as Journal)).toThrow(/not a journal/);
  });
});
