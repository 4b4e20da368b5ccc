import { describe, expect, it } from 'vitest';
import type { InstanceInfo } from '../../../src/journal/index.js';
import { adjustment, claimInput } from '../../../src/journal/test-support.js';
import { testHooks } from '../../../src/journal/testing.js';
import { EP, type Suite } from './support.js';

const A: InstanceInfo = { id: 'node-1-101-aaaaaa', host: 'node-1', pid: 101, version: '9.1.0' };
const B: InstanceInfo = { id: 'node-2-202-bbbbbb', host: 'node-2', pid: 202, version: '9.1.0' };
const C: InstanceInfo = { id: 'node-3-303-cccccc', host: 'node-3', pid: 303, version: '9.1.0' };
const SHORT = 2_000;
const LONG = 60_000;

/** ISO stamps in the order given, each later than the one before. */
function ascending(stamps: readonly string[]): boolean {
  return stamps.every((at, i) => i === 0 || Date.parse(at) > Date.parse(stamps[i - 1]!));
}

export function describeOwners(suite: Suite): void {
  describe('file owners: every instance that took a file, from whom, why, with which token', () => {
    it('records the claim and each takeover: lost, given up, handed over at a stop, re-driven', async () => {
      // A's lease is judged by the database's clock; B's clock is moved past it once A is to be taken for lost.
      let moved = 0;
      const a = await suite.fx.asInstance(A, { leaseMs: SHORT });
      const b = await suite.fx.asInstance(B, { leaseMs: SHORT, clockOffsetMs: () => moved });
      await a.registerInstance();
      const first = await a.claimFile(claimInput('owned.csv', 'owned'));
      expect(first.status).toBe('new');
      const { fileId } = first;
      expect(await b.claimFile(claimInput('owned.csv', 'owned'))).toEqual({ status: 'busy', fileId, owner: A.id });

      moved = SHORT * 3;
      expect(await b.claimFile(claimInput('owned.csv', 'owned'))).toMatchObject({ status: 'resume', fileId, from: A.id, token: 2, reason: 'lost' });
      // B gives it up after a run that failed; A takes it again at its next look.
      await b.releaseFile(fileId);
      expect(await a.claimFile(claimInput('owned.csv', 'owned'))).toMatchObject({ status: 'resume', from: B.id, token: 3, reason: 'released' });
      // Its own instance claiming it again is no takeover: same token, nothing recorded.
      expect(await a.claimFile(claimInput('owned.csv', 'owned'))).toEqual({ status: 'resume', fileId, generation: 1, from: A.id, token: 3 });
      await a.retireInstance();
      expect(await b.claimFile(claimInput('owned.csv', 'owned'))).toMatchObject({ status: 'resume', from: A.id, token: 4, reason: 'handover' });

      const request = await testHooks(b).recordBatch(fileId, EP, [adjustment(0)], { sent: true });
      await b.completeRequest(request, [{ seq: 0, status: 'error', messages: ['unknown product'] }]);
      expect(await b.finishFile(fileId)).toBe('failed');
      await b.recordDisposition(fileId, 'archive/owned.csv');
      const c = await suite.fx.asInstance(C, { leaseMs: LONG });
      expect(await c.beginRedrive(fileId)).toBe(2);

      const owners = await suite.journal.console.fileOwners(fileId);
      expect(owners.map(({ at: _, ...o }) => o)).toEqual([
        { instance: A.id, from: null, token: 1, reason: 'claim' },
        { instance: B.id, from: A.id, token: 2, reason: 'lost' },
        { instance: A.id, from: B.id, token: 3, reason: 'released' },
        { instance: B.id, from: A.id, token: 4, reason: 'handover' },
        { instance: C.id, from: B.id, token: 5, reason: 'redrive' },
      ]);
      expect(ascending(owners.map((o) => o.at))).toBe(true);
      expect((await suite.journal.getFile(fileId)).lease).toMatchObject({ owner: C.id, token: 5 });
    });

    it('a file claimed without an instance has no owners until an instance takes it: unowned', async () => {
      const { fileId } = await suite.journal.claimFile(claimInput('tool.csv', 'tool'));
      expect(await suite.journal.console.fileOwners(fileId)).toEqual([]);
      const a = await suite.fx.asInstance(A, { leaseMs: LONG });
      expect(await a.claimFile(claimInput('tool.csv', 'tool'))).toMatchObject({ status: 'resume', fileId, from: null, token: 1, reason: 'unowned' });
      expect(await suite.journal.console.fileOwners(fileId)).toEqual([{ at: expect.any(String), instance: A.id, from: null, token: 1, reason: 'unowned' }]);
      expect(await suite.journal.console.fileOwners(fileId + 1000)).toEqual([]);
    });
  });
}
