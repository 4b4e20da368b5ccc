/**
 * A WorkerThread module for test/journal/sqlite.test.ts: a second connection to a journal, on a thread of its own (as
 * the bridge's worker threads open one), serving the journal's calls by name.
 */
import { openJournal, type JournalAddress } from '../../src/journal/index.js';
import { serveCalls, threadData } from '../../src/runtime/worker-serve.js';

const journal = await openJournal(threadData() as JournalAddress, { checkpointOnClose: false });
const calls = journal as unknown as Record<string, (...args: never[]) => unknown>;

serveCalls(new Proxy({}, {
  get: (_, op: string) => (op === 'close' ? () => journal.close() : calls[op]),
}));
