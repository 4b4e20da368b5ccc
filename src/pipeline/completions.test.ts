import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { Journal } from '../journal/index.js';
import { claimInput, okOutcomes, rawDatabase, useTestJournal, type TempDir } from '../journal/test-support.js';
import { silentLogger } from '../log.js';
import { parseMapping, type Mapping } from '../mapping/index.js';
import { BatchesThread } from './batches-thread.js';
import { applyUnit, COMPLETION_WAIT_MS, CompletionQueue } from './completions.js';
import { INDEX_WAIT_MS } from './trailing-index.js';
import { TOKEN_PARTS } from '../journal/core/blocks.js';
import { FileBatches, type FileRequests } from './file-batches.js';
import { UndecidedShare } from './undecided.js';
import { Limiter } from '../util/limiter.js';
import { testHooks } from '../journal/testing.js';

let journal: Journal;
let tmp: TempDir;
useTestJournal((j, t) => {
  journal = j;
  tmp = t;
});
let requests: FileRequests | undefined;
afterEach(async () => {
  await requests?.close();
  requests = undefined;
});

const MAPPING = `document: inventory.adjustments
files: "KORR_*.csv"
request:
  fields:
    product_code: SKU
    quantity: { column: QTY, type: number }
    reference: REF
`;

/** Rows of SKU, QTY, REF: line n + 2 is row n (after the header). */
const csv = (rows: readonly string[]) => ['SKU,QTY,REF', ...rows].join('\n') + '\n';
const ROWS = ['A,1,R1', 'B,2,R2', 'C,3,R3'];

type Open = (fileId: number, path: string, mapping: Mapping) => Promise<FileRequests>;
const sources: Array<[string, Open]> = [
  ['mapped and recorded on this thread', async (fileId, path, mapping) => new FileBatches({
    fileId, fileName: 'KORR_1.csv', source: createReadStream(path), mapping, state: await journal.resumeState(fileId), requestSize: 1,
    commit: (unit) => applyUnit(journal, silentLogger, unit), mapAhead: false,
  })],
  ['mapped and recorded on a worker thread with its own connection', async (fileId, path, mapping) => {
    const data = { journalAddress: journal.address, snapshotPath: path, fileId, fresh: true, fileName: 'KORR_1.csv', mapping, requestSize: 1 };
    if (thread) await thread.open(data);
    else {
      thread = new BatchesThread(data, { idsOf: async () => new Map() });
      await thread.ready;
    }
    const shared = thread;
    // Closing the test's requests releases the file and the thread's connection to the test's journal; the thread serves the next test.
    return { next: (...a) => shared.next(...a), store: (stores) => shared.store(stores), finish: () => shared.finish(), close: () => shared.release() };
  }],
];
/** One worker thread for the file's tests: starting one (its modules loaded through tsx) is most of a test's time. */
let thread: BatchesThread | undefined;
afterAll(async () => {
  await thread?.close();
});

