import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { packBatch, type Journal } from '../journal/index.js';
import { adjustment, claimInput, okOutcomes, useTestJournal } from '../journal/test-support.js';
import { silentLogger } from '../log.js';
import { COMPLETION_WAIT_MS, CompletionQueue, inlineRecorder, type NewRequest, type RequestRecorder } from './completions.js';
import { RecorderThread } from './recorder-thread.js';

let journal: Journal;
useTestJournal((j) => (journal = j));
let recorder: RequestRecorder | undefined;
afterEach(async () => {
  await recorder?.close();
  recorder = undefined;
});

/** Item `seq` as the sender records it: its document, its body in the request's JSON text. */
function request(seq: number): NewRequest {
  const { body, ...doc } = adjustment(seq);
  return { endpoint: 'inventory.adjustments', packed: packBatch('inventory.adjustments', [doc]), bodies: JSON.stringify([body]) };
}

const recorders: Array<[string, () => Promise<RequestRecorder>]> = [
  ['inline, on the journal\'s connection', async () => inlineRecorder(journal, silentLogger)],
  ['on a recorder thread with its own connection', async () => {
    const thread = new RecorderThread(journal.path, silentLogger);
    await thread.ready;
    return thread;
  }],
];

describe.each(recorders)('request outcomes wait for the next commit (group commit), %s', (_, open) => {
  async function queueOf(fileId: number): Promise<CompletionQueue> {
    recorder = await open();
    return new CompletionQueue(recorder, fileId);
  }

  it('an outcome is committed with the next request\'s record, in the same transaction', async () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = await queueOf(fileId);
    const first = (await queue.commitWith([], request(1))).requestId!;
    expect(journal.getRequest(first).status).toBe('sent');
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([1]) });
    expect(journal.getRequest(first).status).toBe('sent');

    const second = (await queue.commitWith([], request(2))).requestId!;
    expect(journal.getRequest(first).status).toBe('done');
    expect(journal.getRequest(second).status).toBe('sent');
    expect(journal.resultOf(first, 1)).toEqual({ move_id: 1001 });
  });

  it('rows rejected by the mapping are recorded with the commit', async () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = await queueOf(fileId);
    await queue.commitWith([{ seq: 1, lines: [3], status: 'error', messages: ['"3x" is not a number'] }], request(2));
    await queue.flush([{ seq: 3, lines: [5], status: 'skipped', messages: ['comment'] }]);
    expect(journal.fileSummary(fileId)).toMatchObject({ error: 1, skipped: 1, sent: 1 });
  });

  it('a record that fails rolls the outcome back with it, and the outcome stays queued', async () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = await queueOf(fileId);
    const first = (await queue.commitWith([], request(1))).requestId!;
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([1]) });
    await expect(queue.commitWith([], request(1))).rejects.toThrow(/item 1 of file 1 is already/);
    expect(journal.getRequest(first).status).toBe('sent');
    await queue.flush();
    expect(journal.getRequest(first).status).toBe('done');
  });

  it('with no request following, the outcome is committed on its own after a short wait', async () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = await queueOf(fileId);
    const first = (await queue.commitWith([], request(1))).requestId!;
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([1]) });
    await sleep(COMPLETION_WAIT_MS * 5);
    expect(journal.getRequest(first).status).toBe('done');
  });

  it('an outcome that cannot be stored on the timer fails the next commit of the file', async () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = await queueOf(fileId);
    const first = (await queue.commitWith([], request(1))).requestId!;
    queue.add({ requestId: first, endpoint: 'inventory.adjustments', outcomes: okOutcomes([1, 2]) });
    await sleep(COMPLETION_WAIT_MS * 5);
    await expect(queue.commitWith([], request(2))).rejects.toThrow(/1 items but 2 outcomes/);
    expect(journal.getRequest(first).status).toBe('sent');
  });
});
