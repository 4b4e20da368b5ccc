import { beforeEach, describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../../src/errors.js';
import { type InboundJournal, type OperatorJournal, type ResultReads } from '../../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes } from '../../../src/journal/test-support.js';
import { type Connection, EP, LATER, collect, stateCode, itemRows, records, failedFile, finishedFile, abortedFromLook, type Suite } from './support.js';
import { testHooks } from '../../../src/journal/testing.js';

export function describeLifecycle(suite: Suite): void {
  describe('retention that keeps checksums', () => {
    it('drops rows, blocks, history and requests of old finished files but keeps the file row, so the content is still a duplicate', async () => {
      const { fileId: done, requests } = await finishedFile(suite.journal, 'done', { redriven: true });
      const { fileId: open } = await finishedFile(suite.journal, 'open', { uncertain: true });
      const { fileId: processing } = await suite.journal.claimFile(claimInput('busy.csv', 'busy'));
      await testHooks(suite.journal).recordBatch(processing, EP, [adjustment(0)]);
      const redriven = (await itemRows(suite.journal, done)).find((i) => i.seq === 2)!;
      expect(await itemRows(suite.journal, done)).toHaveLength(2);
      expect(await testHooks(suite.journal).itemHistory(redriven.itemId!)).toHaveLength(1);
      const before = await suite.journal.getFile(done);

      const report = await suite.journal.pruneJournal({ olderThan: LATER });
      expect(report).toMatchObject({ files: 1, keptOpen: 1, items: 2, blocks: 1, requests: 2 });
      // The file's item rows and its block are gone, its history too, and its requests.
      expect(await testHooks(suite.journal).itemsInRange(done, 0, 1_000_000)).toEqual([]);
      expect(await testHooks(suite.journal).itemHistory(redriven.itemId!)).toEqual([]);
      for (const id of requests) await expect(suite.journal.getRequest(id)).rejects.toThrow(/not in the journal/);
      expect((await itemRows(suite.journal, open)).length).toBeGreaterThan(0);
      expect((await testHooks(suite.journal).itemsInRange(processing, 0, 10)).map((i) => [i.seq, i.itemId, i.status])).toEqual([[0, null, 'pending']]);
      const after = await suite.journal.getFile(done);
      expect(after).toMatchObject({ checksum: before.checksum, status: 'failed', summary: before.summary });
      expect(after.prunedAt).not.toBeNull();
      expect(await collect(suite.journal.iterateLineOutcomes(done))).toEqual([]);

      expect(await suite.journal.claimFile(claimInput('done-again.csv', 'done'))).toMatchObject({ status: 'duplicate', fileId: done, previousStatus: 'failed' });
      const retry = await suite.journal.beginRedrive(done).catch((e: unknown) => e);
      expect(isWisbridgeError(retry, 'JOURNAL_STATE') && retry.message).toMatch(/pruned/);
      expect(await suite.journal.journalStats()).toMatchObject({ files: 3, prunedFiles: 1, oldestEntry: before.claimedAt, oldestDetail: (await suite.journal.getFile(open)).claimedAt });
      expect(await suite.journal.pruneJournal({ olderThan: LATER })).toMatchObject({ files: 0, keptOpen: 1 });
    });

    it('keeps files finished after the cut-off, and a rejected file that reached the service stays a duplicate', async () => {
      const { fileId: rejected, request } = await (async () => {
        const { fileId } = await suite.journal.claimFile(claimInput('half.csv', 'half'));
        const id = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0)], { sent: true });
        await suite.journal.completeRequest(id, okOutcomes([0]));
        await suite.journal.rejectFile(fileId, 'FILE_LAYOUT: broken quote on line 40');
        return { fileId, request: id };
      })();
      const cutoff = (await suite.journal.getFile(rejected)).finishedAt!;
      const { fileId: recent } = await finishedFile(suite.journal, 'recent');
      expect(await suite.journal.pruneJournal({ olderThan: cutoff })).toMatchObject({ files: 0 });
      expect(await suite.journal.pruneJournal({ olderThan: (await suite.journal.getFile(recent)).claimedAt })).toMatchObject({ files: 1 });
      expect(await suite.journal.getFile(rejected)).toMatchObject({ status: 'rejected', summary: { ok: 1 } });
      await expect(suite.journal.getRequest(request)).rejects.toThrow(/not in the journal/);
      expect(await suite.journal.claimFile(claimInput('half-again.csv', 'half'))).toMatchObject({ status: 'duplicate', fileId: rejected });
      expect((await testHooks(suite.journal).itemsInRange(recent, 0, 10)).length).toBeGreaterThan(0);
    });

    it('a prune cut short finishes its file first next time; old file events go too', async () => {
      const { fileId, requests: [request] } = await finishedFile(suite.journal, 'big');
      await suite.journal.recordFileEvent({ drop: 'partner-a', name: 'x.txt', kind: 'rejected', reason: 'no mapping' });
      // Cut short once the file's two item rows are gone (looks: before the file, before each of the two chunks of
      // items, the second finding none): before its block and its request.
      const cut = await suite.journal.pruneJournal({ olderThan: LATER, signal: abortedFromLook(4) });
      expect(cut).toMatchObject({ files: 0, items: 2, blocks: 0, requests: 0 });
      expect((await suite.journal.getFile(fileId)).prunedAt).not.toBeNull();
      expect(await itemRows(suite.journal, fileId)).toEqual([]);
      expect(await suite.journal.getRequest(request)).toMatchObject({ requestId: request });
      await suite.reopen();
      expect(await suite.journal.pruneJournal({ olderThan: LATER })).toMatchObject({ files: 0, items: 0, blocks: 1, requests: 1, events: 1 });
      await expect(suite.journal.getRequest(request)).rejects.toThrow(/not in the journal/);
      expect(await suite.journal.recentFileEvents(10)).toEqual([]);
      expect(await suite.journal.claimFile(claimInput('big-again.csv', 'big'))).toMatchObject({ status: 'duplicate', fileId });
    });

    it('counts what it holds: files, file events, exports, and its size and age', async () => {
      expect(await suite.journal.journalStats()).toMatchObject({ path: suite.journal.location, files: 0, prunedFiles: 0, oldestEntry: null, oldestDetail: null });
      const { fileId } = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      await suite.journal.recordFileEvent({ drop: 'partner-a', name: 'a.csv', kind: 'duplicate', originalFileId: fileId });
      await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'cs.csv', records: records(1) });
      expect([await suite.journal.countFiles(), await suite.journal.countFileEvents(), await suite.journal.countExports()]).toEqual([1, 1, 1]);
      const stats = await suite.journal.journalStats();
      expect(stats).toMatchObject({ files: 1, prunedFiles: 0, oldestEntry: (await suite.journal.getFile(fileId)).claimedAt, oldestDetail: (await suite.journal.getFile(fileId)).claimedAt });
      expect(stats.bytes).toBeGreaterThan(0);
      expect(stats.freeBytes).toBeGreaterThanOrEqual(0);
    });
  });

  describe('units of work', () => {
    let fileId: number;
    beforeEach(async () => {
      fileId = (await suite.journal.claimFile(claimInput('a.csv', 'abc'))).fileId;
    });

    it('shares one commit across calls with transaction() and rolls all back on error', async () => {
      await expect(suite.journal.transaction(async (tx) => {
        await tx.addItems(fileId, [adjustment(0)]);
        await tx.recordRequest(fileId, EP, [0, 1]);
      })).rejects.toThrow(/only 1 of the 2/);
      expect((await suite.journal.fileSummary(fileId)).total).toBe(0);
      const id = await suite.journal.transaction(async (tx) => {
        await tx.addItems(fileId, [adjustment(0)]);
        return tx.recordRequest(fileId, EP, [0]);
      });
      expect(await suite.journal.getRequest(id)).toMatchObject({ seqs: [0], status: 'pending', attempt: 1 });
    });

    it('a throw of the caller\'s own rolls back every call of the unit, across roles', async () => {
      const boom = new Error('the caller gave up');
      await expect(suite.journal.transaction(async (tx) => {
        const claimed = await tx.claimFile(claimInput('b.csv', 'def'));
        await testHooks(tx).recordBatch(claimed.fileId, EP, [adjustment(0)], { sent: true });
        await tx.recordResultName(fileId, 'a.result.csv');
        await tx.beginExport({ workType: 'customer-shipments', fileName: 'cs.csv', records: records(1) });
        await tx.setCursor('k', 'v');
        expect(await tx.nextFileSequence('customer-shipments')).toBe(1);
        // Inside, the unit reads its own writes.
        expect(await tx.countFiles()).toBe(2);
        expect(await tx.fileSummary(claimed.fileId)).toMatchObject({ total: 1, sent: 1 });
        throw boom;
      })).rejects.toBe(boom);
      expect(await suite.journal.countFiles()).toBe(1);
      expect((await suite.journal.claimFile(claimInput('b.csv', 'def'))).status).toBe('new');
      expect((await suite.journal.getFile(fileId)).resultName).toBeNull();
      expect(await suite.journal.countExports()).toBe(0);
      expect(await suite.journal.alreadyExported('customer-shipments', [1])).toEqual(new Set());
      expect(await suite.journal.getCursor('k')).toBeNull();
      expect(await suite.journal.nextFileSequence('customer-shipments')).toBe(1);
      expect(await suite.journal.backlog()).toMatchObject({ sentRequests: 0, sentItems: 0 });
    });

    it('commits every call of the unit together and resolves what fn returns', async () => {
      const result = await suite.journal.transaction(async (tx) => {
        const id = await testHooks(tx).recordBatch(fileId, EP, [0, 1].map((s) => adjustment(s)), { sent: true });
        await tx.completeRequest(id, okOutcomes([0, 1]));
        await tx.addItems(fileId, [{ seq: 2, lines: [4], status: 'skipped' }]);
        return { id, status: await tx.finishFile(fileId) };
      });
      expect(result.status).toBe('done');
      expect(await suite.journal.getRequest(result.id)).toMatchObject({ status: 'done' });
      expect(await suite.journal.getFile(fileId)).toMatchObject({ status: 'done', summary: { total: 3, ok: 2, skipped: 1 } });
    });

    it('a call that fails inside a unit fails the whole unit, even when the unit catches its error', async () => {
      await suite.journal.addItems(fileId, [adjustment(0), adjustment(1)]);
      const unit = suite.journal.transaction(async (tx) => {
        await testHooks(tx).recordBatch(fileId, EP, [adjustment(5)]);
        // Fails after recording its request row; caught, and the unit goes on.
        expect(await stateCode(tx.recordRequest(fileId, EP, [0, 2]))).toBe('JOURNAL_STATE');
        return tx.recordRequest(fileId, EP, [0, 1]);
      });
      expect(await stateCode(unit)).toBe('JOURNAL_STATE');
      expect(await suite.journal.backlog()).toMatchObject({ pendingRequests: 0, pendingItems: 0 });
      expect((await testHooks(suite.journal).itemsInRange(fileId, 0, 10)).map((i) => [i.seq, i.requestId])).toEqual([[0, null], [1, null]]);
      // A fresh unit of work commits: the failed one left nothing behind.
      const id = await suite.journal.transaction((tx) => tx.recordRequest(fileId, EP, [0, 1]));
      expect(await suite.journal.getRequest(id)).toMatchObject({ seqs: [0, 1], status: 'pending' });
    });

    it('counts the units of work it commits and how long their commits held the thread', async () => {
      const before = suite.tally.snapshot();
      await suite.journal.transaction((tx) => tx.addItems(fileId, [adjustment(0)]));
      await suite.journal.transaction(async (tx) => {
        await tx.transaction((inner) => inner.addItems(fileId, [adjustment(1)]));
        await tx.addItems(fileId, [adjustment(2)]);
      });
      await expect(suite.journal.transaction(async (tx) => {
        await tx.addItems(fileId, [adjustment(3)]);
        throw new Error('gives up');
      })).rejects.toThrow('gives up');
      const after = suite.tally.snapshot();
      // Two commits: a nested unit is part of its outer one's, and a unit rolled back commits nothing.
      expect(after.commits - before.commits).toBe(2);
      expect(after.commitSeconds).toBeGreaterThan(before.commitSeconds);
    });

    it('a unit of work nested in another joins it', async () => {
      await expect(suite.journal.transaction(async (tx) => {
        await tx.transaction(async (inner) => {
          await inner.addItems(fileId, [adjustment(0)]);
        });
        expect((await tx.fileSummary(fileId)).total).toBe(1);
        throw new Error('outer gives up');
      })).rejects.toThrow('outer gives up');
      expect((await suite.journal.fileSummary(fileId)).total).toBe(0);
    });

    it('units of work from one journal at once each commit whole', async () => {
      const units = Array.from({ length: 6 }, (_, i) => suite.journal.transaction(async (tx) => {
        const id = await testHooks(tx).recordBatch(fileId, EP, [adjustment(i * 2), adjustment(i * 2 + 1)], { sent: true });
        await tx.completeRequest(id, i === 3 ? [{ seq: 6, status: 'error', messages: ['x'] }, ...okOutcomes([7])] : okOutcomes([i * 2, i * 2 + 1]));
        if (i === 4) throw new Error('unit 4 fails');
        return id;
      }));
      const settled = await Promise.allSettled(units);
      expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ total: 10, ok: 9, error: 1, sent: 0 });
      expect((await suite.journal.resumeState(fileId)).classify(8)).toBe('unsent');
    });
  });

  describe('two connections at once', () => {
    it('both claim the same bytes at the same time: exactly one claim is new, the other resumes it', async () => {
      const other = await suite.fx.second();
      for (let round = 0; round < 5; round++) {
        const input = claimInput(`race-${round}.csv`, `race-${round}`);
        const claims = await Promise.all(round % 2 ? [suite.journal.claimFile(input), other.claimFile(input)] : [other.claimFile(input), suite.journal.claimFile(input)]);
        expect(claims.map((c) => c.status).sort(), `round ${round}`).toEqual(['new', 'resume']);
        expect(claims[0].fileId).toBe(claims[1].fileId);
      }
      expect(await suite.journal.countFiles()).toBe(5);
      const [file] = await suite.journal.listFiles({ limit: 1 });
      await other.finishFile(file.fileId);
      expect(await suite.journal.claimFile(claimInput('again.csv', file.checksum))).toMatchObject({ status: 'duplicate', fileId: file.fileId });
    });

    it('interleaved writes from both connections all land, and each sees the other\'s', async () => {
      const other = await suite.fx.second();
      const mine = (await suite.journal.claimFile(claimInput('mine.csv', 'mine'))).fileId;
      const theirs = (await other.claimFile(claimInput('theirs.csv', 'theirs'))).fileId;
      const write = async (connection: Connection, fileId: number) => {
        for (let from = 0; from < 100; from += 10) {
          const seqs = Array.from({ length: 10 }, (_, i) => from + i);
          const id = await testHooks(connection).recordBatch(fileId, EP, seqs.map((s) => adjustment(s)), { sent: true });
          await connection.completeRequest(id, okOutcomes(seqs));
          await connection.setCursor(`cursor-${fileId}`, String(from));
        }
      };
      const sequences = Array.from({ length: 12 }, (_, i) => (i % 2 ? suite.journal : other).nextFileSequence('customer-shipments'));
      const [numbers] = await Promise.all([Promise.all(sequences), write(suite.journal, mine), write(other, theirs)]);
      expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(await suite.journal.fileSummary(theirs)).toMatchObject({ total: 100, ok: 100 });
      expect(await other.fileSummary(mine)).toMatchObject({ total: 100, ok: 100 });
      expect([await other.getCursor(`cursor-${mine}`), await suite.journal.getCursor(`cursor-${theirs}`)]).toEqual(['90', '90']);
      expect(await other.finishFile(mine)).toBe('done');
      expect(await suite.journal.finishFile(theirs)).toBe('done');
      expect(await suite.journal.nextFileSequence('customer-shipments')).toBe(13);
    });

    it('both export the same records at the same time: one export holds them, the other is refused', async () => {
      const other = await suite.fx.second();
      for (let round = 0; round < 3; round++) {
        const ids = [round * 10 + 1, round * 10 + 2];
        const outcomes = await Promise.allSettled([
          suite.journal.beginExport({ workType: 'customer-shipments', fileName: `cs-${round}-a.csv`, records: records(...ids) }),
          other.beginExport({ workType: 'customer-shipments', fileName: `cs-${round}-b.csv`, records: records(...ids) }),
        ]);
        expect(outcomes.map((o) => o.status).sort(), `round ${round}`).toEqual(['fulfilled', 'rejected']);
        const refused = outcomes.find((o) => o.status === 'rejected')!;
        expect(isWisbridgeError(refused.reason, 'JOURNAL_STATE') && refused.reason.message).toMatch(/already exported/);
        const held = outcomes.find((o): o is PromiseFulfilledResult<number> => o.status === 'fulfilled')!.value;
        expect((await testHooks(suite.journal).exportRecords(held)).map((r) => r.id)).toEqual(ids);
      }
      expect(await suite.journal.countExports()).toBe(3);
    });

    it('both resolve the same uncertain row at the same time: one resolution holds, the other is refused', async () => {
      const other = await suite.fx.second();
      const fileId = await failedFile(suite.journal);
      const [uncertain] = await suite.journal.uncertainItems(fileId);
      const outcomes = await Promise.allSettled([
        suite.journal.resolveUncertain({ itemIds: [uncertain.itemId] }, { resolution: 'applied', note: 'move found', by: 'ops-a' }),
        other.resolveUncertain({ fileId, seqs: [4] }, { resolution: 'not-applied', note: 'no move', by: 'ops-b' }),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = outcomes.find((o) => o.status === 'rejected')!;
      expect(isWisbridgeError(refused.reason, 'JOURNAL_STATE') && refused.reason.message).toMatch(/not uncertain items/);
      const [item] = await testHooks(suite.journal).itemsInRange(fileId, 4, 4);
      const winner = outcomes[0].status === 'fulfilled' ? 'ops-a' : 'ops-b';
      expect(item).toMatchObject({ resolvedBy: winner, resolution: winner === 'ops-a' ? 'applied' : 'not-applied' });
      expect(await testHooks(suite.journal).itemHistory(item.itemId!)).toEqual([expect.objectContaining({ status: 'uncertain', hint: 'look for move of SKU-4' })]);
    });
  });

  describe('the contract', () => {
    it('hands each user only its part (checked by the compiler)', async () => {
      await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      const [{ fileId }] = await suite.journal.listFiles({ limit: 1 });
      const inbound: InboundJournal = suite.journal;
      const reads: ResultReads = suite.journal;
      const operator: OperatorJournal = suite.journal;
      // The narrowing is by type: at run time it is the same object, so the calls below exist but do not compile.
      // @ts-expect-error the operator side cannot record requests
      expect(operator.recordBatches).toBeDefined();
      // @ts-expect-error the inbound side cannot resolve uncertain rows
      expect(inbound.resolveUncertain).toBeDefined();
      expect(await reads.fileSummary(fileId)).toMatchObject({ fileId, total: 0 });
    });

    it('offers the calls only tests make through the test hooks, not on the journal or a unit of work', async () => {
      const testOnly = ['recordBatch', 'itemsInRange', 'itemHistory', 'exportRecords', 'resultOf', 'resultList'];
      const { fileId } = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      const inUnit = await suite.journal.transaction(async (tx) => {
        await testHooks(tx).recordBatch(fileId, EP, [adjustment(0)]);
        return testOnly.filter((name) => name in tx);
      });
      expect([...testOnly.filter((name) => name in suite.journal), ...inUnit, ...('listFiles' in suite.journal.console ? ['console.listFiles'] : [])]).toEqual([]);
      expect((await testHooks(suite.journal).itemsInRange(fileId, 0, 0)).map((item) => item.seq)).toEqual([0]);
    });

    it('says where it is without a secret, and can be reached again by its address', async () => {
      expect(suite.journal.location).toEqual(expect.any(String));
      expect(suite.journal.location).not.toMatch(/password|:[^/@]*@/);
      expect(['sqlite', 'postgres']).toContain(suite.journal.address.engine);
      expect(structuredClone(suite.journal.address)).toEqual(suite.journal.address);
      expect(suite.journal.schemaVersion).toBeGreaterThanOrEqual(1);
      await suite.journal.close();
      await suite.journal.close(); // idempotent
      await suite.reopen();
      expect(await suite.journal.countFiles()).toBe(0);
    });
  });
}