describe.each(sources)('request outcomes wait for the next commit (group commit), %s', (_, open) => {
  async function queueOf(rows: readonly string[] = ROWS, share?: UndecidedShare): Promise<{ queue: CompletionQueue; fileId: number }> {
    const { fileId } = (await journal.claimFile(claimInput('KORR_1.csv', 'c1'))) as { fileId: number };
    const path = join(tmp.dir, 'KORR_1.csv');
    writeFileSync(path, csv(rows));
    const { mapping, problems } = parseMapping(MAPPING, 'test.yaml');
    expect(problems).toEqual([]);
    requests = await open(fileId, path, mapping!);
    return { queue: new CompletionQueue(requests, silentLogger, share), fileId };
  }
  const firstRequest = async (queue: CompletionQueue) => (await queue.next(false)).requests[0].requestId;

  it('an outcome is committed with the next request\'s record, in the same transaction', async () => {
    const { queue } = await queueOf();
    const first = await firstRequest(queue);
    expect((await journal.getRequest(first)).status).toBe('sent');
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([2]) });
    expect((await journal.getRequest(first)).status).toBe('sent');

    const second = (await queue.next(false)).requests[0].requestId;
    expect((await journal.getRequest(first)).status).toBe('done');
    expect((await journal.getRequest(second)).status).toBe('sent');
    expect(await testHooks(journal).resultOf(first, 2)).toEqual({ move_id: 1002 });
  });

  it('each request carries its documents as the journal recorded them', async () => {
    const { queue } = await queueOf();
    const step = await queue.next(false);
    expect(step.requests[0]).toMatchObject({ endpoint: 'inventory.adjustments', count: 1 });
    expect(JSON.parse(step.requests[0].itemsJson)).toEqual([{ product_code: 'A', quantity: 1, reference: 'R1' }]);
    expect(step.spool).toEqual([1]);
  });

  it('rows rejected by the mapping are recorded with the next commit, and the file ends with what is left', async () => {
    const { queue, fileId } = await queueOf(['A,1,R1', 'B,x,R2', 'C,3,R3']);
    const steps = [await queue.next(false), await queue.next(false), await queue.next(false)];
    expect(steps.map((s) => [s.requests[0]?.count ?? 0, s.end])).toEqual([[1, false], [1, false], [0, true]]);
    expect(steps[1].spool).toEqual([{ rejected: [3], docKey: 'B', messages: ['KORR_1.csv, line 3, column QTY: "x" is not a number'] }, 1]);
    expect(await journal.fileSummary(fileId)).toMatchObject({ error: 1, sent: 2 });
  });

  it('a commit that fails rolls the outcome back with it, and the outcome stays queued', async () => {
    const { queue } = await queueOf();
    const first = await firstRequest(queue);
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([2]) });
    // A real failure inside SQLite (the disk full, say) on the next request's record, on whichever connection.
    const db = rawDatabase(journal);
    db.exec(`CREATE TRIGGER fail_record BEFORE INSERT ON requests BEGIN SELECT RAISE(ABORT, 'no room (test)'); END`);
    await expect(queue.next(false)).rejects.toThrow(/no room \(test\)/);
    expect((await journal.getRequest(first)).status).toBe('sent');
    db.exec('DROP TRIGGER fail_record');
    await queue.flush();
    expect((await journal.getRequest(first)).status).toBe('done');
  });

  it('several requests are recorded in one commit with the outcomes queued, in the file\'s order', async () => {
    const { queue, fileId } = await queueOf(['A,1,R1', 'B,2,R2', 'C,3,R3', 'D,4,R4']);
    const first = await firstRequest(queue);
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([2]) });
    const step = await queue.next(false, 2);
    expect(step.requests.map((r) => JSON.parse(r.itemsJson)[0].product_code)).toEqual(['B', 'C']);
    expect(step.spool).toEqual([1, 1]);
    expect(step.end).toBe(false);
    expect((await journal.getRequest(first)).status).toBe('done');
    for (const r of step.requests) expect((await journal.getRequest(r.requestId)).status).toBe('sent');
    // room for more than the file has left: what is left, and the end
    const last = await queue.next(false, 5);
    expect([last.requests.length, last.end]).toEqual([1, true]);
    expect(await journal.fileSummary(fileId)).toMatchObject({ sent: 3 });
  });

  it('requests recorded together are one transaction: one that cannot be recorded takes the others and the outcomes back', async () => {
    const { queue, fileId } = await queueOf(['A,1,R1', 'B,2,R2', 'C,3,R3', 'D,4,R4']);
    const first = await firstRequest(queue);
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([2]) });
    const db = rawDatabase(journal);
    db.exec(`CREATE TRIGGER fail_third BEFORE INSERT ON requests WHEN (SELECT count(*) FROM requests) >= 3 BEGIN SELECT RAISE(ABORT, 'no room (test)'); END`);
    await expect(queue.next(false, 3)).rejects.toThrow(/no room \(test\)/);
    db.exec('DROP TRIGGER fail_third');
    expect((await journal.getRequest(first)).status).toBe('sent');
    expect(await journal.fileSummary(fileId)).toMatchObject({ sent: 1 });
  });

  it('with no request following, the outcome is committed on its own after a short wait', async () => {
    const { queue } = await queueOf();
    const first = await firstRequest(queue);
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([2]) });
    // Nothing else calls the queue: only its timer can commit. Polled, so a loaded machine's slow timer is no failure.
    await vi.waitFor(async () => expect((await journal.getRequest(first)).status).toBe('done'), { timeout: 10_000, interval: COMPLETION_WAIT_MS });
  });

  it('the last flush waits for the timer\'s commit under way: the file never ends before its last outcomes', async () => {
    const { queue: _, fileId } = await queueOf();
    // The timer's commit is slow (a loaded journal): it has taken the queue when the flow flushes at the file's end.
    const inner = requests!;
    const slow: FileRequests = {
      next: (stores, stop, most) => inner.next(stores, stop, most),
      store: async (stores) => {
        await sleep(100);
        return inner.store(stores);
      },
      finish: () => inner.finish(),
      close: () => inner.close(),
    };
    const queue = new CompletionQueue(slow, silentLogger);
    const first = await firstRequest(queue);
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([2]) });
    await sleep(COMPLETION_WAIT_MS * 2);
    await queue.flush();
    expect((await journal.getRequest(first)).status).toBe('done');
    expect(await journal.fileSummary(fileId)).toMatchObject({ sent: 0 });
  });

  it('an outcome that cannot be stored on the timer fails the next commit of the file', async () => {
    const { queue } = await queueOf();
    const first = await firstRequest(queue);
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([2, 3]) });
    await sleep(COMPLETION_WAIT_MS * 5);
    await expect(queue.next(false)).rejects.toThrow(/1 items but 2 outcomes/);
    expect((await journal.getRequest(first)).status).toBe('sent');
  });

  it('within the service\'s undecided requests: a commit records only what it is granted, none at the cap (the outcomes alone), and hands decided requests\' slots on', async () => {
    const budget = new Limiter(2);
    const share = new UndecidedShare(budget);
    const { queue, fileId } = await queueOf(['A,1,R1', 'B,2,R2', 'C,3,R3', 'D,4,R4'], share);
    const first = await queue.next(false, 3);
    expect([first.requests.length, first.starved]).toEqual([2, false]);
    expect(budget.held).toBe(2);
    const starved = await queue.next(false, 1);
    expect([starved.requests.length, starved.end, starved.starved]).toEqual([0, false, true]);
    queue.add({ requestId: first.requests[0].requestId, endpoint: 'inventory.adjustments', outcomes: okOutcomes([2]) });
    const handedOn = await queue.next(false, 3);
    expect(handedOn.requests.map((r) => JSON.parse(r.itemsJson)[0].product_code)).toEqual(['C']);
    expect((await journal.getRequest(first.requests[0].requestId)).status).toBe('done');
    expect(await journal.fileSummary(fileId)).toMatchObject({ sent: 2 });
    expect(budget.held).toBe(2);
    // an outcome committed on its own gives its slot back to the service
    queue.add({ requestId: first.requests[1].requestId, endpoint: 'inventory.adjustments', outcomes: okOutcomes([3]) });
    await queue.flush();
    expect(budget.held).toBe(1);
    share.close();
    expect(budget.held).toBe(0);
  });

  it('a request is recorded without its search index, which follows in a commit of its own (or the file\'s end)', async () => {
    const { queue } = await queueOf();
    const tokensOf = (requestId: number) => (rawDatabase(journal).prepare(`SELECT count(*) AS n FROM block_tokens WHERE ${TOKEN_PARTS} AND request_id = ?`).get(requestId) as { n: number }).n;
    const first = await firstRequest(queue);
    expect(tokensOf(first)).toBe(0);
    await vi.waitFor(() => expect(tokensOf(first)).toBeGreaterThan(0), { timeout: 10_000, interval: INDEX_WAIT_MS });
    expect((await journal.console.search('R1', { limit: 5 })).total).toBe(1);
    const second = await firstRequest(queue);
    expect(tokensOf(second)).toBe(0);
    await requests!.finish();
    expect(tokensOf(second)).toBeGreaterThan(0);
  });
});
