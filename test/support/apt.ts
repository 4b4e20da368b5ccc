import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

// The lock files apt takes (apt-pkg's system lock, the frontend lock dpkg and apt share, the lists and archives
// folders' locks). Another apt run holding one made the whole suite fail at its global setup.
const LISTS_LOCK = '/var/lib/apt/lists/lock';
const FRONTEND_LOCK = '/var/lib/dpkg/lock-frontend';
const DPKG_LOCK = '/var/lib/dpkg/lock';
const ARCHIVES_LOCK = '/var/cache/apt/archives/lock';

/** How long the setup waits for another package manager run before it gives up (an upgrade can take minutes). */
const LOCK_TIMEOUT_S = 600;
const LOCK_POLL_MS = 500;
/** Runs of apt-get that fail while another run took a lock between the check and apt's start. */
const LOCKED_ATTEMPTS = 3;

export interface AptOptions {
  /** The lock files each apt-get command takes; a test holds one of its own instead. */
  locks?: { update: string[]; install: string[] };
  /** Runs apt-get with these arguments; a test records them instead of installing. */
  run?: (args: string[]) => Promise<void>;
  /** Where the setup says what it does (stderr). */
  say?: (line: string) => void;
  pollMs?: number;
  timeoutS?: number;
}

export interface LockHolder {
  path: string;
  /** The holder's process id, 0 when it runs in another PID namespace. */
  pid: number;
}

/** glibc's dev_t as the major:minor in hex that /proc/locks prints. */
function deviceInode(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  const { dev, ino } = statSync(path, { bigint: true });
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}:${ino}`;
}

/**
 * The locks held on these files, read from /proc/locks: apt's fcntl locks and flock(2) locks alike, without taking
 * one (taking it to test it would make a concurrent apt fail in our place).
 */
export function lockHolders(paths: string[]): LockHolder[] {
  const wanted = new Map<string, string>();
  for (const path of paths) {
    const key = deviceInode(path);
    if (key) wanted.set(key, path);
  }
  if (wanted.size === 0) return [];
  const holders: LockHolder[] = [];
  for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 1234 fe:00:402117 0 EOF"; a waiter's line has "->" after the number.
    const fields = line.trim().split(/\s+/);
    if (fields[1] === '->' || fields.length < 6) continue;
    const path = wanted.get(fields[5]!);
    if (path) holders.push({ path, pid: Number(fields[4]) });
  }
  return holders;
}

/** Resolves once no lock on `paths` is held, saying once that it waits and for whom. */
export async function waitForLocks(paths: string[], say: (line: string) => void, pollMs = LOCK_POLL_MS, timeoutS = LOCK_TIMEOUT_S): Promise<void> {
  const deadline = Date.now() + timeoutS * 1000;
  let said = false;
  for (;;) {
    const holders = lockHolders(paths);
    if (holders.length === 0) return;
    const who = holders.map((h) => `${h.path} (held by ${h.pid > 0 ? `process ${h.pid}` : 'another process'})`).join(', ');
    if (Date.now() > deadline) throw new Error(`the package manager's lock is still held after ${timeoutS} s: ${who}`);
    if (!said) say(`test setup: waiting for the package manager's lock: ${who}`);
    said = true;
    await sleep(pollMs);
  }
}

function runAptGet(args: string[]): Promise<void> {
  const prefix = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const [cmd, ...rest] = [...prefix, 'apt-get', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, rest, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${[cmd, ...rest].join(' ')} failed (${signal ?? `exit ${code}`})`))));
  });
}

/**
 * Installs `pkg` with apt-get update and install, each after the locks it takes are free. apt waits for the dpkg
 * locks itself (DPkg::Lock::Timeout, printing its own "Waiting for cache lock"), but not for the lists lock of
 * `apt-get update`, so the locks are checked first; a command that fails because a lock was taken after the check
 * waits and runs again.
 */
export async function installAptPackage(pkg: string, options: AptOptions = {}): Promise<void> {
  const locks = options.locks ?? { update: [LISTS_LOCK], install: [FRONTEND_LOCK, DPKG_LOCK, ARCHIVES_LOCK] };
  const run = options.run ?? runAptGet;
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const timeoutS = options.timeoutS ?? LOCK_TIMEOUT_S;
  const wait = ['-o', `DPkg::Lock::Timeout=${timeoutS}`];
  const steps: [string[], string[]][] = [
    [locks.update, [...wait, 'update', '-q']],
    [locks.install, [...wait, 'install', '-y', '-q', '--no-install-recommends', pkg]],
  ];
  for (const [paths, args] of steps) {
    for (let attempt = 1; ; attempt++) {
      await waitForLocks(paths, say, options.pollMs, timeoutS);
      try {
        await run(args);
        break;
      } catch (error) {
        if (attempt >= LOCKED_ATTEMPTS || lockHolders(paths).length === 0) throw error;
      }
    }
  }
}

/**
 * Installs a Debian package through apt when `binary` is missing (CI runs as root with Debian's registry; a developer
 * without root needs passwordless sudo), like the README promises: nothing to set up by hand before `npm test`.
 */
export async function ensureAptPackage(pkg: string, binary: string, options: AptOptions = {}): Promise<void> {
  if (existsSync(binary)) return;
  process.stderr.write(`test setup: ${pkg} is missing, installing it with apt-get\n`);
  await installAptPackage(pkg, options);
  if (!existsSync(binary)) throw new Error(`${pkg} installed but ${binary} is still missing`);
}
