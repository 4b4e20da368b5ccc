import { ensureAptPackage } from './apt.js';

/** Debian's chromium: the browser tests drive it with puppeteer-core, which never downloads a browser of its own. */
export const CHROMIUM_PATH = process.env.WISBRIDGE_CHROMIUM ?? '/usr/bin/chromium';

/** Installs Debian's chromium through apt when it is missing, like openssh-server. */
export async function ensureChromium(): Promise<void> {
  await ensureAptPackage('chromium', CHROMIUM_PATH);
}
