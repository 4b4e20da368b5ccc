import { openJournal, type Journal } from '../../src/journal/index.js';
import { freshDatabase } from '../support/postgres.js';
import { describeJournal, type Connection } from './behaviour.js';

/**
 * The behaviour suite on the PostgreSQL engine, against the run's real server (test/global-setup.ts): an empty
 * database of its own per test, dropped afterwards. A second connection is a second pool, as a second bridge has.
 */
describeJournal('postgres', async (options) => {
  const db = await freshDatabase();
  const open = () => openJournal(db.config, options);
  let journal: Journal = await open();
  const instances: Journal[] = [];
  const others: Connection[] = [];
  return {
    get journal() {
      return journal;
    },
    reopen: async () => {
      await journal.close();
      return (journal = await open());
    },
    second: async () => {
      const other = await open();
      others.push(other);
      return other;
    },
    asInstance: async (instance, lease) => {
      const leased = await openJournal(db.config, { ...options, instance, leaseMs: lease.leaseMs, leaseClockOffsetMs: lease.clockOffsetMs });
      instances.push(leased);
      return leased;
    },
    remove: async () => {
      for (const leased of instances) await leased.close();
      for (const other of others) await other.close();
      await journal.close();
      await db.drop();
    },
  };
});
