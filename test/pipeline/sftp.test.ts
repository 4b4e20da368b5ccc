import { chownSync, lstatSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import { StableFileWatcher } from '../../src/drops/index.js';
import { processFile, runInboundJob } from '../../src/pipeline/index.js';
import { sftpDropConfig } from '../drops/fixtures.js';
import { adminState, useEmulator } from '../support/emulator.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { cli, finished, korr, workspace } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let server: SftpServer;
beforeAll(async () => {
  server = await startSftpServer();
});
afterAll(async () => {
  await server?.stop();
});

function sftpWorkspace(port = server.port) {
  const drop = sftpDropConfig(server, { port, extra: ['reconnect_attempts: 2', 'reconnect_initial_delay_ms: 50', 'connect_timeout_ms: 3000'] });
  const ws = workspace({ url: emu.url, token: emu.token, dropRoot: drop.backing.root, dropYaml: drop.yaml });
  drop.writeKey(ws.dir);
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

describe('inbound integrity over a real OpenSSH SFTP drop', () => {
  const SECRET = 'eyJhbGciOi-A-TOKEN-OUTSIDE-THE-INBOX';

  it('a symbolic link renamed over a listed file is refused before anything is read; it goes to error/ with a reason', async () => {
    const ws = sftpWorkspace();
    const secret = join(mkdtempSync(join(tmpdir(), 'wb-secret-')), 'token');
    writeFileSync(secret, `${SECRET}\n`);
    ws.drop('ACK_SO_link.csv', 'NUMBER\nSO-1001\n');
    const runtime = await ws.runtime();
    try {
      const [ready] = await new StableFileWatcher(await runtime.drop('wms'), { settleMs: 0 }).scanReady();
      expect(ready?.name).toBe('ACK_SO_link.csv');
      const link = join(ws.folder('inbox'), '.link');
      symlinkSync(secret, link);
      if (process.getuid?.() === 0) chownSync(link, lstatSync(ws.folder('inbox')).uid, lstatSync(ws.folder('inbox')).gid);
      renameSync(link, join(ws.folder('inbox'), 'ACK_SO_link.csv'));
      const report = await processFile(runtime, runtime.loaded.config.inbound[0]!, ready!);
      expect(report.outcome).toBe('rejected');
      expect(report.reason).toMatch(/^DROP_NOT_REGULAR: drop wms: inbox\/ACK_SO_link\.csv is a symbolic link, not a regular file/);
      expect(report.requests).toBe(0);
    } finally {
      await runtime.close();
    }
    expect(ws.files('error')).toEqual(['ACK_SO_link.csv', 'ACK_SO_link.csv.error.txt']);
    expect(lstatSync(join(ws.folder('error'), 'ACK_SO_link.csv')).isSymbolicLink()).toBe(true);
    for (const role of ['outbox', 'error'] as const) {
      for (const name of readdirSync(ws.folder(role))) {
        const path = join(ws.folder(role), name);
        if (lstatSync(path).isFile()) expect(readFileSync(path, 'utf8')).not.toContain(SECRET);
      }
    }
  });

  it('a file replaced while the bridge maps its copy stays in the inbox and is processed on its own; the claimed rows are applied once', async () => {
    const ws = sftpWorkspace();
    const rows = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `SKU-00001;1;Fund;${prefix}-${i + 1};19.11.2026;;ACME`);
    ws.drop('KORR_swap.csv', korr(rows('OLD', 3)));
    const runtime = await ws.runtime();
    let swapped = false;
    try {
      const first = await processFile(runtime, runtime.loaded.config.inbound[0]!, 'KORR_swap.csv', {
        onProgress: () => {
          if (swapped) return;
          swapped = true;
          writeFileSync(join(ws.folder('inbox'), '.next'), korr(rows('NEW', 2)));
          renameSync(join(ws.folder('inbox'), '.next'), join(ws.folder('inbox'), 'KORR_swap.csv'));
        },
      });
      expect(first.outcome).toBe('done');
      expect(first.reason).toMatch(/^DROP_CHANGED: /);
      expect(ws.files('archive')).toEqual([]);
      const second = (await runInboundJob(runtime, runtime.loaded.config.inbound[0]!)).files[0]!;
      expect(second.outcome).toBe('done');
      expect(second.rows.ok).toBe(2);
    } finally {
      await runtime.close();
    }
    const refs = (await adminState(emu, ['adjustments'])).adjustments.map((a: { reference: string }) => a.reference).sort();
    expect(refs).toEqual(['NEW-1', 'NEW-2', 'OLD-1', 'OLD-2', 'OLD-3']);
    expect(ws.files('archive')).toEqual(['KORR_swap.csv']);
    expect(ws.files('outbox')).toHaveLength(2);
  });

  it('a backslash name and a 250-byte name go to error/; the good file after them is processed', async () => {
    const ws = sftpWorkspace();
    const long = `KORR_${'y'.repeat(241)}.csv`;
    ws.drop('KORR\\20261121.csv', korr(['SKU-00001;1;Fund;BS-1;19.11.2026;;ACME']));
    ws.drop(long, korr(['SKU-00001;1;Fund;LONG-1;19.11.2026;;ACME']));
    ws.drop('KORR_20261120.csv');
    const runtime = await ws.runtime();
    try {
      const report = await runInboundJob(runtime, runtime.loaded.config.inbound[0]!);
      expect(Object.fromEntries(report.files.map((f) => [f.file, f.outcome]))).toEqual({
        'KORR\\20261121.csv': 'rejected', [long]: 'rejected', 'KORR_20261120.csv': 'failed',
      });
    } finally {
      await runtime.close();
    }
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('error')).toContain('KORR\\20261121.csv.error.txt');
    expect(ws.files('error')).toContain(long);
    expect((await adminState(emu, ['adjustments'])).adjustments).toHaveLength(3);
  });

  it('kill -9 after the result file, before the move: the restart archives the file once and keeps its result file', async () => {
    const ws = sftpWorkspace();
    ws.drop('KORR_20261120.csv');
    const crashed = await finished(cli(['batch', '--config', ws.configFile], { WISBRIDGE_FAILPOINTS: 'drop.before-move=kill' }));
    expect(crashed.signal).toBe('SIGKILL');
    expect(ws.files('inbox')).toEqual(['KORR_20261120.csv']);
    const realResult = ws.read('outbox', 'KORR_20261120.result.csv');
    const restart = await finished(cli(['batch', '--config', ws.configFile]));
    expect(restart.code, restart.stderr).toBe(1);
    expect(ws.files('inbox')).toEqual([]);
    expect(ws.files('archive')).toEqual(['KORR_20261120.csv']);
    expect(ws.files('outbox')).toEqual(['KORR_20261120.result.csv']);
    expect(ws.read('outbox', 'KORR_20261120.result.csv')).toBe(realResult);
    expect((await adminState(emu, ['adjustments'])).adjustments).toHaveLength(3);
  });
});
