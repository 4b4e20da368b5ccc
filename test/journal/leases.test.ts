import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { isWisbridgeError, WisbridgeError } from '../../src/errors.js';
import { composeJournal } from '../../src/journal/compose.js';
import {
  openJournal, packBatch, packOkOutcomes, type InstanceInfo, type Journal, type JournalContract, type JournalTarget,
} from '../../src/journal/index.js';
import { openPostgres } from '../../src/journal/postgres/index.js';
import type { SqlPort, SqlValue } from '../../src/journal/core/sql.js';
import { openSqlite } from '../../src/journal/sqlite/engine.js';
import { adjustment, claimInput, okOutcomes, tempDir } from '../../src/journal/test-support.js';
import { asAdmin, freshDatabase } from '../support/postgres.js';
import { testHooks } from '../../src/journal/testing.js';

/*
 * Several instances on one journal (src/journal/leases/leases.ts), the same cases on both engines: a SQLite file (journal
 * objects of one process; one of them registered holds the file's lock: SQLite serves one instance) and a
 * PostgreSQL database of its own per test. Leases expire by the database's clock, which the test's journals read moved
 * by the time the test let pass (openJournal's leaseClockOffsetMs): a lease of SHORT expires when the test moves that
 * clock past it, at once; a lease that must stay alive gets a minute.
 */

const EP = 'inventory.adjustments';
const SHORT = 2_000;
const LONG = 60_000;
const A: InstanceInfo = { id: 'node-1-101-aaaaaa', host: 'node-1', pid: 101, version: '9.1.0' };
const B: InstanceInfo = { id: 'node-2-202-bbbbbb', host: 'node-2', pid: 202, version: '9.1.0' };

