import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import { runInboundJob } from '../../src/pipeline/index.js';
import { sftpBacking } from '../drops/fixtures.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let server: SftpServer;
beforeAll(async () => {
  server = await startSftpServer();
});
afterAll(async () => {
  await server?.stop();
});

function sftpWorkspace(port = server.port) {
  const backing = sftpBacking(server);
  for (const f of ['inbox', 'outbox', 'archive', 'error']) backing.mkdir(f);
  const ws = workspace({
    url: emu.url, token: emu.token, dropRoot: backing.root,
    dropYaml: [
      '    type: sftp', `    host: ${server.host}`, `    port: ${port}`, `    username: ${server.username}`,
      '    private_key: { file: client_key }', `    host_key_fingerprint: "${server.hostKeyFingerprint}"`, `    root: ${backing.root}`,
      '    settle_ms: 0', '    reconnect_attempts: 2', '    reconnect_initial_delay_ms: 50', '    connect_timeout_ms: 3000',
    ].join('\n'),
  });
  writeFileSync(join(ws.dir, 'client_key'), server.privateKey, { mode: 0o600 });
  return ws;
}

describe('inbound pipeline over a real OpenSSH SFTP drop', () => {
  it('reads the inbox, writes result files to the outbox, moves sources to archive/ and error/', async () => {
    const ws = sftpWorkspace();
    ws.drop('KORR_20261120.csv');
    ws.drop('ACK_SO_20261120.csv');
    ws.drop('NOTHING_KNOWN.csv', 'A\n1\n');
    const runtime = await ws.runtime();
    try {
      const report = await runInboundJob(runtime, runtime.loaded.config.inbound[0]);
      expect(Object.fromEntries(report.files.map((f) => [f.file, f.outcome]))).toEqual({
        'KORR_20261120.csv': 'failed', 'ACK_SO_20261120.csv': 'done', 'NOTHING_KNOWN.csv': 'rejected',
      });
    } finally {
      await runtime.close();
    }
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('archive')).toEqual(['ACK_SO_20261120.csv', 'KORR_20261120.csv']);
    expect(ws.files('error')).toEqual(['NOTHING_KNOWN.csv', 'NOTHING_KNOWN.csv.error.txt']);
    expect(ws.files('outbox')).toEqual(['ACK_SO_20261120.result.csv', 'KORR_20261120.result.csv']);
    expect(ws.result('KORR_20261120.result.csv').map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'skipped', 'error']);
    expect(ws.result('ACK_SO_20261120.result.csv').map((r) => r.status)).toEqual(['ok', 'ok']);
    expect((await adminState(emu, ['adjustments'])).adjustments).toHaveLength(3);
  });

  it('an unreachable SFTP server is a fatal DROP_CONNECT error, not a file failure', async () => {
    const ws = sftpWorkspace(1);
    const runtime = await ws.runtime();
    try {
      const error = await runInboundJob(runtime, runtime.loaded.config.inbound[0]).catch((e: unknown) => e);
      expect(isWisbridgeError(error, 'DROP_CONNECT')).toBe(true);
    } finally {
      await runtime.close();
    }
  });
});
