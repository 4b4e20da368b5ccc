import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { openJournal, packBatch, packOkOutcomes, type InstanceInfo, type Journal } from '../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes } from '../../src/journal/test-support.js';
import { silentLogger } from '../../src/log.js';
import { applyUnit } from '../../src/pipeline/completions.js';
import { startDelayProxy, throughProxy, type DelayProxy } from '../support/delay-proxy.js';
import { freshDatabase, type FreshDatabase } from '../support/postgres.js';

/*
 * What a commit of a file's flow waits for on a distant PostgreSQL: the journal's connections pipeline, so the
 * statements of a unit that do not wait for one another's answers go out together. Counted as round trips at a proxy
 * 25 ms each way, which keeps what the client sends at once apart from what it sends after an answer.
 */

const EP = 'inventory.adjustments';
const A: InstanceInfo = { id: 'node-1-101-aaaaaa', host: 'node-1', pid: 101, version: '9.1.0' };
const B: InstanceInfo = { id: 'node-2-202-bbbbbb', host: 'node-2', pid: 202, version: '9.1.0' };
const server = inject('postgres');

/** The turns of the link: client to server after the server last spoke (or first). */
function roundTrips(traffic: DelayProxy['traffic']): number {
  let trips = 0;
  let last: 'up' | 'down' = 'down';
  for (const { direction } of traffic) {
    if (direction === 'up' && last === 'down') trips++;
    last = direction;
  }
  return trips;
}

const request = (seqs: readonly number[]) => {
  const items = seqs.map((s) => adjustment(s));
  return { endpoint: EP, packed: packBatch(EP, items), bodies: JSON.stringify(items.map((i) => i.body)) };
};

describe('PostgreSQL journal 25 ms away: round trips of a commit', () => {
  let db: FreshDatabase;
  let proxy: DelayProxy;
  let journal: Journal | undefined;
  beforeAll(async () => {
    db = await freshDatabase();
    proxy = await startDelayProxy({ host: server.host, port: server.port }, 25);
  });
  afterEach(async () => {
    await journal?.close();
    journal = undefined;
  });
  afterAll(async () => {
    await proxy?.close();
    await db?.drop();
  });

  const distant = (instance?: InstanceInfo) =>
    openJournal({ url: throughProxy(db.url, server, proxy), password: db.password }, instance && { instance, leaseMs: 60_000 });

  /** Round trips of what `call` sends, counted from nothing. */
  async function tripsOf<T>(call: () => Promise<T>): Promise<{ trips: number; result: T }> {
    proxy.traffic.length = 0;
    const result = await call();
    return { trips: roundTrips(proxy.traffic), result };
  }

  // A claim: BEGIN with the claim's turn and its two reads, the insert (with leases the take beside it), COMMIT. A
  // commit: BEGIN with the answers' UPDATE and the requests' statement (with leases the file's row locked in the same
  // trip), COMMIT; 3 when an answer carries errors. A finish: BEGIN with the status and the counts, the UPDATE, COMMIT.
  for (const [mode, instance] of [['one bridge', undefined], ['an instance with leases', A]] as const) {
    it(`${mode}: a claim costs 3 round trips, a commit of answers and next requests 2 (3 with errors), a finish 3`, async () => {
      journal = await distant(instance);
      const j = journal;
      const claim = await tripsOf(() => j.claimFile(claimInput(`${mode}.csv`, mode)));
      expect([claim.result.status, claim.trips]).toEqual(['new', 3]);
      const { fileId } = claim.result;
      if (instance) {
        // The lease went with the insert: another instance finds the file busy, and this one's writes are fenced by it.
        const other = await openJournal({ url: db.url, password: db.password }, { instance: B, leaseMs: 60_000 });
        try {
          expect(await other.claimFile(claimInput(`${mode}.csv`, mode))).toMatchObject({ status: 'busy', fileId, owner: A.id });
        } finally {
          await other.close();
        }
      }
      const [sent] = await j.recordBatches(fileId, [request([0, 1])], { sent: true });

      const unit = { fileId, stores: [{ requestId: sent, endpoint: EP, packed: packOkOutcomes(okOutcomes([0, 1]))! }], extra: [], requests: [request([2, 3]), request([4])] };
      const commit = await tripsOf(() => applyUnit(j, silentLogger, unit));
      expect(commit.trips).toBe(2);
      expect((await j.getRequest(sent)).status).toBe('done');
      const next = commit.result.requestIds;
      expect(await Promise.all(next.map(async (id) => (await j.getRequest(id)).status))).toEqual(['sent', 'sent']);

      // Answers with an error (its row copied out with its body): the reads with the next requests' statement, then
      // the rows with the request's, then COMMIT.
      const withError = { fileId, extra: [], requests: [request([5])], stores: [{ requestId: next[0], endpoint: EP, outcomes: [
        { seq: 2, status: 'ok' as const }, { seq: 3, status: 'error' as const, messages: ['not enough stock'] }] }] };
      const mixed = await tripsOf(() => applyUnit(j, silentLogger, withError));
      expect(mixed.trips).toBe(3);
      expect((await j.getRequest(next[0])).status).toBe('failed');
      expect((await j.requestItems(next[0])).map((i) => [i.seq, i.status, i.messages, i.body])).toEqual([
        [2, 'ok', [], JSON.stringify(adjustment(2).body)], [3, 'error', ['not enough stock'], JSON.stringify(adjustment(3).body)]]);

      await j.completeRequests([next[1], ...mixed.result.requestIds].map((requestId, i) => ({ requestId, outcomes: packOkOutcomes(okOutcomes(i === 0 ? [4] : [5]))! })));
      const finish = await tripsOf(() => j.finishFile(fileId));
      expect([finish.result, finish.trips]).toEqual(['failed', 3]);
      // The claim's reads still tell a duplicate.
      expect((await j.claimFile(claimInput(`${mode}-again.csv`, mode))).status).toBe('duplicate');
    });
  }

  it('a unit refused after its statements went out together leaves nothing of them', async () => {
    journal = await distant();
    const { fileId } = await journal.claimFile(claimInput('refused.csv', 'refused'));
    const [sent] = await journal.recordBatches(fileId, [request([0, 1])], { sent: true });
    // A wrong count refuses the answers after the next requests' statement has run in the same transaction.
    const unit = { fileId, stores: [{ requestId: sent, endpoint: EP, packed: packOkOutcomes(okOutcomes([0]))! }], extra: [], requests: [request([2, 3])] };
    await expect(applyUnit(journal, silentLogger, unit)).rejects.toThrow(`request ${sent} has 2 items but 1 outcomes were given`);
    expect((await journal.getRequest(sent)).status).toBe('sent');
    expect(await journal.fileSummary(fileId)).toMatchObject({ total: 2, sent: 2 });
  });
});
