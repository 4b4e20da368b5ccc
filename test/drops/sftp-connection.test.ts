import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDrop } from '../../src/drops/create.js';
import type { Drop } from '../../src/drops/index.js';
import { isWisbridgeError, type WisbridgeError } from '../../src/errors.js';
import { startDelayProxy } from '../support/delay-proxy.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { memoryLogger, waitForEvent } from '../service/support.js';
import { capturingLogger, sftpBacking, sftpOptions, type Backing } from './fixtures.js';

let server: SftpServer;
let backing: Backing;
beforeAll(async () => {
  server = await startSftpServer();
  backing = sftpBacking(server);
  backing.put('inbox/a.csv', 'a');
});
afterAll(async () => {
  server?.resume();
  await server?.stop();
});

const drops: Drop[] = [];
afterEach(async () => {
  server.resume();
  for (const d of drops.splice(0)) await d.close();
});
function open(extra: Record<string, unknown> = {}, logger = capturingLogger().logger): Drop {
  const drop = createDrop({ ...sftpOptions(server, backing.root), ...extra }, logger);
  drops.push(drop);
  return drop;
}
async function failure(promise: Promise<unknown>): Promise<WisbridgeError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(isWisbridgeError(error)).toBe(true);
  return error as WisbridgeError;
}
const OTHER_KEY = 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

