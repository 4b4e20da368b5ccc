import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { SSHD_PATH, ensureOpenSshServer } from './openssh.js';

/**
 * A real OpenSSH SFTP server for tests: Debian's sshd on a free loopback port, generated host and client
 * keys, `internal-sftp`, over a temporary folder. No chroot: remote paths are the local absolute paths,
 * so `root` works on both sides.
 *
 * When the tests run as root (CI), logins use the unprivileged account `wisbridge-sftp` (created once with
 * useradd) so that file permissions apply, as they would for a real WMS account. Its password is
 * TEST_SFTP_PASSWORD; sshd only listens on 127.0.0.1. As another user, logins use that user, key only.
 */
export interface SftpServer {
  host: '127.0.0.1';
  port: number;
  username: string;
  /** OpenSSH private key text of the client key. */
  privateKey: string;
  /** Set when password logins work (tests running as root). */
  password?: string;
  /** `SHA256:...` of the server's host key, as printed by `ssh-keygen -lf`. */
  hostKeyFingerprint: string;
  /** Folder the login user owns; its path is also its remote path. */
  root: string;
  /** uid/gid of the login user, to chown fixtures created by the test process. */
  uid: number;
  gid: number;
  stop(): Promise<void>;
  /** Kills sshd and every session (connections drop), then starts it again on the same port. */
  restart(): Promise<void>;
  /** Freezes sshd and its sessions (SIGSTOP): a server that accepts bytes and never answers. */
  pause(): void;
  /** Undoes pause() (SIGCONT). */
  resume(): void;
}

export const TEST_SFTP_USER = 'wisbridge-sftp';
export const TEST_SFTP_PASSWORD = 'wisbridge-sftp-test-password';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) killTree(child.pid, 'SIGKILL');
});

export async function startSftpServer(options: { root?: string } = {}): Promise<SftpServer> {
  await ensureOpenSshServer();
  const asRoot = process.getuid?.() === 0;
  const account = asRoot ? ensureTestAccount() : { username: userInfo().username, uid: userInfo().uid, gid: userInfo().gid };
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-sshd-'));
  chmodSync(dir, 0o755);
  const root = options.root ?? join(dir, 'root');
  mkdirSync(root, { recursive: true });
  if (asRoot) chownSync(root, account.uid, account.gid);
  if (asRoot) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const hostKey = join(dir, 'ssh_host_ed25519_key');
  const clientKey = join(dir, 'client_ed25519_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'wisbridge-test-host', '-f', hostKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'wisbridge-test-client', '-f', clientKey]);
  const authorizedKeys = join(dir, 'authorized_keys');
  writeFileSync(authorizedKeys, readFileSync(`${clientKey}.pub`), { mode: 0o644 });
  const hostKeyFingerprint = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${hostKey}.pub`], { encoding: 'utf8' }).split(' ')[1]!;

  let port = await freePort();
  const configPath = join(dir, 'sshd_config');
  const writeConfig = () => writeFileSync(configPath, [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKey}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${authorizedKeys}`,
    'StrictModes no',
    'UsePAM no',
    `PasswordAuthentication ${asRoot ? 'yes' : 'no'}`,
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    'PermitRootLogin no',
    `AllowUsers ${account.username}`,
    'Subsystem sftp internal-sftp',
    'MaxStartups 100:30:200',
    'MaxSessions 50',
    'LogLevel ERROR',
    '',
  ].join('\n'));

  let child: ChildProcess | undefined;
  let log = '';
  const launch = async (): Promise<void> => {
    for (let attempt = 1; ; attempt += 1) {
      writeConfig();
      log = '';
      const proc = spawn(SSHD_PATH, ['-D', '-e', '-f', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
      proc.stderr!.on('data', (chunk: Buffer) => { log = (log + chunk.toString()).slice(-4000); });
      running.add(proc);
      proc.once('exit', () => running.delete(proc));
      try {
        await waitForBanner(port, proc, () => log);
        child = proc;
        return;
      } catch (error) {
        killTree(proc.pid, 'SIGKILL');
        if (attempt >= 5 || !/Address already in use|Bind to port/i.test(log)) throw error;
        port = await freePort();
      }
    }
  };
  const halt = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    killTree(proc.pid, 'SIGKILL');
    await exited;
  };

  await launch();
  return {
    host: '127.0.0.1',
    get port() { return port; },
    username: account.username,
    privateKey: readFileSync(clientKey, 'utf8'),
    ...(asRoot ? { password: TEST_SFTP_PASSWORD } : {}),
    hostKeyFingerprint,
    root,
    uid: account.uid,
    gid: account.gid,
    async stop() {
      killTree(child?.pid, 'SIGCONT');
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
    pause() {
      killTree(child?.pid, 'SIGSTOP');
    },
    resume() {
      killTree(child?.pid, 'SIGCONT');
    },
    async restart() {
      await halt();
      const before = port;
      await launch();
      if (port !== before) throw new Error(`sshd restarted on port ${port} instead of ${before}`);
    },
  };
}

let passwordSet = false;

function retrying(action: () => void): void {
  for (let attempt = 1; ; attempt += 1) {
    try {
      action();
      return;
    } catch (error) {
      if (attempt >= 30) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

function ensureTestAccount(): { username: string; uid: number; gid: number } {
  const lookup = () => {
    try {
      const uid = Number(execFileSync('id', ['-u', TEST_SFTP_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', TEST_SFTP_USER], { encoding: 'utf8' }).trim());
      return { username: TEST_SFTP_USER, uid, gid };
    } catch {
      return undefined;
    }
  };
  let account = lookup();
  if (!account) {
    retrying(() => {
      if (lookup()) return; // a parallel test file created it first
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/bin/sh', TEST_SFTP_USER], { stdio: 'ignore' });
    });
    account = lookup();
    if (!account) throw new Error(`cannot create the test account ${TEST_SFTP_USER}`);
  }
  // sshd without PAM refuses accounts whose password is locked ("!"), even for key logins. Parallel test
  // files may hold the lock on /etc/shadow for a moment: retry.
  if (!passwordSet) {
    retrying(() => execFileSync('chpasswd', [], { input: `${TEST_SFTP_USER}:${TEST_SFTP_PASSWORD}\n`, stdio: ['pipe', 'ignore', 'pipe'] }));
    passwordSet = true;
  }
  return account;
}

/** Kills a process and all its descendants (sshd's per-connection children detach with setsid). */
function killTree(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // the process ended meanwhile
    }
  }
  const order: number[] = [];
  const visit = (p: number) => { order.push(p); for (const c of children.get(p) ?? []) visit(c); };
  visit(pid);
  for (const p of order) {
    try { process.kill(p, signal); } catch { /* already gone */ }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once sshd answers with its SSH banner; rejects when it exits or takes longer than 10 s. */
async function waitForBanner(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`sshd exited (${proc.exitCode ?? proc.signalCode}): ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      const finish = (value: boolean) => { socket.destroy(); resolve(value); };
      socket.setTimeout(1000, () => finish(false));
      socket.once('data', (data) => finish(data.toString().startsWith('SSH-')));
      socket.once('error', () => finish(false));
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`sshd did not accept connections on port ${port} within 10 s: ${log()}`);
}

