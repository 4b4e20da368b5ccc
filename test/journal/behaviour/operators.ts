import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../../src/errors.js';

import { adjustment, claimInput, okOutcomes } from '../../../src/journal/test-support.js';
import { EP, collect, records, failedFile, type Suite } from './support.js';
import { testHooks } from '../../../src/journal/testing.js';

export function describeOperators(suite: Suite): void {
  describe('operators: listing and inspecting', () => {
    it('lists files newest first, filtered by status and time', async () => {
      const failed = await failedFile(suite.journal, 'one');
      const { fileId: processing } = await suite.journal.claimFile(claimInput('two.csv', 'two'));
      const all = await suite.journal.listFiles({ limit: 10 });
      expect(all.map((f) => f.fileId)).toEqual([processing, failed]);
      expect(all[1]).toMatchObject({ name: 'one.csv', drop: 'partner-a', status: 'failed', summary: { ok: 2, error: 3, uncertain: 1 } });
      expect((await suite.journal.listFiles({ status: 'failed', limit: 10 })).map((f) => f.fileId)).toEqual([failed]);
      expect((await suite.journal.listFiles({ since: all[0].claimedAt, limit: 10 })).map((f) => f.fileId)).toEqual([processing]);
      expect(await suite.journal.listFiles({ limit: 1 })).toHaveLength(1);
    });

    it('lists failed and uncertain items, across files when no file is given', async () => {
      const a = await failedFile(suite.journal, 'a');
      const b = await failedFile(suite.journal, 'b');
      expect((await suite.journal.failedItems(a)).map((i) => [i.seq, i.messages[0]])).toEqual([
        [2, 'unknown product'], [3, 'warehouse closed'], [5, 'no SKU'],
      ]);
      expect((await suite.journal.uncertainItems(a)).map((i) => [i.seq, i.hint])).toEqual([[4, 'look for move of SKU-4']]);
      expect((await suite.journal.uncertainItems()).map((i) => i.fileId)).toEqual([a, b]);
      expect(await suite.journal.uncertainItems(undefined, { limit: 1 })).toHaveLength(1);
    });

    it('reports backlog gauges for metrics', async () => {
      await failedFile(suite.journal);
      const { fileId } = await suite.journal.claimFile(claimInput('live.csv', 'live'));
      const sent = await testHooks(suite.journal).recordBatch(fileId, EP, [0, 1, 2].map((s) => adjustment(s)));
      await suite.journal.markSent(sent);
      await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(3)]);
      expect(await suite.journal.backlog()).toMatchObject({
        processingFiles: 1, pendingRequests: 1, pendingItems: 1, sentRequests: 1, sentItems: 3, uncertainItems: 1, errorItems: 3,
        exportsUnwritten: 0, acknowledgementsPending: 0, awaitingConfirmation: 0,
      });
    });

    it('finds the latest file of a name, and the latest events of a name never claimed', async () => {
      expect(await suite.journal.latestFileNamed('orders.csv')).toBeUndefined();
      const first = await suite.journal.claimFile(claimInput('orders.csv', 'one'));
      await suite.journal.finishFile(first.fileId);
      const second = await suite.journal.claimFile({ ...claimInput('orders.csv', 'two'), drop: 'partner-b' });
      expect(await suite.journal.latestFileNamed('orders.csv')).toMatchObject({ fileId: second.fileId, drop: 'partner-b', checksum: 'two', status: 'processing' });
      await suite.journal.recordFileEvent({ drop: 'partner-a', name: 'x.txt', kind: 'rejected', reason: 'no mapping' });
      await suite.journal.recordFileEvent({ drop: 'partner-a', name: 'x.txt', kind: 'rejected', reason: 'still no mapping' });
      expect((await suite.journal.fileEventsNamed('x.txt')).map((e) => e.reason)).toEqual(['still no mapping']);
      expect((await suite.journal.fileEventsNamed('x.txt', 5)).map((e) => e.reason)).toEqual(['still no mapping', 'no mapping']);
      expect((await suite.journal.recentFileEvents(1)).map((e) => e.reason)).toEqual(['still no mapping']);
      expect(await suite.journal.fileEventsNamed('orders.csv')).toEqual([]);
    });
  });

  describe('operators: retry (re-drive)', () => {
    it('re-drives only the failed items, as a new attempt, keeping their history', async () => {
      const fileId = await failedFile(suite.journal);
      const retry = await collect(suite.journal.retryable(fileId));
      expect(retry.map((i) => i.seq)).toEqual([2, 3]);
      expect(JSON.parse(retry[0].body ?? '')).toMatchObject({ reference: 'ADJ-2' });
      const attempt = await suite.journal.beginRedrive(fileId);
      expect(attempt).toBe(2);
      expect(await suite.journal.getFile(fileId)).toMatchObject({ status: 'processing', redrives: 1 });
      // ok, uncertain and mapping-rejected items can never be part of a re-drive.
      for (const seqs of [[0], [1, 2], [4], [5]]) {
        await expect(suite.journal.recordRequest(fileId, EP, seqs, { attempt })).rejects.toThrow(/failed .* items/);
      }
      const id = await suite.journal.recordRequest(fileId, EP, [2, 3], { attempt });
      expect(await suite.journal.getRequest(id)).toMatchObject({ attempt: 2, seqs: [2, 3] });
      await suite.journal.markSent(id);
      await suite.journal.completeRequest(id, [...okOutcomes([2]), { seq: 3, status: 'error', messages: ['still closed'] }]);
      const [item2] = await suite.journal.requestItems(id);
      expect(item2).toMatchObject({ status: 'ok', attempt: 2, result: { move_id: 1002 } });
      expect(await testHooks(suite.journal).itemHistory(item2.itemId!)).toEqual([
        expect.objectContaining({ attempt: 1, status: 'error', messages: ['unknown product'] }),
      ]);
      // The ok items of the first attempt were not touched.
      expect([...await testHooks(suite.journal).itemsInRange(fileId, 0, 1)].map((i) => [i.status, i.attempt, i.result])).toEqual([
        ['ok', 1, { move_id: 1000 }], ['ok', 1, { move_id: 1001 }],
      ]);
      expect(await suite.journal.finishFile(fileId)).toBe('failed');
      expect((await collect(suite.journal.retryable(fileId))).map((i) => i.seq)).toEqual([3]);
      expect(await suite.journal.beginRedrive(fileId)).toBe(3);
    });

    it('continues an interrupted re-drive with the same attempt and picks up its unsent items', async () => {
      const fileId = await failedFile(suite.journal);
      const attempt = await suite.journal.beginRedrive(fileId);
      await suite.journal.recordRequest(fileId, EP, [2, 3], { attempt });
      // crash before markSent; the retry command runs again
      await suite.reopen();
      expect((await suite.journal.claimFile(claimInput('abc.csv', 'abc'))).status).toBe('resume');
      expect(await suite.journal.beginRedrive(fileId)).toBe(attempt);
      expect((await collect(suite.journal.retryable(fileId))).map((i) => [i.seq, i.status])).toEqual([[2, 'pending'], [3, 'pending']]);
      const id = await suite.journal.recordRequest(fileId, EP, [2, 3], { attempt });
      await suite.journal.markSent(id);
      await suite.journal.completeRequest(id, okOutcomes([2, 3]));
      expect(await suite.journal.fileSummary(fileId)).toMatchObject({ ok: 4, error: 1, uncertain: 1, pending: 0 });
    });

    it('refuses to re-drive a file that is done or still on its first pass', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('x.csv', 'x'));
      await expect(suite.journal.beginRedrive(fileId)).rejects.toThrow(/still being processed/);
      await suite.journal.finishFile(fileId);
      await expect(suite.journal.beginRedrive(fileId)).rejects.toThrow(/nothing to retry/);
    });
  });

  describe('uncertain rows and their resolution', () => {
    it('marks uncertain items applied (ok) by file and seq, and refreshes the file\'s status', async () => {
      const fileId = await failedFile(suite.journal);
      const attempt = await suite.journal.beginRedrive(fileId);
      const id = await suite.journal.recordRequest(fileId, EP, [2, 3], { attempt });
      await suite.journal.markSent(id);
      await suite.journal.completeRequest(id, okOutcomes([2, 3]));
      await suite.journal.finishFile(fileId);
      expect((await suite.journal.getFile(fileId)).status).toBe('failed');
      const result = await suite.journal.resolveUncertain({ fileId, seqs: [4] }, { resolution: 'applied', note: 'move 88 found', by: 'ops@3pl' });
      // Mapping-rejected row 5 keeps the file failed; the uncertain one is now ok.
      expect(result).toEqual({ resolved: 1, files: [{ fileId, status: 'failed' }] });
      const [item] = [...await testHooks(suite.journal).itemsInRange(fileId, 4, 4)];
      expect(item).toMatchObject({ status: 'ok', resolution: 'applied', resolutionNote: 'move 88 found', resolvedBy: 'ops@3pl' });
      // The note replaces the uncertain message and hint (the result file shows it); the history keeps them.
      expect(item).toMatchObject({ messages: ['applied: move 88 found'], hint: null });
      expect(item.resolvedAt).toMatch(/^2026-03-01T/);
      expect(await testHooks(suite.journal).itemHistory(item.itemId!)).toEqual([expect.objectContaining({ status: 'uncertain', hint: 'look for move of SKU-4' })]);
      expect(await suite.journal.uncertainItems(fileId)).toEqual([]);
    });

    it('marks uncertain items not applied (error) by item id, so retry can re-drive them', async () => {
      const fileId = await failedFile(suite.journal);
      const [uncertain] = await suite.journal.uncertainItems(fileId);
      await suite.journal.resolveUncertain({ itemIds: [uncertain.itemId] }, { resolution: 'not-applied', note: 'no move found', by: 'ops' });
      expect((await collect(suite.journal.retryable(fileId))).map((i) => i.seq)).toEqual([2, 3, 4]);
      expect((await suite.journal.failedItems(fileId)).find((i) => i.seq === 4)?.messages).toEqual(['not applied: no move found']);
    });

    it('refuses items that are not uncertain, all or nothing', async () => {
      const fileId = await failedFile(suite.journal);
      const [uncertain] = await suite.journal.uncertainItems(fileId);
      let code: string | undefined;
      try {
        await suite.journal.resolveUncertain({ fileId, seqs: [4, 0] }, { resolution: 'applied', note: '', by: 'ops' });
      } catch (error) {
        code = isWisbridgeError(error) ? error.code : undefined;
      }
      expect(code).toBe('JOURNAL_STATE');
      expect((await suite.journal.uncertainItems(fileId)).map((i) => i.itemId)).toEqual([uncertain.itemId]);
      await expect(suite.journal.resolveUncertain({ itemIds: [999_999] }, { resolution: 'applied', note: '', by: 'ops' }))
        .rejects.toThrow(/not uncertain items: 999999/);
    });

    it('refreshes a file\'s status to done when the last open item is resolved', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('u.csv', 'u'));
      const id = await testHooks(suite.journal).recordBatch(fileId, EP, [adjustment(0), adjustment(1)]);
      await suite.journal.markSent(id);
      await suite.journal.completeRequest(id, [...okOutcomes([0]), { seq: 1, status: 'uncertain', hint: 'check' }]);
      expect(await suite.journal.finishFile(fileId)).toBe('failed');
      const result = await suite.journal.resolveUncertain({ fileId, seqs: [1] }, { resolution: 'applied', note: 'seen', by: 'ops' });
      expect(result.files).toEqual([{ fileId, status: 'done' }]);
      expect((await suite.journal.getFile(fileId)).summary).toMatchObject({ ok: 2, uncertain: 0 });
    });

    it('resolves uncertain rows of several files at once and refreshes the status of each, still uncertain after a restart until then', async () => {
      const a = await failedFile(suite.journal, 'a');
      const { fileId: b } = await suite.journal.claimFile(claimInput('b.csv', 'b'));
      const id = await testHooks(suite.journal).recordBatch(b, EP, [adjustment(0)], { sent: true });
      await suite.journal.completeRequest(id, [{ seq: 0, status: 'uncertain', hint: 'check SKU-0' }]);
      await suite.journal.finishFile(b);
      await suite.reopen();
      const uncertain = await suite.journal.uncertainItems();
      expect(uncertain.map((i) => [i.fileId, i.seq, i.hint])).toEqual([[a, 4, 'look for move of SKU-4'], [b, 0, 'check SKU-0']]);
      const result = await suite.journal.resolveUncertain({ itemIds: uncertain.map((i) => i.itemId) }, { resolution: 'applied', note: 'checked', by: 'ops' });
      expect(result).toEqual({ resolved: 2, files: [{ fileId: a, status: 'failed' }, { fileId: b, status: 'done' }] });
      expect(await suite.journal.getFile(b)).toMatchObject({ status: 'done', summary: { total: 1, ok: 1, uncertain: 0 } });
      expect(await suite.journal.backlog()).toMatchObject({ uncertainItems: 0, errorItems: 3 });
      expect((await collect(suite.journal.iterateLineOutcomes(b))).map((o) => [o.status, o.resolution, o.messages])).toEqual([['ok', 'applied', ['applied: checked']]]);
    });
  });

  describe('operator actions and console pages', () => {
    it('prepares the console queries once, on the journal clock', async () => {
      expect(suite.journal.console).toBe(suite.journal.console);
      await suite.journal.console.recordAction({ action: 'download', fileId: 1, target: 'a.csv', actor: 'test', via: 'console', detail: null, outcome: 'ok' });
      expect((await suite.journal.console.listActions({ limit: 5 }))[0]).toMatchObject({ action: 'download', at: expect.stringMatching(/^2026-03-01T08:/) });
    });

    it('lists open alerts the most severe first (then newest seen), and acknowledges several in one unit of work', async () => {
      const c = suite.journal.console;
      const uncertain = [];
      for (let f = 1; f <= 3; f++) uncertain.push(await c.raiseAlert({ kind: 'rows-uncertain', subject: `file:${f}`, job: 'stock', fileId: f, message: `file ${f}: uncertain` }));
      const failed = await c.raiseAlert({ kind: 'file-failed', subject: 'file:4', job: 'stock', fileId: 4, message: 'file 4: failed' });
      const webhook = await c.raiseAlert({ kind: 'webhook-failed', subject: 'webhook', message: 'the webhook gave up' });
      expect((await c.listAlerts({ limit: 3 })).open.map((a) => [a.id, a.severity])).toEqual([
        [uncertain[2], 'critical'], [uncertain[1], 'critical'], [uncertain[0], 'critical'],
      ]);
      expect(await c.acknowledgeAlerts([uncertain[0], uncertain[2], webhook], 'ops')).toEqual([uncertain[0], uncertain[2], webhook]);
      expect(await c.acknowledgeAlerts([uncertain[0], uncertain[1]], 'ops-2')).toEqual([uncertain[1]]);
      await suite.reopen();
      const after = await suite.journal.console.listAlerts({ limit: 10 });
      expect(after.open.map((a) => [a.id, a.severity])).toEqual([[failed, 'warning']]);
      expect(after.acknowledged.map((a) => [a.id, a.acknowledgedBy])).toEqual([[webhook, 'ops'], [uncertain[2], 'ops'], [uncertain[1], 'ops-2'], [uncertain[0], 'ops']]);
    });

    it('records operator actions and lists them newest first, by file, in pages; they survive a restart', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(await suite.journal.console.recordAction({
          action: i % 2 ? 'resolve' : 'redrive', fileId: i < 3 ? fileId : null, target: i < 3 ? 'a.csv' : null, actor: `ops-${i}`, via: i % 2 ? 'cli' : 'console',
          detail: i === 4 ? '{"seqs":[4]}' : null, outcome: i === 2 ? 'refused: file is done' : 'ok',
        }));
      }
      expect([...ids].sort((x, y) => x - y)).toEqual(ids); // in the order recorded
      await suite.reopen();
      const newest = await suite.journal.console.listActions({ limit: 2 });
      expect(newest.map((a) => a.id)).toEqual([ids[4], ids[3]]);
      expect(newest[0]).toEqual({
        id: ids[4], action: 'redrive', fileId: null, target: null, actor: 'ops-4', via: 'console', detail: '{"seqs":[4]}', outcome: 'ok',
        at: expect.stringMatching(/^2026-03-01T08:00:\d\d\.000Z$/),
      });
      expect((await suite.journal.console.listActions({ before: newest[1].id, limit: 10 })).map((a) => a.id)).toEqual([ids[2], ids[1], ids[0]]);
      const ofFile = await suite.journal.console.listActions({ fileId, limit: 10 });
      expect(ofFile.map((a) => [a.action, a.actor, a.outcome])).toEqual([
        ['redrive', 'ops-2', 'refused: file is done'], ['resolve', 'ops-1', 'ok'], ['redrive', 'ops-0', 'ok'],
      ]);
      expect(await suite.journal.console.listActions({ fileId: fileId + 1, limit: 10 })).toEqual([]);
    });

    it('lists files newest first with filters and keyset pages', async () => {
      for (let i = 0; i < 7; i++) {
        const { fileId } = await suite.journal.claimFile({ ...claimInput(`F_${i}.csv`, `c${i}`), drop: i % 2 ? 'b' : 'a', mapping: i === 2 ? 'counts' : 'adjustments' });
        await suite.journal.addItems(fileId, [adjustment(0)]);
        if (i % 3 === 0) await suite.journal.rejectFile(fileId, 'bad header');
      }
      const hooks = testHooks(suite.journal);
      const names = (list: Array<{ name: string }>) => list.map((f) => f.name);
      const first = await hooks.consoleFiles({ limit: 3 });
      expect(names(first)).toEqual(['F_6.csv', 'F_5.csv', 'F_4.csv']);
      expect(names(await hooks.consoleFiles({ limit: 3, before: first[2].fileId }))).toEqual(['F_3.csv', 'F_2.csv', 'F_1.csv']);
      expect(names(await hooks.consoleFiles({ limit: 10, status: 'rejected' }))).toEqual(['F_6.csv', 'F_3.csv', 'F_0.csv']);
      expect(names(await hooks.consoleFiles({ limit: 10, drop: 'b', status: 'processing' }))).toEqual(['F_5.csv', 'F_1.csv']);
      expect(names(await hooks.consoleFiles({ limit: 10, name: 'f_4' }))).toEqual(['F_4.csv']);
      expect(names(await hooks.consoleFiles({ limit: 10, name: 'f%4' }))).toEqual([]); // a wildcard in the name matches only itself
      expect(names(await hooks.consoleFiles({ limit: 10, name: '_' }))).toHaveLength(7);
      expect(names(await hooks.consoleFiles({ limit: 10, mappings: ['counts'] }))).toEqual(['F_2.csv']);
      expect(names(await hooks.consoleFiles({ limit: 10, mappings: ['counts', 'adjustments'], drop: 'a' }))).toEqual(['F_6.csv', 'F_4.csv', 'F_2.csv', 'F_0.csv']);
      expect(await hooks.consoleFiles({ limit: 10, mappings: ['other'] })).toEqual([]);
      expect(await hooks.consoleFiles({ limit: 10, from: '2100-01-01T00:00:00Z' })).toEqual([]);
      const f3 = (await hooks.consoleFiles({ limit: 10, name: 'F_3' }))[0];
      expect(f3).toMatchObject({ drop: 'b', mapping: 'adjustments', size: 100, status: 'rejected', reason: 'bad header', redrives: 0, finishedAt: expect.stringMatching(/^2026-03-01T/) });
      expect(names(await hooks.consoleFiles({ limit: 10, from: f3.claimedAt, to: first[1].claimedAt }))).toEqual(['F_4.csv', 'F_3.csv']);
    });

    it('lists files and file events (duplicates naming their original, refusals before a claim) in one keyset page', async () => {
      const { fileId: a } = await suite.journal.claimFile({ ...claimInput('ADJ_1.csv', 'c1'), drop: 'a' });
      await suite.journal.finishFile(a);
      const dup = await suite.journal.recordFileEvent({ drop: 'a', name: 'ADJ_1_again.csv', kind: 'duplicate', originalFileId: a, reason: 'duplicate of ADJ_1.csv' });
      const { fileId: b } = await suite.journal.claimFile({ ...claimInput('ADJ_2.csv', 'c2'), drop: 'b', mapping: 'counts' });
      const refused = await suite.journal.recordFileEvent({ drop: 'b', name: 'ADJ_3.csv', kind: 'rejected', reason: 'empty file' });
      const { fileId: c } = await suite.journal.claimFile({ ...claimInput('ADJ_4.csv', 'c4'), drop: 'a' });
      const pages = suite.journal.console;
      const shown = (page: { lines: Array<{ file?: { name: string }; event?: { name: string } }> }) => page.lines.map((l) => l.file?.name ?? `event:${l.event!.name}`);
      const all = await pages.listFileLines({ limit: 10 });
      expect(shown(all)).toEqual(['ADJ_4.csv', 'event:ADJ_3.csv', 'ADJ_2.csv', 'event:ADJ_1_again.csv', 'ADJ_1.csv']);
      expect(all.next).toBeNull();
      expect(all.lines[3].event).toMatchObject({ eventId: dup.eventId, kind: 'duplicate', originalFileId: a, originalName: 'ADJ_1.csv', drop: 'a' });
      expect(all.lines[1].event).toMatchObject({ eventId: refused.eventId, kind: 'rejected', reason: 'empty file', originalFileId: null, originalName: null });

      // Pages of two: every line once, in the same order, each stream past its own cursor.
      const paged: string[] = [];
      let cursor: { before?: number; beforeEvent?: number } | null = {};
      for (let guard = 0; cursor && guard < 10; guard++) {
        const page = await pages.listFileLines({ limit: 2, ...cursor });
        paged.push(...shown(page));
        cursor = page.next;
      }
      expect(paged).toEqual(shown(all));
      const second = await pages.listFileLines({ limit: 2, before: c, beforeEvent: refused.eventId });
      expect(shown(second)).toEqual(['ADJ_2.csv', 'event:ADJ_1_again.csv']);
      expect(second.next).toEqual({ before: b, beforeEvent: dup.eventId });

      expect(shown(await pages.listFileLines({ limit: 10, name: 'again' }))).toEqual(['event:ADJ_1_again.csv']);
      expect(shown(await pages.listFileLines({ limit: 10, name: 'adj_3' }))).toEqual(['event:ADJ_3.csv']);
      expect(shown(await pages.listFileLines({ limit: 10, status: 'duplicate' }))).toEqual(['event:ADJ_1_again.csv']);
      expect(shown(await pages.listFileLines({ limit: 10, status: 'rejected' }))).toEqual(['event:ADJ_3.csv']);
      expect(shown(await pages.listFileLines({ limit: 10, status: 'done' }))).toEqual(['ADJ_1.csv']);
      expect(shown(await pages.listFileLines({ limit: 10, drop: 'b' }))).toEqual(['event:ADJ_3.csv', 'ADJ_2.csv']);
      // A job's mappings: a duplicate by its original's mapping; a refusal has none, so it belongs to every job of its drop.
      expect(shown(await pages.listFileLines({ limit: 10, drop: 'a', mappings: ['adjustments'] }))).toEqual(['ADJ_4.csv', 'event:ADJ_1_again.csv', 'ADJ_1.csv']);
      expect(shown(await pages.listFileLines({ limit: 10, mappings: ['counts'] }))).toEqual(['event:ADJ_3.csv', 'ADJ_2.csv']);
      expect(shown(await pages.listFileLines({ limit: 10, from: '2100-01-01T00:00:00Z' }))).toEqual([]);
    });

    it('lists exports newest first with filters and keyset pages', async () => {
      const a = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'CS_0001.csv', records: records(1) });
      const b = await suite.journal.beginExport({ workType: 'customer-returns', fileName: 'CR_0001.csv', records: records(2), policy: 'on-confirmation' });
      const c = await suite.journal.beginExport({ workType: 'customer-shipments', fileName: 'CS_0002.csv', records: records(3) });
      await suite.journal.markExportWritten(a);
      const pages = suite.journal.console;
      expect((await pages.listExports({ limit: 10 })).map((e) => e.exportId)).toEqual([c, b, a]);
      expect((await pages.listExports({ limit: 10, before: c })).map((e) => e.exportId)).toEqual([b, a]);
      expect((await pages.listExports({ limit: 10, workType: 'customer-shipments' })).map((e) => e.fileName)).toEqual(['CS_0002.csv', 'CS_0001.csv']);
      expect((await pages.listExports({ limit: 10, status: 'written' })).map((e) => e.exportId)).toEqual([a]);
      expect((await pages.listExports({ limit: 10, name: 'cr_' })).map((e) => e.exportId)).toEqual([b]);
      expect((await pages.listExports({ limit: 10, name: 'cs%' }))).toEqual([]);
      expect((await pages.listExports({ limit: 1, workType: 'customer-returns' }))[0]).toMatchObject({
        exportId: b, kind: 'work', policy: 'on-confirmation', status: 'recorded', recordCount: 1, writtenAt: null, completedAt: null,
      });
    });

    it('pages through a file\'s rows, blocks and item rows merged in seq order, each row once, optionally of one status', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('mixed.csv', 'mixed'));
      const done = await testHooks(suite.journal).recordBatch(fileId, EP, [0, 1, 2, 3].map((s) => adjustment(s)), { sent: true });
      await suite.journal.completeRequest(done, [
        { seq: 0, status: 'ok', result: { move_id: 1000 } },
        { seq: 1, status: 'error', messages: ['insufficient stock'] },
        { seq: 2, status: 'uncertain', messages: ['connection reset'], hint: 'look for the move' },
        ...okOutcomes([3]),
      ]);
      await testHooks(suite.journal).recordBatch(fileId, EP, [5, 6, 8].map((s) => adjustment(s)), { sent: true }); // in flight
      await suite.journal.addItems(fileId, [
        { seq: 4, lines: [6], status: 'error', messages: ['not a number'] },
        { seq: 7, lines: [9], status: 'skipped', messages: ['blank row'] },
      ]);
      const pageAll = async (status: 'ok' | 'error' | 'uncertain' | 'skipped' | 'sent' | undefined, limit: number) => {
        const seen: string[] = [];
        let after: number | undefined;
        for (let guard = 0; guard < 50; guard++) {
          const page = await suite.journal.console.fileRows(fileId, { status, after, limit });
          expect(page.rows.length).toBeLessThanOrEqual(limit);
          seen.push(...page.rows.map((r) => `${r.seq}:${r.status}`));
          if (page.next === null) return seen;
          after = page.next;
        }
        throw new Error('paging did not end');
      };
      const expected = (await testHooks(suite.journal).itemsInRange(fileId, 0, 100)).map((i) => `${i.seq}:${i.status}`);
      expect(expected).toEqual(['0:ok', '1:error', '2:uncertain', '3:ok', '4:error', '5:sent', '6:sent', '7:skipped', '8:sent']);
      for (const limit of [1, 2, 4, 100]) expect(await pageAll(undefined, limit), `limit ${limit}`).toEqual(expected);
      for (const status of ['ok', 'error', 'uncertain', 'skipped', 'sent'] as const) {
        expect(await pageAll(status, 2), status).toEqual(expected.filter((e) => e.endsWith(`:${status}`)));
      }
      const { rows } = await suite.journal.console.fileRows(fileId, { limit: 100 });
      expect(rows.find((r) => r.seq === 0)).toMatchObject({ docKey: 'SKU-0', lines: [2], result: { move_id: 1000 }, itemId: null, requestId: done, attempt: 1 });
      expect(rows.find((r) => r.seq === 2)).toMatchObject({ status: 'uncertain', hint: 'look for the move', messages: ['connection reset'], itemId: expect.any(Number) });
      expect(rows.find((r) => r.seq === 4)).toMatchObject({ status: 'error', rejected: true, messages: ['not a number'], requestId: null });
      expect(await suite.journal.console.fileRows(fileId, { after: 8, limit: 10 })).toEqual({ rows: [], next: null });
    });

    it('pages through the uncertain rows of every file, oldest file first, with their hints', async () => {
      const a = await failedFile(suite.journal, 'a');
      const { fileId: b } = await suite.journal.claimFile(claimInput('b.csv', 'b'));
      const id = await testHooks(suite.journal).recordBatch(b, EP, [0, 1, 2].map((s) => adjustment(s)), { sent: true });
      await suite.journal.completeRequest(id, [{ seq: 0, status: 'uncertain', hint: 'h0' }, ...okOutcomes([1]), { seq: 2, status: 'uncertain', hint: 'h2' }]);
      const first = await suite.journal.console.uncertainRows({ limit: 2 });
      expect(first.rows.map((r) => [r.fileId, r.file, r.seq, r.hint, r.status])).toEqual([
        [a, 'a.csv', 4, 'look for move of SKU-4', 'uncertain'], [b, 'b.csv', 0, 'h0', 'uncertain'],
      ]);
      expect(first.next).toEqual({ fileId: b, seq: 0 });
      const second = await suite.journal.console.uncertainRows({ afterFile: first.next!.fileId, afterSeq: first.next!.seq, limit: 2 });
      expect(second.rows.map((r) => [r.fileId, r.seq, r.hint])).toEqual([[b, 2, 'h2']]);
      expect(second.next).toBeNull();
      await suite.journal.resolveUncertain({ fileId: b, seqs: [0] }, { resolution: 'not-applied', note: 'n', by: 'ops' });
      expect((await suite.journal.console.uncertainRows({ limit: 10 })).rows.map((r) => [r.fileId, r.seq])).toEqual([[a, 4], [b, 2]]);
      const byRequest = await suite.journal.console.uncertainRequests();
      expect(byRequest.map((r) => [r.fileId, r.file, r.endpoint, r.rows])).toEqual([[a, 'a.csv', EP, 1], [b, 'b.csv', EP, 1]]);
      expect(byRequest[1].requestId).toBe(id);
    });

    it('says where the journal is, how big, and since when', async () => {
      expect(await suite.journal.console.stats(suite.journal.location)).toEqual({ path: suite.journal.location, bytes: expect.any(Number), oldestEntry: null });
      const { fileId } = await suite.journal.claimFile(claimInput('a.csv', 'abc'));
      const stats = await suite.journal.console.stats(suite.journal.location);
      expect(stats.bytes).toBeGreaterThan(0);
      expect(stats.oldestEntry).toBe((await suite.journal.getFile(fileId)).claimedAt);
    });
  });
}
