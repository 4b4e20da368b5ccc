import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A configuration for starting commands: one local drop with an empty inbox, a SQLite journal (created by the first
 * `batch`), a service nothing calls. Used by bench/startup.ts and test/cli/startup-modules.test.ts.
 */
export function startupWorkspace(repository: string): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'wb-startup-'));
  for (const f of ['inbox', 'outbox', 'archive', 'error']) mkdirSync(join(dir, 'drop', f), { recursive: true });
  writeFileSync(join(dir, 'token'), 'startup-token', { mode: 0o600 });
  const config = join(dir, 'wisbridge.yaml');
  writeFileSync(config, [
    `journal: ${join(dir, 'journal.sqlite')}`,
    `mappings: ${join(repository, 'mappings')}`,
    'services:',
    '  wis: { url: "http://127.0.0.1:9", token: { file: token } }',
    'drops:',
    `  wms: { type: local, root: ${join(dir, 'drop')}, settle_ms: 0, watch_events: false }`,
    'inbound:',
    '  - { name: wms-in, drop: wms, service: wis }',
    'log: { level: fatal }',
    '',
  ].join('\n'));
  return { dir, config };
}
