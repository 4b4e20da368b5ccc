import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import { WorkerThread } from '../../src/runtime/worker-thread.js';
import { processSemiSpaceMb } from '../../src/runtime/young-generation.js';

const echoWorker = new URL('../support/echo-worker', import.meta.url);

describe('WorkerThread', () => {
  it('answers calls by operation name; a thrown WisbridgeError comes back with its code and details', async () => {
    const thread = new WorkerThread(echoWorker, { greeting: 'hello' }, 'echo', 'JOURNAL');
    try {
      await thread.ready;
      expect(await thread.call('echo', [{ n: 1 }])).toEqual({ greeting: 'hello', value: { n: 1 } });
      const error = await thread.call('refuse', ['page 3 is not JSON']).catch((e: unknown) => e);
      expect(isWisbridgeError(error, 'CONTRACT_VIOLATION')).toBe(true);
      expect(error).toMatchObject({ message: 'page 3 is not JSON', details: { endpoint: 'customerShipments.list' } });
      expect(thread.failed).toBe(false);
      const unknown = await thread.call('nope', []).catch((e: unknown) => e);
      expect(isWisbridgeError(unknown, 'JOURNAL')).toBe(true);
      expect((unknown as Error).message).toMatch(/unknown operation nope/);
    } finally {
      await thread.close();
    }
  });

  it('a thread that dies fails the calls in flight and every later call with its failure code', async () => {
    const thread = new WorkerThread(echoWorker, { greeting: 'hi' }, 'echo', 'JOURNAL');
    await thread.ready;
    const dying = thread.call('die', []).catch((e: unknown) => e);
    const queued = thread.call('echo', ['after']).catch((e: unknown) => e); // sent, never answered
    for (const error of await Promise.all([dying, queued])) {
      expect(isWisbridgeError(error, 'JOURNAL')).toBe(true);
      expect((error as Error).message).toBe('the echo thread ended');
    }
    expect(thread.failed).toBe(true);
    expect(isWisbridgeError(await thread.call('echo', [1]).catch((e: unknown) => e), 'JOURNAL')).toBe(true);
    await thread.close(); // nothing left to close: no hang, no throw
  });

  it('a module that cannot be loaded fails ready, and with it every call', async () => {
    const thread = new WorkerThread(new URL('../support/no-such-worker', import.meta.url), {}, 'echo', undefined);
    const error = await thread.ready.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(thread.failed).toBe(true);
    await expect(thread.call('echo', [1])).rejects.toBe(error);
    await thread.close();
  });

  it('a thread asking for semi-spaces gets them, also where the process flag sets every isolate\'s; the flag is set back after its start', () => {
    // Production runs with --max-semi-space-size=8, which V8 applies to every isolate it creates, overriding a
    // Worker's own young generation limit. The young generation grows to twice the semi-space.
    const probe = fileURLToPath(new URL('../support/semi-space-probe.ts', import.meta.url));
    for (const how of ['argv', 'NODE_OPTIONS']) {
      const flag = how === 'argv' ? ['--max-semi-space-size=8'] : [];
      const env = how === 'argv' ? process.env : { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-semi-space-size=8` };
      const out = execFileSync(process.execPath, [...flag, '--import', 'tsx', probe], { encoding: 'utf8', timeout: 60_000, env });
      expect(JSON.parse(out), how).toEqual({ sized: 32, plain: 16, main: 16 });
    }
  });

  it('without the process flag, the thread\'s resource limits size its semi-spaces', async () => {
    expect(processSemiSpaceMb()).toBeUndefined();
    const thread = new WorkerThread(echoWorker, { greeting: 'sized' }, 'echo', undefined, { semiSpaceMb: 4 });
    try {
      await thread.ready;
      expect(await thread.call('newSpaceMb', [])).toBe(8);
    } finally {
      await thread.close();
    }
  });

  it('reads the process\'s semi-space flag from NODE_OPTIONS and the command line, in either spelling, the last one winning', () => {
    expect(processSemiSpaceMb(['--max-old-space-size=128', '--max-semi-space-size=8'], '')).toBe(8);
    expect(processSemiSpaceMb([], '--max-old-space-size=128 --max-semi-space-size=8')).toBe(8);
    expect(processSemiSpaceMb(['--max-semi-space-size=4'], '--max-semi-space-size=8')).toBe(4);
    expect(processSemiSpaceMb(['--max_semi_space_size=4', '--max-semi-space-size=16'], '')).toBe(16);
    expect(processSemiSpaceMb(['--max-semi-space-size'], '')).toBeUndefined();
    expect(processSemiSpaceMb([], '')).toBeUndefined();
  });
});