/** Resolves once a statement on the database of `target` waits for a row lock (pg_stat_activity): a positive event. */
async function untilWaitingOnLock(target: JournalTarget): Promise<void> {
  const name = new URL((target as { url: string }).url).pathname.slice(1);
  for (let tries = 0; tries < 500; tries++) {
    const { rows } = await asAdmin(inject('postgres'), `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = '${name}' AND wait_event_type = 'Lock'`);
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no statement waited for a lock on ${name}`);
}
/** How far the test moved its journals' lease clock (the database's clock stays the base). */
let passed = 0;
/** Time passes for every journal of the test, longer than SHORT by a margin by default: a short lease has expired. */
const expire = (ms = SHORT * 3) => {
  passed += ms;
};

/** The code of the WisbridgeError a call rejects with ('other' for another error, undefined when it resolves). */
async function code(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
  } catch (error) {
    return isWisbridgeError(error) ? error.code : 'other';
  }
  return undefined;
}

interface Place {
  target: JournalTarget;
  /** The engine under a journal, for counting its statements (and, with `rows`, changing what a query read). */
  compose(count: (sql: string) => void, instance?: InstanceInfo, rows?: RowEdit): Promise<JournalContract>;
  remove(): Promise<void>;
}

const ENGINES: Record<'sqlite' | 'postgres', () => Promise<Place>> = {
  sqlite: async () => {
    const tmp = tempDir();
    return {
      target: tmp.path,
      compose: async (count, instance, rows) => {
        const engine = openSqlite(tmp.path);
        return composeJournal({ ...engine, port: counting(engine.port, count, rows) }, undefined, instance && { instance, leaseMs: LONG });
      },
      remove: async () => tmp.remove(),
    };
  },
  postgres: async () => {
    const db = await freshDatabase();
    return {
      target: db.config,
      compose: async (count, instance, rows) => {
        const engine = await openPostgres(db.config);
        return composeJournal({ ...engine, address: { engine: 'postgres', connection: db.config }, port: counting(engine.port, count, rows) },
          undefined, instance && { instance, leaseMs: LONG });
      },
      remove: () => db.drop(),
    };
  },
};

/** Rows a query read, as the test wants them seen (a read made at another moment). */
type RowEdit = (sql: string, rows: Record<string, unknown>[]) => Record<string, unknown>[];

/** The port, calling `count` with every statement it runs (units of work included, each port wrapped once). */
function counting(port: SqlPort, count: (sql: string) => void, edit: RowEdit = (_, rows) => rows): SqlPort {
  const wrapped = new WeakMap<SqlPort, SqlPort>();
  const wrap = (p: SqlPort): SqlPort => {
    let w = wrapped.get(p);
    if (!w) {
      w = {
        dialect: p.dialect,
        get: (sql, params) => (count(sql), p.get(sql, params)),
        all: async <T>(sql: string, params?: readonly SqlValue[]) => (count(sql), edit(sql, await p.all(sql, params)) as T[]),
        values: (sql, params) => (count(sql), p.values(sql, params)),
        run: (sql, params) => (count(sql), p.run(sql, params)),
        tx: (fn) => p.tx((t) => fn(wrap(t))),
      };
      wrapped.set(p, w);
    }
    return w;
  };
  return wrap(port);
}

for (const [engine, place] of Object.entries(ENGINES)) {
  describe(`leases on ${engine}`, () => {
    let where: Place;
    const opened: JournalContract[] = [];
    beforeEach(async () => {
      where = await place();
      passed = 0;
    });
    afterEach(async () => {
      for (const journal of opened.splice(0)) await journal.close();
      await where.remove();
    });

    async function journal(instance?: InstanceInfo, leaseMs?: number): Promise<Journal> {
      const opened_ = await openJournal(where.target, { instance, leaseMs, leaseClockOffsetMs: () => passed });
      opened.push(opened_);
      return opened_;
    }

    async function claim(journal: Journal, checksum = 'c1') {
      return journal.claimFile(claimInput(`${checksum}.csv`, checksum));
    }

    /** A file worked on by `owner`: seqs 0-2 finished, 3-4 sent (outcome unknown), 5-6 recorded but not sent. */
    async function workedFile(owner: Journal) {
      const { fileId } = await claim(owner);
      const done = await testHooks(owner).recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
      await owner.completeRequest(done, okOutcomes([0, 1, 2]));
      const sent = await testHooks(owner).recordBatch(fileId, EP, [3, 4].map((s) => adjustment(s)), { sent: true });
      const unsent = await testHooks(owner).recordBatch(fileId, EP, [5, 6].map((s) => adjustment(s)));
      return { fileId, sent, unsent };
    }

    /** Two instances on long leases, a file finished by A and a re-drop of it (duplicate `reason`) to claim. */
    async function finishedAndRedropped(reason: string) {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      const { fileId } = await claim(a);
      await a.finishFile(fileId);
      const redrop = { drop: 'partner-a', name: 'again.csv', originalFileId: fileId, reason, resultName: 'again.result.csv' };
      return { a, b, fileId, redrop };
    }

    it('without an instance takes no lease and checks none', async () => {
      const plain = await journal();
      expect(plain.instance).toBeNull();
      const { fileId } = await claim(plain);
      expect((await plain.getFile(fileId)).lease).toBeNull();
      expect(await code(plain.registerInstance())).toBe('JOURNAL_STATE');
      expect(await code(plain.heartbeat(LONG))).toBe('JOURNAL_STATE');
      expect(await code(plain.claimTick('exports', '2026-03-01T08:00:00.000Z', LONG))).toBe('JOURNAL_STATE');
      expect(await plain.listInstances()).toEqual([]);
      // A tool writes to a file an instance holds: nothing is checked.
      const a = await journal(A, LONG);
      const leased = await claim(a, 'c2');
      await testHooks(plain).recordBatch(leased.fileId, EP, [adjustment(0)]);
      expect((await plain.resumeState(leased.fileId)).maxSeq).toBe(0);
    });

    it('a claim leases the file to its instance; another finds it busy and leaves its requests alone', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      expect(a.instance).toEqual(A);
      const first = await claim(a);
      expect(first.status).toBe('new');
      const { fileId } = first;
      expect((await a.getFile(fileId)).lease).toMatchObject({ owner: A.id, token: 1, until: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
      const pending = await testHooks(a).recordBatch(fileId, EP, [adjustment(0)]);

      expect(await claim(b)).toEqual({ status: 'busy', fileId, owner: A.id });
      expect((await a.getRequest(pending)).status).toBe('pending');
      expect((await a.getFile(fileId)).lease).toMatchObject({ owner: A.id, token: 1 });
      // Its own instance claims it again (the pipeline met it again after an error): resumed, same token.
      expect(await claim(a)).toMatchObject({ status: 'resume', fileId });
      expect((await a.getFile(fileId)).lease).toMatchObject({ owner: A.id, token: 1 });
    });

    if (engine === 'postgres') {
      it('two instances claiming the same files at once: one owner each', async () => {
        const a = await journal(A, LONG);
        const b = await journal(B, LONG);
        const checksums = ['k1', 'k2', 'k3', 'k4', 'k5'];
        const results = await Promise.all(checksums.flatMap((c) => [claim(a, c), claim(b, c)]));
        for (let i = 0; i < checksums.length; i++) {
          const [ofA, ofB] = [results[2 * i]!, results[2 * i + 1]!];
          const statuses = [ofA.status, ofB.status].sort();
          expect(statuses).toEqual(['busy', 'new']);
          const winner = ofA.status === 'new' ? A : B;
          expect(ofA.status === 'busy' ? ofA : ofB).toEqual({ status: 'busy', fileId: ofA.fileId, owner: winner.id });
          expect((await a.getFile(ofA.fileId)).lease).toMatchObject({ owner: winner.id, token: 1 });
        }
        expect(await a.countFiles()).toBe(checksums.length);
      });
    }

    if (engine === 'postgres') {
      // Found by the chaos test (test/chaos/): a claim whose lease check ran just after the owner's finish committed
      // took the finished file (`status <> 'processing'` is free) and answered resume; the owner's last writes (result
      // name, disposition) were refused. The claim now locks the processing file first and finds it finished.
      it('a claim while the owner finishes the file waits for the finish: a duplicate, and the owner keeps its lease for its last writes', async () => {
        const a = await journal(A, LONG);
        const b = await journal(B, LONG);
        const { fileId } = await claim(a);
        let claimed: ReturnType<typeof claim> | undefined;
        await a.transaction(async (tx) => {
          await tx.finishFile(fileId);
          // The other instance claims the same bytes before the finish is committed (a test may hold the unit of work).
          claimed = claim(b);
          await untilWaitingOnLock(where.target);
        });
        expect((await claimed!).status).toBe('duplicate');
        await a.recordResultName(fileId, 'c1.result.csv');
        await a.recordDisposition(fileId, 'archive/c1.csv');
        expect((await a.getFile(fileId)).lease).toMatchObject({ owner: A.id, token: 1 });
      });
    }

    it('a claim without an instance (a one-shot command) leaves a file a live instance holds to it, and resumes one whose lease was given up', async () => {
      const a = await journal(A, LONG);
      const oneShot = await journal();
      const { fileId, unsent } = await workedFile(a);
      expect(await claim(oneShot)).toEqual({ status: 'busy', fileId, owner: A.id });
      // Left alone: the owner's request recorded but not sent is not abandoned, and the owner writes on.
      expect((await a.getRequest(unsent)).status).toBe('pending');
      expect((await a.getFile(fileId)).lease).toMatchObject({ owner: A.id, token: 1 });
      await a.releaseFile(fileId);
      expect(await claim(oneShot)).toMatchObject({ status: 'resume', fileId });
      expect((await oneShot.getRequest(unsent)).status).toBe('abandoned');
    });

    it('an expired lease is taken over with a higher token; the old owner\'s writes are refused and change nothing', async () => {
      const a = await journal(A, SHORT);
      const b = await journal(B, LONG);
      const { fileId, sent, unsent } = await workedFile(a);
      expire();
      expect(await claim(b)).toMatchObject({ status: 'resume', fileId });
      expect((await b.getFile(fileId)).lease).toMatchObject({ owner: B.id, token: 2 });
      // Recorded but never sent by the old owner: abandoned, its items sent again by the new one.
      expect((await b.getRequest(unsent)).status).toBe('abandoned');

      const rows = async () => ({
        file: await b.getFile(fileId),
        summary: await b.fileSummary(fileId),
        items: await testHooks(b).itemsInRange(fileId, 0, 1000),
        sent: await b.getRequest(sent),
        unsent: await b.getRequest(unsent),
        counts: (await b.resumeState(fileId)).counts,
      });
      const before = await rows();
      const stale: Array<[string, () => Promise<unknown>]> = [
        ['addItems', () => a.addItems(fileId, [{ seq: 20, lines: [30], status: 'error', messages: ['bad row'] }])],
        ['recordBatch', () => testHooks(a).recordBatch(fileId, EP, [adjustment(7)], { sent: true })],
        ['recordBatches', () => a.recordBatches(fileId, [{ endpoint: EP, packed: packBatch(EP, [adjustment(7)]), bodies: JSON.stringify([adjustment(7).body]) }], { sent: true })],
        ['recordRequest', () => a.recordRequest(fileId, EP, [5, 6])],
        ['markSent', () => a.markSent(unsent)],
        ['completeRequest', () => a.completeRequest(sent, okOutcomes([3, 4]))],
        ['completeRequest, packed', () => a.completeRequest(sent, packOkOutcomes(okOutcomes([3, 4]))!)],
        ['completeRequests', () => a.completeRequests([{ requestId: sent, outcomes: packOkOutcomes(okOutcomes([3, 4]))! }])],
        ['releaseRequest', () => a.releaseRequest(sent)],
        ['finishFile', () => a.finishFile(fileId)],
        ['rejectFile', () => a.rejectFile(fileId, 'stale')],
        ['recordResultName', () => a.recordResultName(fileId, 'c1.csv.result.csv')],
        ['recordDisposition', () => a.recordDisposition(fileId, 'archive/c1.csv')],
        ['a unit of work', () => a.transaction(async (tx) => {
          await tx.completeRequest(sent, okOutcomes([3, 4]));
          return testHooks(tx).recordBatch(fileId, EP, [adjustment(7)], { sent: true });
        })],
      ];
      for (const [call, write] of stale) expect([call, await code(write())]).toEqual([call, 'LEASE_LOST']);
      expect(await rows()).toEqual(before);

      // The new owner carries on as after a crash.
      expect(await b.completeRequest(sent, okOutcomes([3, 4]))).toBe('done');
      const again = await testHooks(b).recordBatch(fileId, EP, [5, 6].map((s) => adjustment(s)), { sent: true });
      await b.completeRequest(again, okOutcomes([5, 6]));
      expect(await b.finishFile(fileId)).toBe('done');
      await b.recordResultName(fileId, 'c1.csv.result.csv');
      await b.recordDisposition(fileId, 'archive/c1.csv');
      expect(await b.getFile(fileId)).toMatchObject({ status: 'done', resultName: 'c1.csv.result.csv', disposedTo: 'archive/c1.csv', lease: { owner: B.id, token: 2 } });
    });

    it('a takeover resumes from the journal: finished, sent and unsent items as the old owner left them', async () => {
      const a = await journal(A, SHORT);
      const b = await journal(B, LONG);
      const { fileId, sent } = await workedFile(a);
      expire();
      await claim(b);
      const state = await b.resumeState(fileId);
      expect(state.counts).toEqual({ finished: 3, sent: 2, unsent: 0 });
      expect(state.sentRequests.map((r) => [r.requestId, r.seqs])).toEqual([[sent, [3, 4]]]);
      expect([0, 1, 2, 3, 4, 5, 6, 7].map((seq) => state.classify(seq)))
        .toEqual(['finished', 'finished', 'finished', 'sent', 'sent', 'unsent', 'unsent', 'unsent']);
      expect(state.maxSeq).toBe(4);
    });

    it('a second connection of the owner\'s instance (a worker thread) writes under its lease until it is taken over', async () => {
      const a = await journal(A, SHORT);
      const worker = await journal(A, SHORT);
      const b = await journal(B, LONG);
      const { fileId } = await claim(a);
      const first = await testHooks(worker).recordBatch(fileId, EP, [adjustment(0)], { sent: true });
      await worker.completeRequest(first, okOutcomes([0]));
      expire();
      await claim(b);
      expect(await code(testHooks(worker).recordBatch(fileId, EP, [adjustment(1)], { sent: true }))).toBe('LEASE_LOST');
      expect(await code(testHooks(a).recordBatch(fileId, EP, [adjustment(1)], { sent: true }))).toBe('LEASE_LOST');
      expect((await b.resumeState(fileId)).counts).toEqual({ finished: 1, sent: 0, unsent: 0 });
    });

    it('a heartbeat keeps the leases of its files alive', async () => {
      const a = await journal(A, SHORT);
      const b = await journal(B, LONG);
      const kept = (await claim(a, 'kept')).fileId;
      expect(await a.heartbeat(LONG)).toEqual({ lost: [] });
      const unrenewed = (await claim(a, 'unrenewed')).fileId;
      expire();
      expect(await claim(b, 'kept')).toEqual({ status: 'busy', fileId: kept, owner: A.id });
      expect(await claim(b, 'unrenewed')).toMatchObject({ status: 'resume', fileId: unrenewed });
      // The file kept is still A's to write.
      await testHooks(a).recordBatch(kept, EP, [adjustment(0)]);
    });

    it('a heartbeat reports the files taken over from it, once, and renews the others', async () => {
      const a = await journal(A, SHORT);
      const b = await journal(B, LONG);
      const lost = (await claim(a, 'lost')).fileId;
      const kept = (await claim(a, 'kept')).fileId;
      expire();
      await claim(b, 'lost');
      expect(await a.heartbeat(LONG)).toEqual({ lost: [lost] });
      expect(await a.heartbeat(LONG)).toEqual({ lost: [] });
      expect(await claim(b, 'kept')).toEqual({ status: 'busy', fileId: kept, owner: A.id });
      expect(await code(testHooks(a).recordBatch(lost, EP, [adjustment(0)]))).toBe('LEASE_LOST');
      await testHooks(a).recordBatch(kept, EP, [adjustment(0)]);
    });

    it('a heartbeat that read a file\'s row before its own claim of the file committed does not report it lost; a higher token does', async () => {
      // The row as another owner left it before the claim (token - 1), or as another owner's later claim made it (token + 1).
      let seen: 0 | -1 | 1 = 0;
      const a = await where.compose(() => undefined, A, (sql, rows) => (seen === 0 || !sql.includes('disposed_to FROM files') ? rows
        : rows.map((row) => ({ ...row, lease_owner: B.id, lease_token: Number(row.lease_token) + seen }))));
      opened.push(a);
      const { fileId } = await a.claimFile(claimInput('c1.csv', 'c1'));
      seen = -1;
      expect(await a.heartbeat(LONG)).toEqual({ lost: [] });
      seen = 0;
      await testHooks(a).recordBatch(fileId, EP, [adjustment(0)]);
      seen = 1;
      expect(await a.heartbeat(LONG)).toEqual({ lost: [fileId] });
    });

    it('an instance registers, is listed with the files and ticks it holds, and its retirement frees them at once', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      await a.registerInstance();
      const { fileId } = await claim(a);
      await claim(a, 'c2');
      expect(await a.claimTick('exports', '2026-03-01T08:00:00.000Z', LONG)).toEqual({ won: true, token: 1 });
      const [listed] = await b.listInstances();
      expect(listed).toEqual({ ...A, startedAt: expect.any(String), heartbeatAt: expect.any(String), stoppedAt: null, files: 2, jobs: 1 });
      expect(listed!.heartbeatAt >= listed!.startedAt).toBe(true);
      expect(await b.claimTick('exports', '2026-03-01T08:00:00.000Z', LONG)).toEqual({ won: false, owner: A.id, done: false });

      await a.retireInstance();
      expect(await b.listInstances()).toEqual([{ ...listed, stoppedAt: expect.any(String), files: 0, jobs: 0 }]);
      expect(await claim(b)).toMatchObject({ status: 'resume', fileId });
      expect((await b.getFile(fileId)).lease).toMatchObject({ owner: B.id, token: 2 });
      expect(await b.claimTick('exports', '2026-03-01T08:00:00.000Z', LONG)).toEqual({ won: true, token: 2 });
      expect(await code(a.finishTick('exports', '2026-03-01T08:00:00.000Z', 1))).toBe('LEASE_LOST');
    });

    it('a tick runs once across instances: one claim wins, a finished tick is done for everyone', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      const tick = '2026-03-01T08:00:00.000Z';
      expect(await a.claimTick('exports', tick, LONG)).toEqual({ won: true, token: 1 });
      expect(await b.claimTick('exports', tick, LONG)).toEqual({ won: false, owner: A.id, done: false });
      // The owner asking again (a retry within the tick) keeps it; another job or tick is another claim.
      expect(await a.claimTick('exports', tick, LONG)).toEqual({ won: true, token: 1 });
      expect(await b.claimTick('retention', tick, LONG)).toEqual({ won: true, token: 1 });
      expect(await b.claimTick('exports', '2026-03-01T08:05:00.000Z', LONG)).toEqual({ won: true, token: 1 });
      expect(await code(b.finishTick('exports', tick, 1))).toBe('LEASE_LOST');
      await a.finishTick('exports', tick, 1);
      await a.finishTick('exports', tick, 1);
      expect(await b.claimTick('exports', tick, LONG)).toEqual({ won: false, owner: A.id, done: true });
      expect(await a.claimTick('exports', tick, LONG)).toEqual({ won: false, owner: A.id, done: true });
    });

    it('an expired tick is taken over with token + 1, and the old token can no longer finish it', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      const tick = '2026-03-01T08:00:00.000Z';
      expect(await a.claimTick('exports', tick, SHORT)).toEqual({ won: true, token: 1 });
      expire();
      expect(await b.claimTick('exports', tick, LONG)).toEqual({ won: true, token: 2 });
      expect(await code(a.finishTick('exports', tick, 1))).toBe('LEASE_LOST');
      await b.finishTick('exports', tick, 2);
      expect(await a.claimTick('exports', tick, LONG)).toEqual({ won: false, owner: B.id, done: true });
    });

    it('a heartbeat renews the ticks its instance holds', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      const tick = '2026-03-01T08:00:00.000Z';
      await a.claimTick('exports', tick, SHORT);
      await a.heartbeat(LONG);
      expire();
      expect(await b.claimTick('exports', tick, LONG)).toEqual({ won: false, owner: A.id, done: false });
    });

    it('a heartbeat reports a tick taken over from it, once, and no longer renews it; a finished or given-up tick is not renewed either', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      const [taken, finished, given, kept] = ['08:00', '08:05', '08:10', '08:15'].map((t) => `2026-03-01T${t}:00.000Z`) as [string, string, string, string];
      for (const tick of [taken, finished, given, kept]) expect(await a.claimTick('exports', tick, SHORT)).toEqual({ won: true, token: 1 });
      expire();
      expect(await b.claimTick('exports', taken, LONG)).toEqual({ won: true, token: 2 });
      await a.finishTick('exports', finished, 1);
      await a.releaseTick('exports', given, 1);
      expect(await a.heartbeat(SHORT)).toEqual({ lost: [], lostTicks: [{ job: 'exports', tick: taken }] });
      expect(await a.heartbeat(SHORT)).toEqual({ lost: [] });
      // The tick given up is free at once; the one still held was renewed, the one taken over stays the taker's.
      expect(await b.claimTick('exports', given, LONG)).toEqual({ won: true, token: 2 });
      expect(await b.claimTick('exports', kept, LONG)).toEqual({ won: false, owner: A.id, done: false });
      expect(await b.claimTick('exports', taken, LONG)).toEqual({ won: true, token: 2 });
      expect(await b.claimTick('exports', finished, LONG)).toEqual({ won: false, owner: A.id, done: true });
      // A finish of a tick lost is refused, and leaves it unfinished: it is done only when its new owner ran it.
      expect(await code(a.finishTick('exports', taken, 1))).toBe('LEASE_LOST');
      expect(await a.claimTick('exports', taken, LONG)).toEqual({ won: false, owner: B.id, done: false });
    });

    it('a tick whose finish did not reach the journal stays held (renewed) until a finish does', async () => {
      let refuse = false;
      // On the database's clock (no offset): the expiry below is the other instance's.
      const a = await where.compose((sql) => {
        if (refuse && sql.includes('SET done_at')) throw new Error('the journal cannot be reached');
      }, A);
      opened.push(a);
      const b = await journal(B, LONG);
      const tick = '2026-03-01T08:00:00.000Z';
      expect(await a.claimTick('exports', tick, LONG)).toEqual({ won: true, token: 1 });
      refuse = true;
      await expect(a.finishTick('exports', tick, 1)).rejects.toThrow('the journal cannot be reached');
      expire(LONG * 2);
      expect(await a.heartbeat(LONG * 3)).toEqual({ lost: [] });
      expect(await b.claimTick('exports', tick, LONG)).toEqual({ won: false, owner: A.id, done: false });
      refuse = false;
      await a.finishTick('exports', tick, 1);
      expect(await b.claimTick('exports', tick, LONG)).toEqual({ won: false, owner: A.id, done: true });
    });

    if (engine === 'postgres') {
      it('a tick claimed by several instances at once has one winner', async () => {
        const a = await journal(A, LONG);
        const b = await journal(B, LONG);
        const ticks = ['t1', 't2', 't3', 't4', 't5'].map((t) => `2026-03-01T08:0${t[1]}:00.000Z`);
        const claims = await Promise.all(ticks.flatMap((tick) => [a.claimTick('exports', tick, LONG), b.claimTick('exports', tick, LONG)]));
        for (let i = 0; i < ticks.length; i++) {
          expect(claims.slice(2 * i, 2 * i + 2).filter((c) => c.won)).toEqual([{ won: true, token: 1 }]);
        }
      });

      it('several instances register on PostgreSQL', async () => {
        const a = await journal(A, LONG);
        const b = await journal(B, LONG);
        await a.registerInstance();
        await b.registerInstance();
        expect((await a.listInstances()).map((i) => i.id).sort()).toEqual([A.id, B.id]);
      });
    }

    if (engine === 'sqlite') {
      it('SQLite refuses a second instance while the first one\'s journal is open, however long it was silent; takes one once it closed', async () => {
        const a = await journal(A, LONG);
        await a.registerInstance();
        const b = await journal(B, LONG);
        const refusal = await b.registerInstance().then(() => undefined, (error: unknown) => error);
        expect(refusal).toBeInstanceOf(WisbridgeError);
        expect((refusal as WisbridgeError).code).toBe('JOURNAL');
        expect((refusal as WisbridgeError).message).toMatch(new RegExp(
          '^another wisbridge instance \\(node-1, pid 101, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\) uses this SQLite journal: '
          + 'a SQLite journal serves one instance; stop it, or put the journal on PostgreSQL to run several \\(docs/operations\\.md\\)$'));
        expect((await b.listInstances()).map((i) => i.id)).toEqual([A.id]);
        // Another connection of this process with A's host and pid is a second instance all the same.
        expect(await code((await journal({ ...A, id: 'node-1-101-cccccc' }, LONG)).registerInstance())).toBe('JOURNAL');
        // A retired but still open (draining, closing): the journal stays its process's until it closes.
        await a.retireInstance();
        expect(await code(b.registerInstance())).toBe('JOURNAL');
        await a.close();
        await b.registerInstance();

        // B falls silent (a process paused for many leases): it lives, so C is refused all the same.
        const C: InstanceInfo = { id: 'node-3-303-dddddd', host: 'node-3', pid: 303, version: '9.1.0' };
        expire(100 * LONG);
        const refused = await (await journal(C, SHORT)).registerInstance().then(() => undefined, (error: unknown) => error);
        expect((refused as WisbridgeError).message).toMatch(/^another process \(it holds \S+\.lock\) uses this SQLite journal: /);
        expect((await b.listInstances()).filter((i) => i.stoppedAt === null).map((i) => i.id)).toEqual([B.id]);
      });
    }

    it('a finished file\'s last steps stay its owner\'s while it heartbeats; once it fell silent and its lease ran out, another instance takes them over with token + 1', async () => {
      const a = await journal(A, SHORT);
      // Instance B judges A live for its own lease: a minute (patient) or a few milliseconds (quick).
      const patient = await journal(B, LONG);
      const quick = await journal(B, SHORT);
      await a.registerInstance();
      const { fileId } = await claim(a);
      expect(await a.finishFile(fileId)).toBe('done');
      await a.recordResultName(fileId, 'c1.csv.result.csv');
      expect(await a.heartbeat(SHORT)).toEqual({ lost: [] });
      // A heartbeats: it is writing the result file or moving the file right now.
      expect(await patient.takeFinishedFile(fileId)).toEqual({ taken: false, owner: A.id });
      expect((await a.getFile(fileId)).lease).toMatchObject({ owner: A.id, token: 1 });

      // A dies (no retirement): once its heartbeat and its lease are older than B's lease, B finishes the file.
      expire();
      expect(await quick.takeFinishedFile(fileId)).toEqual({ taken: true });
      expect((await quick.getFile(fileId)).lease).toMatchObject({ owner: B.id, token: 2 });
      expect(await quick.takeFinishedFile(fileId)).toEqual({ taken: true });
      expect((await quick.getFile(fileId)).lease).toMatchObject({ owner: B.id, token: 2 });
      // A wakes: its heartbeat says the file is lost (it has not left the inbox yet), its writes are refused.
      expect(await a.heartbeat(SHORT)).toEqual({ lost: [fileId] });
      expect(await code(a.recordDisposition(fileId, 'archive/c1.csv'))).toBe('LEASE_LOST');
      expect(await a.takeFinishedFile(fileId)).toEqual({ taken: false, owner: B.id });
      await quick.recordResultName(fileId, 'c1.csv.result.csv');
      await quick.recordDisposition(fileId, 'archive/c1.csv');
      expect(await quick.getFile(fileId)).toMatchObject({ resultName: 'c1.csv.result.csv', disposedTo: 'archive/c1.csv', lease: { owner: B.id, token: 2 } });
    });

    it('a finished file\'s last steps: a live lease keeps them its owner\'s, a retired owner gives them up at once', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, SHORT);
      const { fileId } = await claim(a);
      await a.finishFile(fileId);
      // A never registered (a test's journal): its lease of a minute is what keeps the file.
      expire();
      expect(await b.takeFinishedFile(fileId)).toEqual({ taken: false, owner: A.id });
      await a.registerInstance();
      await a.retireInstance();
      expect(await b.takeFinishedFile(fileId)).toEqual({ taken: true });
      expect((await b.getFile(fileId)).lease).toMatchObject({ owner: B.id, token: 2 });
      expect(await code(a.recordResultName(fileId, 'c1.csv.result.csv'))).toBe('LEASE_LOST');
      // Without an instance nothing is leased.
      expect(await code((await journal()).takeFinishedFile(fileId))).toBe('JOURNAL_STATE');
    });

    if (engine === 'sqlite') {
      it('SQLite: an instance whose journal closed without retiring (killed) is no rival, even when its pid runs: the next one registers at once and takes its files', async () => {
        const here = hostname();
        // Its pid is the test runner's parent, which runs: a process that died and whose pid was given to another.
        const killed: InstanceInfo = { id: `${here}-${process.ppid}-eeeeee`, host: here, pid: process.ppid, version: '9.1.0' };
        const before = await journal(killed, LONG);
        await before.registerInstance();
        const { fileId } = await claim(before);
        const finished = (await claim(before, 'c2')).fileId;
        await before.finishFile(finished);
        await before.close();

        const next = await journal({ id: `${here}-${process.pid}-ffffff`, host: here, pid: process.pid, version: '9.1.0' }, LONG);
        await next.registerInstance();
        expect((await next.listInstances()).find((i) => i.id === killed.id)).toMatchObject({ stoppedAt: expect.any(String), files: 0 });
        expect(await claim(next)).toMatchObject({ status: 'resume', fileId });
        expect((await next.getFile(fileId)).lease).toMatchObject({ owner: next.instance!.id, token: 2 });
        expect(await next.takeFinishedFile(finished)).toEqual({ taken: true });
      });
    }

    if (engine === 'postgres') {
      it('a rolling upgrade: instances of two versions, started together on a fresh database, share it and are listed with their versions', async () => {
        // Migrated once, under a lock (the count of migrations: postgres-engine.test.ts, "run once when two bridges start together").
        const [older, newer] = await Promise.all([journal({ ...A, version: '9.1.0' }, LONG), journal({ ...B, version: '9.2.0' }, LONG)]);
        expect(older.schemaVersion).toBe(newer.schemaVersion);
        await Promise.all([older.registerInstance(), newer.registerInstance()]);
        expect((await older.listInstances()).map((i) => [i.id, i.version]).sort())
          .toEqual([[A.id, '9.1.0'], [B.id, '9.2.0']]);
        const { fileId } = await claim(newer);
        expect(await claim(older)).toEqual({ status: 'busy', fileId, owner: B.id });
      });
    }

    it('a re-drive takes the lease: another instance can neither re-drive nor resolve the file while it works on it', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      const { fileId } = await claim(a);
      const id = await testHooks(a).recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
      await a.completeRequest(id, [{ seq: 0, status: 'ok' }, { seq: 1, status: 'error', messages: ['no'] }, { seq: 2, status: 'uncertain', hint: 'check' }]);
      expect(await a.finishFile(fileId)).toBe('failed');
      // Finished, not yet moved: its result file and move are its owner's still, and so is the file.
      expect(await code(b.beginRedrive(fileId))).toBe('LEASE_LOST');
      expect(await code(b.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'applied', note: 'seen', by: 'op' }))).toBe('LEASE_LOST');
      await a.recordDisposition(fileId, 'archive/a.csv');
      expect((await b.getFile(fileId)).disposedTo).toBe('archive/a.csv');

      expect(await b.beginRedrive(fileId)).toBe(2);
      expect((await b.getFile(fileId)).lease).toMatchObject({ owner: B.id, token: 2 });
      expect(await code(a.beginRedrive(fileId))).toBe('LEASE_LOST');
      expect(await code(a.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'applied', note: 'seen', by: 'op' }))).toBe('LEASE_LOST');
      expect((await b.uncertainItems(fileId)).map((item) => item.seq)).toEqual([2]);
      expect(await code(a.recordRequest(fileId, EP, [1], { attempt: 2 }))).toBe('LEASE_LOST');
      const again = await b.recordRequest(fileId, EP, [1], { attempt: 2 });
      await b.markSent(again);
      await b.completeRequest(again, okOutcomes([1]));
      expect(await b.finishFile(fileId)).toBe('failed');
      // Finished: anyone may resolve it now.
      expect(await a.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'applied', note: 'seen', by: 'op' }))
        .toEqual({ resolved: 1, files: [{ fileId, status: 'done' }] });
    });

    it('a re-drive a crash stopped is taken up once its lease ran out (a new token); without an instance, only once nobody holds it', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, SHORT);
      const c = await journal({ ...A, id: 'node-3-303-cccccc', host: 'node-3', pid: 303 }, LONG);
      const oneShot = await journal();
      const { fileId } = await claim(a);
      const id = await testHooks(a).recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
      await a.completeRequest(id, [{ seq: 0, status: 'ok' }, { seq: 1, status: 'error', messages: ['no'] }, { seq: 2, status: 'uncertain', hint: 'check' }]);
      expect(await a.finishFile(fileId)).toBe('failed');
      await a.recordDisposition(fileId, 'archive/a.csv');

      // b's re-drive marks a request sent, then b dies: the file stays processing, its request sent.
      expect(await b.beginRedrive(fileId)).toBe(2);
      const inFlight = await b.recordRequest(fileId, EP, [1], { attempt: 2 });
      await b.markSent(inFlight);
      expect(await code(oneShot.beginRedrive(fileId))).toBe('LEASE_LOST');
      expect(await code(oneShot.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'applied', note: 'seen', by: 'op' }))).toBe('LEASE_LOST');
      expect(await code(c.beginRedrive(fileId))).toBe('LEASE_LOST');
      expect(await c.redrivesToTakeUp()).toEqual([]);
      expire();
      // Listed to take up once b's lease ran out (the watchers never meet the file: it left the inbox).
      expect(await c.redrivesToTakeUp()).toEqual([{ fileId, name: expect.any(String), owner: B.id }]);
      // Taken up with the same attempt and a new token; what b left in flight is there to reconcile.
      expect(await c.beginRedrive(fileId)).toBe(2);
      expect(await c.redrivesToTakeUp()).toEqual([]);
      expect((await c.getFile(fileId)).lease).toMatchObject({ owner: c.instance!.id, token: 3 });
      expect((await c.resumeState(fileId)).sentRequests.map((r) => r.requestId)).toEqual([inFlight]);
      expect(await code(b.completeRequest(inFlight, okOutcomes([1])))).toBe('LEASE_LOST');
      await c.completeRequest(inFlight, okOutcomes([1]));
      expect(await c.finishFile(fileId)).toBe('failed');

      // A one-shot tool's re-drive of a file taken up and given up again: taken once nobody holds it.
      expect(await c.resolveUncertain({ fileId, seqs: [2] }, { resolution: 'not-applied', note: 'not there', by: 'op' }))
        .toEqual({ resolved: 1, files: [{ fileId, status: 'failed' }] });
      expect(await c.beginRedrive(fileId)).toBe(3);
      expect(await code(oneShot.beginRedrive(fileId))).toBe('LEASE_LOST');
      await c.releaseFile(fileId);
      expect(await oneShot.beginRedrive(fileId)).toBe(3);
    });

    it('fencing costs a unit of work at most one statement, and a journal without an instance none', async () => {
      const statements: string[] = [];
      const count = (sql: string) => void statements.push(sql);
      const unitOfWork = async (j: JournalContract, checksum: string) => {
        const { fileId } = await j.claimFile(claimInput(`${checksum}.csv`, checksum));
        const r1 = await testHooks(j).recordBatch(fileId, EP, [adjustment(0)], { sent: true });
        const r2 = await testHooks(j).recordBatch(fileId, EP, [adjustment(1)], { sent: true });
        statements.length = 0;
        // As the pipeline commits: outcomes of earlier requests with the next request, in one unit of work.
        await j.transaction(async (tx) => {
          await tx.completeRequest(r1, okOutcomes([0]));
          await tx.completeRequest(r2, okOutcomes([1]));
          await testHooks(tx).recordBatch(fileId, EP, [adjustment(2)], { sent: true });
        });
        return [...statements];
      };
      const plain = await where.compose(count);
      opened.push(plain);
      const leased = await where.compose(count, A);
      opened.push(leased);
      const without = await unitOfWork(plain, 'p1');
      const withLease = await unitOfWork(leased, 'p2');
      expect(without.filter((s) => /lease|FOR UPDATE/.test(s))).toEqual([]);
      expect(withLease.length - without.length).toBeLessThanOrEqual(1);
      expect(withLease.filter((s) => /lease/.test(s))).toHaveLength(1);
    });

    it('its owner records a finished file\'s result name and move in one statement each, fenced by its token', async () => {
      const statements: string[] = [];
      const leased = await where.compose((sql) => void statements.push(sql), A);
      opened.push(leased);
      const { fileId } = await leased.claimFile(claimInput('names.csv', 'names'));
      await leased.finishFile(fileId);
      statements.length = 0;
      await leased.recordResultName(fileId, 'names.csv.result.csv');
      await leased.recordDisposition(fileId, 'archive/names.csv');
      expect(statements).toHaveLength(2);
      expect(statements.every((s) => /^UPDATE files SET .* AND lease_owner = \? AND lease_token = \?$/.test(s))).toBe(true);
      expect(await leased.getFile(fileId)).toMatchObject({ resultName: 'names.csv.result.csv', disposedTo: 'archive/names.csv', lease: { owner: A.id, token: 1 } });
    });

    it('a run that ended unfinished gives its file up: no heartbeat renews it, it is listed to take over and another instance takes it at once', async () => {
      const a = await journal(A, LONG);
      const b = await journal(B, LONG);
      const given = (await claim(a, 'given')).fileId;
      const kept = (await claim(a, 'kept')).fileId;
      expect(await b.filesToTakeOver('partner-a')).toEqual([]);
      await a.releaseFile(given);
      expect(await a.heartbeat(LONG)).toEqual({ lost: [] });
      expect((await a.getFile(given)).lease).toMatchObject({ owner: A.id, token: 1, until: null });
      expect(await b.filesToTakeOver('partner-a')).toEqual([{ fileId: given, name: 'given.csv', owner: A.id }]);
      expect(await b.filesToTakeOver('another-drop')).toEqual([]);
      expect(await claim(b, 'kept')).toEqual({ status: 'busy', fileId: kept, owner: A.id });
      expect(await claim(b, 'given')).toMatchObject({ status: 'resume', fileId: given });
      expect((await b.getFile(given)).lease).toMatchObject({ owner: B.id, token: 2 });
      expect(await b.filesToTakeOver('partner-a')).toEqual([]);
      // An expired lease is listed too; a journal without an instance gives nothing up.
      const c = await journal({ ...A, id: 'node-1-101-short' }, SHORT);
      const expiring = (await claim(c, 'expiring')).fileId;
      expire();
      expect(await b.filesToTakeOver('partner-a')).toEqual([{ fileId: expiring, name: 'expiring.csv', owner: 'node-1-101-short' }]);
      await (await journal()).releaseFile(kept);
      expect(await claim(b, 'kept')).toEqual({ status: 'busy', fileId: kept, owner: A.id });
    });

    it('a re-drop is handled by one instance: the first to record its duplicate event; busy for another while that handler\'s lease lives, finished there under the same names once it ran out', async () => {
      const { a, b, fileId, redrop } = await finishedAndRedropped('duplicate of c1.csv');
      const first = await a.claimDuplicate(redrop);
      expect(first).toMatchObject({ status: 'new', event: { kind: 'duplicate', name: 'again.csv', originalFileId: fileId, resultName: 'again.result.csv', disposedTo: null } });
      const { eventId } = (first as { event: { eventId: number } }).event;
      expect(await b.claimDuplicate({ ...redrop, resultName: 'again.2.result.csv' })).toEqual({ status: 'busy', eventId, owner: A.id });
      // A's heartbeat renews the event's lease; its last one (a short lease) runs out: A died before the move.
      await a.heartbeat(SHORT);
      expire();
      const taken = await b.claimDuplicate({ ...redrop, resultName: 'again.2.result.csv' });
      expect(taken).toMatchObject({ status: 'resume', event: { eventId, resultName: 'again.result.csv', disposedTo: null } });
      expect(await a.claimDuplicate(redrop)).toEqual({ status: 'busy', eventId, owner: B.id });
      // A wakes up and records its move: refused, nothing written (B's handling is the one that counts).
      await expect(a.recordEventDisposition(eventId, 'archive/again.a.csv')).rejects.toMatchObject({ code: 'LEASE_LOST' });
      expect((await a.fileEventsNamed('again.csv'))[0]).toMatchObject({ eventId, disposedTo: null });
      await b.recordEventDisposition(eventId, 'archive/again.csv');
      expect((await a.fileEventsNamed('again.csv'))[0]).toMatchObject({ eventId, disposedTo: 'archive/again.csv' });
      await b.releaseFileEvent(eventId);
      // Moved: the next re-drop of that name is an event of its own.
      const next = await a.claimDuplicate(redrop);
      expect(next.status).toBe('new');
      expect((next as { event: { eventId: number } }).event.eventId).not.toBe(eventId);
      expect(await a.countFileEvents()).toBe(2);
    });

    it('a duplicate\'s handling given up before the move is taken over at once; one never acted on is removed; without an instance an unfinished one is resumed', async () => {
      const { a, b, redrop } = await finishedAndRedropped('duplicate');
      const { eventId } = ((await a.claimDuplicate(redrop)) as { event: { eventId: number } }).event;
      await a.releaseFileEvent(eventId);
      expect(await b.claimDuplicate(redrop)).toMatchObject({ status: 'resume', event: { eventId } });
      await b.releaseFileEvent(eventId, { unused: true });
      expect(await b.countFileEvents()).toBe(0);
      const plain = await journal();
      const recorded = await plain.claimDuplicate(redrop);
      expect(recorded).toMatchObject({ status: 'new' });
      expect(await plain.claimDuplicate({ ...redrop, resultName: 'other.result.csv' })).toEqual({ ...recorded, status: 'resume' });
    });

    if (engine === 'postgres') {
      it('a re-drop claimed by several instances at once: one handles it, the others find it busy', async () => {
        const a = await journal(A, LONG);
        const b = await journal(B, LONG);
        const { fileId } = await claim(a);
        await a.finishFile(fileId);
        const names = ['r1.csv', 'r2.csv', 'r3.csv', 'r4.csv', 'r5.csv'];
        const claims = await Promise.all(names.flatMap((name) => [a, b].map((j) =>
          j.claimDuplicate({ drop: 'partner-a', name, originalFileId: fileId, reason: 'duplicate', resultName: `${name}.result.csv` }))));
        for (let i = 0; i < names.length; i++) expect(claims.slice(2 * i, 2 * i + 2).map((c) => c.status).sort()).toEqual(['busy', 'new']);
        expect(await a.countFileEvents()).toBe(names.length);
      });
    }
  });
}
