import type { TestProject } from 'vitest/node';
import { ensureChromium } from './support/chromium.js';
import { ensureOpenSshServer } from './support/openssh.js';
import { startPostgres } from './support/postgres.js';

/**
 * Runs once before the whole suite. Installs Debian's openssh-server, chromium (the console's browser tests) and
 * postgresql when they are missing so that a fresh machine needs nothing but the README's test command, and starts
 * the one PostgreSQL server of the run (test/support/postgres.ts), stopped by the returned teardown. A server that
 * cannot start fails the run: the PostgreSQL tests are never skipped.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureOpenSshServer();
  await ensureChromium();
  const started = Date.now();
  const { stop, restart: _restart, ...postgres } = await startPostgres();
  process.stderr.write(`test setup: PostgreSQL ${postgres.version} on 127.0.0.1:${postgres.port} (started in ${Date.now() - started} ms)\n`);
  project.provide('postgres', postgres);
  return stop;
}
