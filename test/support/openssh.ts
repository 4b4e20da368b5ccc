import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const SSHD_PATH = '/usr/sbin/sshd';

/** Installs openssh-server through apt when sshd is missing (CI runs as root with Debian's registry). */
export async function ensureOpenSshServer(): Promise<void> {
  if (existsSync(SSHD_PATH)) return;
  const asRoot = process.getuid?.() === 0;
  const prefix = asRoot ? [] : ['sudo', '-n'];
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...prefix, ...args];
    execFileSync(cmd!, rest, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  process.stderr.write('test setup: openssh-server is missing, installing it with apt-get\n');
  run(['apt-get', 'update', '-q']);
  run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', 'openssh-server']);
  if (!existsSync(SSHD_PATH)) throw new Error(`openssh-server installed but ${SSHD_PATH} is still missing`);
}
