import { ensureChromium } from './support/chromium.js';
import { ensureOpenSshServer } from './support/openssh.js';

/**
 * Runs once before the whole suite. Installs Debian's openssh-server and chromium (the console's browser tests)
 * when they are missing so that a fresh machine needs nothing but the README's test command.
 */
export default async function setup(): Promise<void> {
  await ensureOpenSshServer();
  await ensureChromium();
}
