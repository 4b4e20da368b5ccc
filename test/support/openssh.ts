import { ensureAptPackage } from './apt.js';

export const SSHD_PATH = '/usr/sbin/sshd';

/** Installs openssh-server through apt when sshd is missing. */
export async function ensureOpenSshServer(): Promise<void> {
  await ensureAptPackage('openssh-server', SSHD_PATH);
}
