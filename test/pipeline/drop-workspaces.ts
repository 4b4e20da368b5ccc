import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sftpDropConfig } from '../drops/fixtures.js';
import type { EmulatorHandle } from '../support/emulator.js';
import type { SftpServer } from '../support/sftp-server.js';
import { workspace, type Workspace } from './helpers.js';

/** Workspaces whose drop is local or a real OpenSSH server, with extra drop options (YAML lines): one test, both drops. */
export function dropWorkspaces(emu: EmulatorHandle, server: () => SftpServer): Record<'local' | 'sftp', (options: string[]) => Workspace> {
  return {
    local(options) {
      const root = join(tmpdir(), `wb-drop-${process.pid}-${Math.random().toString(36).slice(2)}`);
      return workspace({
        url: emu.url, token: emu.token, dropRoot: root,
        dropYaml: ['    type: local', `    root: ${root}`, '    settle_ms: 0', '    watch_events: false', '    fsync: false', ...options.map((o) => `    ${o}`)].join('\n'),
      });
    },
    sftp(options) {
      const drop = sftpDropConfig(server(), { extra: options });
      const ws = workspace({ url: emu.url, token: emu.token, dropRoot: drop.backing.root, dropYaml: drop.yaml });
      drop.writeKey(ws.dir);
      return ws;
    },
  };
}
