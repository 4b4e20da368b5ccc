import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openJournal, type InstanceInfo, type Journal } from '../../src/journal/index.js';
import { tempDir } from '../../src/journal/test-support.js';

/*
 * The single instance of a SQLite journal is held by a lock (src/journal/sqlite/instance-lock.ts), not judged from
 * the instances' host, pid and heartbeat: other processes (test/journal/instance-child.ts) register on one file.
 * The instances here share a host name and a pid, as containers of one host name each running the bridge as process 1.
 */

const CHILD = fileURLToPath(new URL('./instance-child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const LONG = 60_000;

function startChild(path: string, instance: InstanceInfo) {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, path, instance.host, String(instance.pid), instance.id], {
    cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, out }));
  });
  /** The child's first line: `registered FILE_ID` or `refused CODE: MESSAGE`. */
  const said = new Promise<string>((resolve, reject) => {
    const check = () => (out.includes('\n') ? resolve(out.slice(0, out.indexOf('\n'))) : undefined);
    child.stdout.on('data', check);
    child.on('close', () => reject(new Error(`the child exited without a word: ${out}${err}`)));
  });
  return { child, exited, said };
}

let tmp: ReturnType<typeof tempDir>;
const cleanups: Array<() => unknown> = [];
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  tmp.remove();
});

async function journal(instance: InstanceInfo): Promise<Journal> {
  const opened = await openJournal(tmp.path, { instance, leaseMs: LONG });
  cleanups.push(() => opened.close());
  return opened;
}

function child(instance: InstanceInfo) {
  const started = startChild(tmp.path, instance);
  cleanups.push(() => {
    if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
    return started.exited;
  });
  return started;
}

const pod = (host: string, id: string): InstanceInfo => ({ id, host, pid: 1, version: 'test' });

describe('a SQLite journal serves one instance, held by a lock', () => {
  it('a second process is refused while the first lives, though both have the same host and pid; the holder is named by its host and pid', async () => {
    const first = child(pod('bridge', 'bridge-1-aaaaaa'));
    expect(await first.said).toMatch(/^registered \d+$/);
    const second = child(pod('bridge', 'bridge-1-bbbbbb'));
    expect(await second.said).toMatch(new RegExp('^refused JOURNAL: another wisbridge instance \\(bridge, pid 1, started \\S+\\) uses this SQLite journal: '
      + 'a SQLite journal serves one instance; stop it, or put the journal on PostgreSQL to run several \\(docs/operations\\.md\\)$'));
    expect((await second.exited).code).toBe(3);
    // The first one works on: its file is still its own.
    const reader = await openJournal(tmp.path);
    cleanups.push(() => reader.close());
    expect((await reader.listInstances()).map((i) => [i.id, i.stoppedAt])).toEqual([['bridge-1-aaaaaa', null]]);
  });

  it('a holder killed with SIGKILL frees the journal at once: the next instance (a new host name) registers and resumes its file without waiting for its lease', async () => {
    const first = child(pod('bridge-7f9c', 'bridge-7f9c-1-aaaaaa'));
    const fileId = Number((await first.said).split(' ')[1]);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const next = await journal(pod('bridge-d41e', 'bridge-d41e-1-bbbbbb'));
    await next.registerInstance();
    expect((await next.listInstances()).map((i) => [i.id, i.stoppedAt !== null])).toEqual([['bridge-7f9c-1-aaaaaa', true], ['bridge-d41e-1-bbbbbb', false]]);
    // Its lease of a minute has not run out, yet the file is this instance's to resume.
    expect(await next.claimFile({ drop: 'd', name: 'held.csv', checksum: 'sum-held', size: 1, mapping: 'adjustments' })).toMatchObject({ status: 'resume', fileId });
    expect((await next.getFile(fileId)).lease).toMatchObject({ owner: 'bridge-d41e-1-bbbbbb', token: 2 });
  });

  it('a record of this very host and pid that holds no lock (a restart whose pid came back) is a process gone: the new instance registers and takes its file', async () => {
    const here: InstanceInfo = { id: `${hostname()}-${process.pid}-aaaaaa`, host: hostname(), pid: process.pid, version: 'test' };
    const before = await openJournal(tmp.path, { instance: here, leaseMs: LONG });
    await before.registerInstance();
    const { fileId } = await before.claimFile({ drop: 'd', name: 'held.csv', checksum: 'sum-held', size: 1, mapping: 'adjustments' });
    // Ended without retiring: the journal closed, its instance still listed as running, its lease alive.
    await before.close();

    const next = await journal({ ...here, id: `${hostname()}-${process.pid}-bbbbbb` });
    await next.registerInstance();
    expect((await next.listInstances()).find((i) => i.id === here.id)?.stoppedAt).toEqual(expect.any(String));
    expect(await next.claimFile({ drop: 'd', name: 'held.csv', checksum: 'sum-held', size: 1, mapping: 'adjustments' })).toMatchObject({ status: 'resume', fileId });
  });
});
