import { afterEach, beforeEach, describe } from 'vitest';
import { describeClaims } from './behaviour/claims.js';
import { describeControlNumbers } from './behaviour/control-numbers.js';
import { describeExports } from './behaviour/exports.js';
import { describeLifecycle } from './behaviour/lifecycle.js';
import { describeOperators } from './behaviour/operators.js';
import { describeOutcomes } from './behaviour/outcomes.js';
import { describeOwners } from './behaviour/owners.js';
import { describeReceivedAcks } from './behaviour/received-acks.js';
import { describeSearch } from './behaviour/search.js';
import { describeX12Envelopes } from './behaviour/x12-envelopes.js';
import { ticking, type JournalFixture, type MakeJournal, type Suite } from './behaviour/support.js';
import { JournalTally, type Journal } from '../../src/journal/index.js';

export { CONNECTION_CALLS, type Connection, type JournalFixture, type MakeJournal } from './behaviour/support.js';

/*
 * The behaviour every journal engine must have, through the contract only (src/journal/contract.ts): written once,
 * run against SQLite (test/journal/sqlite.test.ts) and PostgreSQL (test/journal/postgres.test.ts). Nothing here
 * reads an engine's tables, ids beyond their order, error texts of the database, or the system clock: what the
 * journal stores is asserted through what the journal answers. Engine internals are each engine's own tests.
 */
export function describeJournal(engineName: string, makeJournal: MakeJournal): void {
  describe(`${engineName} journal behaviour`, () => {
    let fx: JournalFixture;
    let journal: Journal;
    let tally: JournalTally;
    const suite: Suite = {
      get fx() { return fx; },
      get journal() { return journal; },
      get tally() { return tally; },
      reopen: async () => {
        journal = await fx.reopen();
      },
    };

    beforeEach(async () => {
      tally = new JournalTally();
      fx = await makeJournal({ now: ticking(), tally });
      journal = fx.journal;
    });
    afterEach(async () => {
      await fx?.remove();
    });

    describeClaims(suite);
    describeOutcomes(suite);
    describeOperators(suite);
    describeSearch(suite);
    describeExports(suite);
    describeControlNumbers(suite);
    describeReceivedAcks(suite);
    describeX12Envelopes(suite);
    describeLifecycle(suite);
    describeOwners(suite);
  });
}