describe('SFTP host keys and credentials', () => {
  it('refuses a host key that differs from the pinned fingerprint, naming both', async () => {
    const error = await failure(open({ hostKeyFingerprint: OTHER_KEY }).list('inbox'));
    expect(error.code).toBe('DROP_HOST_KEY');
    expect(error.message).toContain(server.hostKeyFingerprint);
    expect(error.message).toContain(OTHER_KEY);
  });

  it('refuses an unpinned host key unless insecureAcceptAnyHostKey is set, which logs a warning', async () => {
    const error = await failure(open({ hostKeyFingerprint: undefined }).list('inbox'));
    expect(error.code).toBe('DROP_HOST_KEY');
    expect(error.message).toMatch(/not pinned: it presented SHA256:\S+; set hostKeyFingerprint/);
    const { logger, lines } = capturingLogger();
    const insecure = open({ hostKeyFingerprint: undefined, insecureAcceptAnyHostKey: true }, logger);
    expect((await insecure.list('inbox')).map((e) => e.name)).toEqual(['a.csv']);
    const warning = lines.map((l) => JSON.parse(l)).find((l) => /INSECURE/.test(l.msg));
    expect(warning).toMatchObject({ level: 40, hostKey: server.hostKeyFingerprint });
  });

  it('logs in with a password when the server allows it; a wrong password is DROP_AUTH without echoing it', async () => {
    if (server.password === undefined) {
      // Not root: sshd has password logins switched off, so the wrong-password path is the one to check.
      const error = await failure(open({ privateKey: undefined, password: 'not-the-password-42' }).list('inbox'));
      expect(error.code).toBe('DROP_AUTH');
      return;
    }
    const { logger, lines } = capturingLogger();
    expect((await open({ privateKey: undefined, password: server.password }, logger).list('inbox')).length).toBe(1);
    const error = await failure(open({ privateKey: undefined, password: 'not-the-password-42' }, logger).list('inbox'));
    expect(error.code).toBe('DROP_AUTH');
    expect(error.message).not.toContain('not-the-password-42');
    expect(lines.join('\n')).not.toContain('not-the-password-42');
    expect(lines.join('\n')).not.toContain(server.password);
  });

  it('a private key from a file works; a key the server does not know is DROP_AUTH', async () => {
    const { writeFileSync } = await import('node:fs');
    const keyPath = backing.path('../client-key-copy');
    writeFileSync(keyPath, server.privateKey, { mode: 0o600 });
    expect((await open({ privateKey: undefined, privateKeyPath: keyPath }).list('inbox')).length).toBe(1);
    const { generateKeyPairSync } = await import('node:crypto');
    const stranger = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const error = await failure(open({ privateKey: stranger }).list('inbox'));
    expect(error.code).toBe('DROP_AUTH');
    const missing = await failure(open({ privateKey: undefined, privateKeyPath: '/nonexistent/key' }).list('inbox'));
    expect(missing.code).toBe('DROP_AUTH');
    expect(missing.message).toContain('/nonexistent/key');
  });

  it('an encrypted private key works with its passphrase; a wrong passphrase is DROP_AUTH without echoing it', async () => {
    const { writeFileSync, readFileSync } = await import('node:fs');
    const { execFileSync } = await import('node:child_process');
    const keyPath = backing.path('../client-key-encrypted');
    writeFileSync(keyPath, server.privateKey, { mode: 0o600 });
    execFileSync('ssh-keygen', ['-q', '-p', '-N', 'correct horse battery', '-P', '', '-f', keyPath]);
    const encrypted = readFileSync(keyPath, 'utf8');
    expect((await open({ privateKey: encrypted, passphrase: 'correct horse battery' }).list('inbox')).length).toBe(1);
    const { logger, lines } = capturingLogger();
    const error = await failure(open({ privateKey: encrypted, passphrase: 'wrong staple 99' }, logger).list('inbox'));
    expect(error.code).toBe('DROP_AUTH');
    expect(`${error.message}\n${lines.join('\n')}`).not.toMatch(/wrong staple 99|correct horse battery|PRIVATE KEY/);
  });

  it('rejects invalid options with CONFIG_INVALID and never echoes secrets', () => {
    let error: unknown;
    try {
      // eslint-disable-next-line no-restricted-syntax -- deliberately invalid options: createDrop must refuse them without echoing the password
      createDrop({ type: 'sftp', host: '127.0.0.1', username: 'u', password: 'hunter2-secret', hostKeyFingerprint: 'MD5:aa', port: 70000 } as never);
    } catch (e) { error = e; }
    expect(isWisbridgeError(error, 'CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toMatch(/hostKeyFingerprint: must look like SHA256/);
    expect((error as Error).message).toMatch(/port:/);
    expect((error as Error).message).not.toContain('hunter2-secret');
  });
});

describe('SFTP dead and unreachable servers', () => {
  let silent: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await new Promise((resolve) => (silent ? silent.close(resolve) : resolve(undefined)));
    silent = undefined;
  });

  it('runs concurrent calls over a single connection', async () => {
    const { logger, lines } = capturingLogger();
    const drop = open({}, logger);
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => drop.list('inbox')),
      ...Array.from({ length: 10 }, (_, i) => drop.writeAtomic('outbox', `c${i}.csv`, `content ${i}`)),
      ...Array.from({ length: 10 }, () => drop.stat('inbox', 'a.csv')),
    ]);
    expect(results.slice(0, 10).map((r) => (r as Array<{ name: string }>).map((e) => e.name))).toEqual(Array(10).fill(['a.csv']));
    expect(results.slice(20).map((r) => (r as { size: number }).size)).toEqual(Array(10).fill(1));
    expect((await drop.list('outbox')).map((e) => e.name)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}.csv`));
    expect(lines.filter((l) => l.includes('"msg":"SFTP connected"'))).toHaveLength(1);
  });

  it('sends the requests of concurrent calls together: a distant server\'s round trips overlap', async () => {
    // 200 ms each way: every request of a call sent at once leaves before the first answer comes back
    const proxy = await startDelayProxy(server, 200);
    try {
      const drop = open({ port: proxy.port, keepaliveIntervalMs: 0 });
      expect((await drop.stat('inbox', 'a.csv'))?.size).toBe(1);
      /** The bytes the client sent from `from` on, before the server's first answer after them. */
      const sentBeforeAnswer = (from: number) => {
        const after = proxy.traffic.slice(from);
        const answer = after.findIndex((chunk) => chunk.direction === 'down');
        return after.slice(0, answer < 0 ? after.length : answer).reduce((sum, chunk) => sum + chunk.bytes, 0);
      };
      let from = proxy.traffic.length;
      expect((await drop.stat('inbox', 'a.csv'))?.size).toBe(1);
      const one = sentBeforeAnswer(from);
      from = proxy.traffic.length;
      const sizes = await Promise.all(Array.from({ length: 10 }, () => drop.stat('inbox', 'a.csv')));
      expect(sizes.map((entry) => entry?.size)).toEqual(Array(10).fill(1));
      expect(one).toBeGreaterThan(0);
      // one at a time, a call's request would wait for the answer to the one before: one request's bytes
      expect(sentBeforeAnswer(from)).toBeGreaterThanOrEqual(8 * one);
    } finally {
      await proxy.close();
    }
  });

  it('closes an idle connection and reopens it on demand', async () => {
    const log = memoryLogger();
    const drop = open({ idleCloseMs: 100 }, log.logger);
    expect((await drop.list('inbox')).length).toBe(1);
    await waitForEvent(log, 'sftp.idle-closed');
    expect((await drop.list('inbox')).length).toBe(1);
    expect(log.records.filter((r) => r.msg === 'SFTP connected')).toHaveLength(2);
  });

  it('gives DROP_CONNECT after the configured attempts when nothing listens', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const { logger, lines } = capturingLogger();
    const error = await failure(open({ port, reconnectAttempts: 3, reconnectInitialDelayMs: 10 }, logger).list('inbox'));
    expect(error.code).toBe('DROP_CONNECT');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(lines.filter((l) => l.includes('SFTP connect failed; retrying'))).toHaveLength(2);
  });

  it('gives DROP_CONNECT when a server accepts but never speaks SSH', async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const error = await failure(open({ port, connectTimeoutMs: 300, reconnectAttempts: 1 }).list('inbox'));
    expect(error.code).toBe('DROP_CONNECT');
  });

  it('a frozen server times an operation out, close() still returns, and the drop works again afterwards', async () => {
    // The connect timeout is generous: after resume() the reconnect's handshake must succeed even on a busy machine
    // (500 ms failed once in CI); the frozen phase is bounded by the operation timeout.
    const drop = open({ operationTimeoutMs: 500, keepaliveIntervalMs: 0, endTimeoutMs: 200, connectTimeoutMs: 5000, reconnectAttempts: 1 });
    expect((await drop.list('inbox')).length).toBe(1);
    server.pause();
    const error = await failure(drop.list('inbox'));
    expect(['TIMEOUT', 'DROP_CONNECT']).toContain(error.code);
    server.resume();
    expect((await drop.list('inbox')).map((e) => e.name)).toEqual(['a.csv']);
    server.pause();
    await drop.close();
    server.resume();
    const closed = await failure(drop.list('inbox'));
    expect(closed.code).toBe('DROP_CONNECT');
  });
});
