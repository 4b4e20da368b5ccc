import { expect } from 'vitest';
import { isWisbridgeError } from '../../../src/errors.js';
import { type InstanceInfo, type ItemWithBody, type Journal, type JournalTally } from '../../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes } from '../../../src/journal/test-support.js';
import { testHooks } from '../../../src/journal/testing.js';

/* Fixtures and helpers of the journal behaviour suite (test/journal/behaviour.ts). */

/** The calls the suite makes on a second connection: plain data in and out (the SQLite fixture serves them from a thread). */
export const CONNECTION_CALLS = [
  'claimFile', 'recordBatches', 'completeRequest', 'finishFile', 'fileSummary', 'nextFileSequence', 'setCursor', 'getCursor', 'beginExport',
  'resolveUncertain', 'nextControlNumber', 'close',
] as const;
export type Connection = Pick<Journal, (typeof CONNECTION_CALLS)[number]>;

export interface JournalFixture {
  /** The journal under test: after reopen(), the reopened one. */
  readonly journal: Journal;
  /** Closes the journal and opens the same one again, as a bridge restarting after a crash does; resolves the new one. */
  reopen(): Promise<Journal>;
  /** Another connection to the same journal, open at the same time (closed by remove). */
  second(): Promise<Connection>;
  /**
   * The same journal opened as an instance (lease mode, on the suite's clock; closed by remove): its leases judged by
   * the database's clock moved by `clockOffsetMs` (openJournal's leaseClockOffsetMs).
   */
  asInstance(instance: InstanceInfo, lease: { leaseMs: number; clockOffsetMs?: () => number }): Promise<Journal>;
  /** Closes whatever is open and removes the journal. */
  remove(): Promise<void>;
}

/** Opens a fresh, empty journal of the engine; `now` is the clock of the timestamps it stores, `tally` where it counts its commits. */
export type MakeJournal = (options?: { now?: () => Date; tally?: JournalTally }) => Promise<JournalFixture>;

export const EP = 'inventory.adjustments';
export const START = Date.parse('2026-03-01T08:00:00Z');
export const LATER = '2026-04-01T00:00:00.000Z';

/** The suite's clock: one second further at every reading, from START, so timestamps are distinct and ordered. */
export function ticking(start = START): () => Date {
  let tick = 0;
  return () => new Date(start + 1000 * tick++);
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The code of the WisbridgeError a call rejects with ('other' for another error, undefined when it resolves). */
export async function stateCode(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    return isWisbridgeError(error) ? error.code : 'other';
  }
  return undefined;
}

/** The items of a file that have a row of their own (rejected rows and exceptions; a block's other items have none). */
export async function itemRows(journal: Journal, fileId: number): Promise<ItemWithBody[]> {
  return (await testHooks(journal).itemsInRange(fileId, 0, 1_000_000)).filter((item) => item.itemId !== null);
}

export const records = (...ids: number[]) => ids.map((id) => ({ id, number: `SO-${id}`, updatedAt: '2026-03-01T07:00:00Z' }));

/** A finished file: seqs 0-1 ok, 2-3 error, 4 uncertain, 5 rejected by the mapping. */
export async function failedFile(journal: Journal, checksum = 'abc'): Promise<number> {
  const { fileId } = await journal.claimFile(claimInput(`${checksum}.csv`, checksum));
  await journal.addItems(fileId, [{ seq: 5, lines: [7], docKey: 'bad', status: 'error', messages: ['no SKU'] }]);
  const id = await testHooks(journal).recordBatch(fileId, EP, [0, 1, 2, 3, 4].map((s) => adjustment(s)));
  await journal.markSent(id);
  await journal.completeRequest(id, [
    ...okOutcomes([0, 1]),
    { seq: 2, status: 'error', messages: ['unknown product'] },
    { seq: 3, status: 'error', messages: ['warehouse closed'] },
    { seq: 4, status: 'uncertain', hint: 'look for move of SKU-4' },
  ]);
  expect(await journal.finishFile(fileId)).toBe('failed');
  return fileId;
}

/**
 * A finished file: seqs 0-2 in a block (0-1 ok, 2 error, or uncertain when asked), 3 rejected by the mapping;
 * `redriven`: seq 2 sent again and failed again. Resolves the file and its requests.
 */
export async function finishedFile(journal: Journal, checksum: string, options: { uncertain?: boolean; redriven?: boolean } = {}) {
  const { fileId } = await journal.claimFile(claimInput(`${checksum}.csv`, checksum));
  await journal.addItems(fileId, [{ seq: 3, lines: [5], docKey: 'bad', status: 'error', messages: ['no SKU'] }]);
  const id = await testHooks(journal).recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
  await journal.completeRequest(id, [...okOutcomes([0, 1]), options.uncertain
    ? { seq: 2, status: 'uncertain', hint: 'look for SKU-2' } : { seq: 2, status: 'error', messages: ['unknown product'] }]);
  await journal.finishFile(fileId);
  const requests = [id];
  if (options.redriven) {
    const attempt = await journal.beginRedrive(fileId);
    const retry = await journal.recordRequest(fileId, EP, [2], { attempt });
    await journal.markSent(retry);
    await journal.completeRequest(retry, [{ seq: 2, status: 'error', messages: ['still unknown'] }]);
    await journal.finishFile(fileId);
    requests.push(retry);
  }
  return { fileId, requests };
}

/** A signal that reads as aborted from its nth look on (a prune looks before each file and each chunk of deletes). */
export function abortedFromLook(n: number): AbortSignal {
  let looks = 0;
  return { get aborted() { return ++looks >= n; } } as unknown as AbortSignal;
}

/** What a section of the suite reads: the fixture and journal of the running test (replaced by reopen). */
export interface Suite {
  readonly fx: JournalFixture;
  readonly journal: Journal;
  /** Where the journal counts its commits and syncs. */
  readonly tally: JournalTally;
  /** Closes the journal and opens the same one again, as after a crash; `journal` is then the new one. */
  reopen(): Promise<void>;
}
