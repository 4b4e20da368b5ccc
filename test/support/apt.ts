import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * Installs a Debian package through apt when `binary` is missing (CI runs as root with Debian's registry; a developer
 * without root needs passwordless sudo), like the README promises: nothing to set up by hand before `npm test`.
 */
export function ensureAptPackage(pkg: string, binary: string): void {
  if (existsSync(binary)) return;
  const prefix = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...prefix, ...args];
    execFileSync(cmd!, rest, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  process.stderr.write(`test setup: ${pkg} is missing, installing it with apt-get\n`);
  run(['apt-get', 'update', '-q']);
  run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', pkg]);
  if (!existsSync(binary)) throw new Error(`${pkg} installed but ${binary} is still missing`);
}
