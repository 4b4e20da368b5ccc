import { openJournal, type Journal } from '../../src/journal/index.js';
import { tempDir } from '../../src/journal/test-support.js';
import { WorkerThread } from '../../src/runtime/worker-thread.js';
import { CONNECTION_CALLS, describeJournal, type Connection } from './behaviour.js';

/**
 * The behaviour suite on the SQLite engine: a journal file of its own per test. A second connection runs on a thread
 * of its own, as the bridge's worker threads open one: two connections on one thread would each hold the thread while
 * waiting for the other's write lock.
 */
describeJournal('sqlite', async (options) => {
  const tmp = tempDir();
  const open = () => openJournal(tmp.path, options);
  let journal: Journal = await open();
  const instances: Journal[] = [];
  const threads: WorkerThread[] = [];
  return {
    get journal() {
      return journal;
    },
    reopen: async () => {
      await journal.close();
      return (journal = await open());
    },
    second: async () => {
      const thread = new WorkerThread(new URL('./connection-worker', import.meta.url), journal.address, 'second journal connection', 'JOURNAL');
      threads.push(thread);
      await thread.ready;
      const calls = Object.fromEntries(CONNECTION_CALLS.map((op) => [op, (...args: unknown[]) => thread.call(op, args)]));
      return { ...calls, close: () => thread.close() } as unknown as Connection;
    },
    asInstance: async (instance, lease) => {
      const leased = await openJournal(tmp.path, { ...options, instance, leaseMs: lease.leaseMs, leaseClockOffsetMs: lease.clockOffsetMs });
      instances.push(leased);
      return leased;
    },
    remove: async () => {
      for (const leased of instances) await leased.close();
      for (const thread of threads) await thread.close();
      await journal.close();
      tmp.remove();
    },
  };
});
