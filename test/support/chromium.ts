import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's chromium: the browser tests drive it with puppeteer-core, which never downloads a browser of its own. */
export const CHROMIUM_PATH = process.env.WISBRIDGE_CHROMIUM ?? '/usr/bin/chromium';

/** Installs Debian's chromium through apt when it is missing (CI runs as root with Debian's registry), like openssh-server. */
export async function ensureChromium(): Promise<void> {
  if (existsSync(CHROMIUM_PATH)) return;
  const prefix = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...prefix, ...args];
    execFileSync(cmd!, rest, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  process.stderr.write('test setup: chromium is missing, installing it with apt-get\n');
  run(['apt-get', 'update', '-q']);
  run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', 'chromium']);
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`chromium installed but ${CHROMIUM_PATH} is still missing`);
}
