import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Journal } from '../journal/index.js';
import { adjustment, claimInput, okOutcomes, useTestJournal } from '../journal/test-support.js';
import { COMPLETION_WAIT_MS, CompletionQueue } from './completions.js';

let journal: Journal;
useTestJournal((j) => (journal = j));

function sentRequest(fileId: number, seq: number): number {
  const { body: _body, ...item } = adjustment(seq);
  const id = journal.recordBatch(fileId, 'inventory.adjustments', [item], { bodies: JSON.stringify([adjustment(seq).body]) });
  journal.markSent(id);
  return id;
}

describe('request outcomes wait for the next commit (group commit)', () => {
  it('an outcome is committed with the next request\'s record, in the same transaction', () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = new CompletionQueue(journal);
    const first = sentRequest(fileId, 1);
    queue.add(() => journal.completeRequest(first, okOutcomes([1])));
    expect(journal.getRequest(first).status).toBe('sent');

    const second = queue.commitWith(() => sentRequest(fileId, 2));
    expect(journal.getRequest(first).status).toBe('done');
    expect(journal.getRequest(second).status).toBe('sent');
    expect(journal.resultOf(first, 1)).toEqual({ move_id: 1001 });
  });

  it('a record that fails rolls the outcome back with it, and the outcome stays queued', () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = new CompletionQueue(journal);
    const first = sentRequest(fileId, 1);
    queue.add(() => journal.completeRequest(first, okOutcomes([1])));
    expect(() => queue.commitWith(() => sentRequest(fileId, 1))).toThrow(/item 1 of file 1 is already/);
    expect(journal.getRequest(first).status).toBe('sent');
    queue.flush();
    expect(journal.getRequest(first).status).toBe('done');
  });

  it('with no request following, the outcome is committed on its own after a short wait', async () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = new CompletionQueue(journal);
    const first = sentRequest(fileId, 1);
    queue.add(() => journal.completeRequest(first, okOutcomes([1])));
    await sleep(COMPLETION_WAIT_MS * 5);
    expect(journal.getRequest(first).status).toBe('done');
  });

  it('an outcome that cannot be stored on the timer fails the next commit of the file', async () => {
    const { fileId } = journal.claimFile(claimInput('a.csv', 'c1')) as { fileId: number };
    const queue = new CompletionQueue(journal);
    const first = sentRequest(fileId, 1);
    queue.add(() => journal.completeRequest(first, okOutcomes([1, 2])));
    await sleep(COMPLETION_WAIT_MS * 5);
    expect(() => queue.commitWith(() => sentRequest(fileId, 2))).toThrow(/1 items but 2 outcomes/);
    expect(journal.getRequest(first).status).toBe('sent');
  });
});
