import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installAptPackage, lockHolders } from './apt.js';

const dir = mkdtempSync(join(tmpdir(), 'wb-apt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child process holding flock(2) on `path` until its stdin closes; resolves once it holds it. */
async function holdLock(path: string): Promise<ChildProcess> {
  const holder = spawn('flock', ['--exclusive', path, 'sh', '-c', 'echo held; cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [chunk] = (await once(holder.stdout!, 'data')) as [Buffer];
  expect(chunk.toString()).toBe('held\n');
  return holder;
}

describe('installing a package with apt', () => {
  it('waits for a held lock and says so, then runs apt-get update and install with apt waiting for its own locks', async () => {
    const lists = join(dir, 'lists-lock');
    const frontend = join(dir, 'lock-frontend');
    writeFileSync(lists, '');
    writeFileSync(frontend, '');
    const holder = await holdLock(lists);
    expect(lockHolders([lists, frontend])).toEqual([{ path: lists, pid: holder.pid }]);
    const ran: string[][] = [];
    let announced!: (line: string) => void;
    const said = new Promise<string>((resolve) => { announced = resolve; });
    const lines: string[] = [];
    const installing = installAptPackage('some-package', {
      locks: { update: [lists], install: [frontend] },
      run: async (args) => { ran.push(args); },
      say: (line) => { lines.push(line); announced(line); },
      pollMs: 20,
    });
    expect(await Promise.race([said, installing.then(() => 'installed without waiting')])).toBe(`test setup: waiting for the package manager's lock: ${lists} (held by process ${holder.pid})`);
    expect(ran).toEqual([]);
    holder.stdin!.end();
    await installing;
    expect(lines).toHaveLength(1);
    expect(ran).toEqual([
      ['-o', 'DPkg::Lock::Timeout=600', 'update', '-q'],
      ['-o', 'DPkg::Lock::Timeout=600', 'install', '-y', '-q', '--no-install-recommends', 'some-package'],
    ]);
  });

  it('says nothing when no lock is held, and runs again a command that failed on a lock taken after the check', async () => {
    const lock = join(dir, 'lock');
    writeFileSync(lock, '');
    const lines: string[] = [];
    const ran: string[][] = [];
    let holder: ChildProcess | undefined;
    await installAptPackage('other-package', {
      locks: { update: [lock], install: [] },
      run: async (args) => {
        ran.push(args);
        if (ran.length === 1) {
          // Another apt run took the lock between the check and apt-get's start: apt-get fails, the lock is held.
          holder = await holdLock(lock);
          setImmediate(() => holder!.stdin!.end());
          throw new Error('E: Could not get lock /var/lib/apt/lists/lock');
        }
      },
      say: (line) => { lines.push(line); },
      pollMs: 20,
    });
    expect(ran.map((args) => args[2])).toEqual(['update', 'update', 'install']);
    expect(lines).toEqual([`test setup: waiting for the package manager's lock: ${lock} (held by process ${holder!.pid})`]);
  });

  it('does not run apt-get again after a failure that no lock explains', async () => {
    const ran: string[][] = [];
    const failing = installAptPackage('missing-package', {
      locks: { update: [join(dir, 'absent')], install: [] },
      run: async (args) => { ran.push(args); throw new Error('E: Unable to locate package missing-package'); },
      say: () => {},
    });
    await expect(failing).rejects.toThrow('E: Unable to locate package missing-package');
    expect(ran).toHaveLength(1);
  });
});
