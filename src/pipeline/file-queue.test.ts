import { describe, expect, it } from 'vitest';
import { FileQueue, type FileRunEnd } from './file-queue.js';
import { LAST_STAGE, type FilePlace } from './file-order.js';

/** A queue whose runs are ended by hand: `log` records starts and ends, `running` the names running now. */
function harness(limit: number) {
  const log: string[] = [];
  const pending = new Map<string, (end: FileRunEnd | Error) => void>();
  const queue = new FileQueue<string>({
    limit,
    run: (name) => new Promise<FileRunEnd>((resolve, reject) => {
      log.push(`start ${name}`);
      pending.set(name, (end) => {
        pending.delete(name);
        log.push(`end ${name}`);
        if (end instanceof Error) reject(end);
        else resolve(end);
      });
    }),
  });
  const turn = () => new Promise((r) => setImmediate(r));
  const finish = async (name: string, end: FileRunEnd | Error = 'concluded') => {
    pending.get(name)!(end);
    await turn();
    await turn();
  };
  /** Ends the given runs 'concluded', in that order, then waits for the queue to drain. */
  const finishAll = async (...names: string[]) => {
    for (const name of names) await finish(name);
    await queue.drained();
  };
  return { queue, log, running: () => [...pending.keys()].sort(), finish, finishAll, turn };
}

const free: FilePlace = { stage: LAST_STAGE };
const ordered = (lane: string): FilePlace => ({ lane, family: 'inventory', stage: LAST_STAGE });
const shipments = (stage: number): FilePlace => ({ family: 'customerShipments', stage });

describe('FileQueue', () => {
  it('runs up to its limit at once, in the order added', async () => {
    const h = harness(2);
    for (const n of ['a', 'b', 'c']) h.queue.add(n, n, free);
    await h.turn();
    expect(h.running()).toEqual(['a', 'b']);
    await h.finish('b');
    expect(h.running()).toEqual(['a', 'c']);
    await h.finishAll('a', 'c');
    expect(h.queue.left).toBe(0);
  });

  it('an ordered lane: one file at a time, in name order whatever the order added; other files go meanwhile', async () => {
    const h = harness(4);
    h.queue.add('K2', 'K2', ordered('korr'));
    h.queue.add('K1', 'K1', ordered('korr'));
    h.queue.add('x', 'x', free);
    await h.turn();
    expect(h.running()).toEqual(['K1', 'x']);
    await h.finish('K1');
    expect(h.running()).toEqual(['K2', 'x']);
    await h.finishAll('K2', 'x');
  });

  it('a later stage of a family waits for every earlier stage waiting or running; other families do not', async () => {
    const h = harness(4);
    h.queue.add('ship', 'ship', shipments(2));
    h.queue.add('pick', 'pick', shipments(1));
    h.queue.add('ack', 'ack', shipments(0));
    h.queue.add('korr', 'korr', { family: 'inventory', stage: LAST_STAGE });
    await h.turn();
    expect(h.running()).toEqual(['ack', 'korr']);
    await h.finish('ack');
    expect(h.running()).toEqual(['korr', 'pick']);
    await h.finish('pick');
    expect(h.running()).toEqual(['korr', 'ship']);
    await h.finishAll('korr', 'ship');
  });

  it('a pending file holds back the files that must follow it, not the others', async () => {
    const h = harness(4);
    h.queue.add('A1', 'A1', ordered('a'));
    h.queue.add('A2', 'A2', ordered('a'));
    h.queue.add('ack', 'ack', shipments(0));
    h.queue.add('ship', 'ship', shipments(2));
    h.queue.add('x', 'x', free);
    await h.turn();
    await h.finish('A1', 'pending');
    await h.finish('ack', 'pending');
    await h.finishAll('x');
    expect(h.log).not.toContain('start A2');
    expect(h.log).not.toContain('start ship');
    expect(h.queue.left).toBe(2);
  });

  it('a run that throws: nothing more starts, the runs in flight finish, drained() rejects with the error', async () => {
    const h = harness(2);
    for (const n of ['a', 'b', 'c']) h.queue.add(n, n, free);
    await h.turn();
    await h.finish('a', new Error('service down'));
    expect(h.running()).toEqual(['b']);
    const drained = expect(h.queue.drained()).rejects.toThrow('service down');
    await h.finish('b');
    await drained;
    expect(h.log).not.toContain('start c');
  });
  it('a file put first goes before the files waiting, is moved up when queued already, never queued twice or beside its own run', async () => {
    const h = harness(1);
    for (const n of ['a', 'b', 'orphan']) h.queue.add(n, n, free);
    await h.turn();
    expect(h.running()).toEqual(['a']);
    h.queue.add('orphan', 'orphan', free, true);
    h.queue.add('a', 'a', free, true);
    expect(h.queue.left).toBe(2);
    await h.finish('a');
    expect(h.running()).toEqual(['orphan']);
    await h.finishAll('orphan', 'b');
    expect(h.log.filter((l) => l.startsWith('start'))).toEqual(['start a', 'start orphan', 'start b']);
  });

  it('a file put first keeps the order rules: of an ordered lane, it waits for the earlier name running and never runs beside it', async () => {
    const h = harness(2);
    h.queue.add('KORR_1', 'KORR_1', ordered('korr'));
    h.queue.add('other', 'other', free);
    await h.turn();
    expect(h.running()).toEqual(['KORR_1', 'other']);
    h.queue.add('KORR_2', 'KORR_2', ordered('korr'), true);
    await h.finish('other');
    expect(h.running()).toEqual(['KORR_1']);
    await h.finishAll('KORR_1', 'KORR_2');
    expect(h.log.filter((l) => l.startsWith('start'))).toEqual(['start KORR_1', 'start other', 'start KORR_2']);
  });

  it('a file put first of an ordered lane waits for an earlier name queued behind it', async () => {
    const h = harness(2);
    h.queue.add('KORR_1', 'KORR_1', ordered('korr'));
    h.queue.add('KORR_2', 'KORR_2', ordered('korr'), true);
    await h.turn();
    expect(h.running()).toEqual(['KORR_1']);
    await h.finishAll('KORR_1', 'KORR_2');
    expect(h.log.filter((l) => l.startsWith('start'))).toEqual(['start KORR_1', 'start KORR_2']);
  });
});
