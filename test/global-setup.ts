import { ensureOpenSshServer } from './support/openssh.js';

/**
 * Runs once before the whole suite. Installs Debian's openssh-server when it is missing so that a
 * fresh machine needs nothing but the README's test command.
 */
export default async function setup(): Promise<void> {
  await ensureOpenSshServer();
}
