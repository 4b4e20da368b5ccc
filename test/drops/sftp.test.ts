import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import SftpClient from 'ssh2-sftp-client';
import { createDrop } from '../../src/drops/create.js';
import { disposeFile, hostKeyFingerprint, StableFileWatcher, type Drop, type ReadyFile } from '../../src/drops/index.js';
import { isWisbridgeError } from '../../src/errors.js';
import { startSftpServer, type SftpServer } from '../support/sftp-server.js';
import { describeDropBehaviour } from './behaviour.js';
import { capturingLogger, sftpBacking, sftpOptions, withListHook, type Backing } from './fixtures.js';
import type { Logger } from '../../src/log.js';

let server: SftpServer;
beforeAll(async () => { server = await startSftpServer(); });
afterAll(async () => { await server?.stop(); });

describeDropBehaviour('sftp', async () => {
  const backing = sftpBacking(server);
  return { backing, drop: (extra = {}) => createDrop({ ...sftpOptions(server, backing.root), ...extra }) };
});

describe('sftp drop against OpenSSH', () => {
  let backing: Backing;
  const drops: Drop[] = [];
  const open = (extra = {}, logger?: Logger) => { const d = createDrop({ ...sftpOptions(server, backing.root), ...extra }, logger); drops.push(d); return d; };
  afterEach(async () => {
    for (const d of drops.splice(0)) await d.close();
    backing?.cleanup();
  });

  it('a reader on a second connection never sees a partial file under the final name', async () => {
    backing = sftpBacking(server);
    const drop = open();
    const observer = new SftpClient('observer');
    await observer.connect({ host: server.host, port: server.port, username: server.username, privateKey: server.privateKey, hostVerifier: () => true });
    const outbox = `${backing.root}/outbox`;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const total = 160 * chunk.length; // 10 MiB
    const sightings: Array<{ name: string; size: number }> = [];
    let sawTemporary = false;
    async function* source() {
      for (let i = 0; i < total / chunk.length; i += 1) {
        yield chunk;
        // Half-way, hold the upload until the observer has seen it in progress under a temporary name.
        if (i === 80) {
          while (!sawTemporary) {
            const items = existsSync(outbox) ? await observer.list(outbox) : [];
            for (const item of items) sightings.push({ name: item.name, size: item.size });
            sawTemporary = items.some((item) => item.name.startsWith('.') && item.name.endsWith('.tmp') && item.size > 0);
          }
        }
      }
    }
    const result = await drop.writeAtomic('outbox', 'export.csv', source());
    const after = await observer.list(outbox);
    await observer.end();
    expect(result).toEqual({ name: 'export.csv', size: total });
    expect(sawTemporary).toBe(true);
    expect(sightings.filter((s) => s.name === 'export.csv')).toEqual([]);
    expect(after.map((i) => [i.name, i.size])).toEqual([['export.csv', total]]);
    const temp = sightings.find((s) => s.name.startsWith('.'))!;
    expect(new StableFileWatcher(drop).isCandidate(temp.name)).toBe(false);
  });

  it('replaces with posix-rename when asked to overwrite, and with the documented fallback when it is disabled', async () => {
    backing = sftpBacking(server);
    backing.put('outbox/r.csv', 'old');
    const { logger, lines } = capturingLogger();
    const methods = () => lines.map((l) => JSON.parse(l)).filter((l) => l.method).map((l) => l.method);
    await open({}, logger).writeAtomic('outbox', 'r.csv', 'new one', { overwrite: true });
    expect(readFileSync(backing.path('outbox/r.csv'), 'utf8')).toBe('new one');
    const fallback = open({ posixRename: 'never' }, logger);
    await fallback.writeAtomic('outbox', 'r.csv', 'fallback', { overwrite: true });
    expect(readFileSync(backing.path('outbox/r.csv'), 'utf8')).toBe('fallback');
    const error = await fallback.writeAtomic('outbox', 'r.csv', 'refused').catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'DROP_EXISTS')).toBe(true);
    expect(readdirSync(backing.path('outbox'))).toEqual(['r.csv']);
    expect(methods()).toEqual(['posix-rename', 'remove+rename']); // the refused write never reached a rename
  });

  it('permission denied on the archive folder: DROP_PERMISSION, and the source stays in the inbox', async () => {
    backing = sftpBacking(server);
    backing.put('inbox/orders.csv', 'sku;qty\n');
    backing.put('inbox/orders.csv.ok', '');
    const archive = backing.path('archive');
    mkdirSync(archive);
    // Owned by root (CI) or read-only for its owner: the login user cannot create entries in it.
    chmodSync(archive, 0o555);
    if (process.getuid?.() !== 0) chownSync(archive, server.uid, server.gid);
    const drop = open({ stability: 'marker' });
    const [file] = await new StableFileWatcher(drop, { stability: 'marker' }).scanReady();
    const error = await disposeFile(drop, file!, 'archive').catch((e: unknown) => e);
    expect(isWisbridgeError(error, 'DROP_PERMISSION')).toBe(true);
    expect((error as Error).message).toMatch(/cannot move inbox\/orders\.csv to archive: permission denied/);
    expect(readdirSync(backing.path('inbox')).sort()).toEqual(['orders.csv', 'orders.csv.ok']);
    expect(readFileSync(backing.path('inbox/orders.csv'), 'utf8')).toBe('sku;qty\n');
    expect(await disposeFile(drop, file!, 'error')).toEqual({ name: 'orders.csv', folder: 'error' });
  });

  it('a half-written upload is not picked up until its size stops changing', async () => {
    backing = sftpBacking(server);
    const uploader = new SftpClient('wms');
    await uploader.connect({ host: server.host, port: server.port, username: server.username, privateKey: server.privateKey, hostVerifier: () => true });
    const target = `${backing.root}/inbox/stock.csv`;
    backing.mkdir('inbox');
    await uploader.put(Buffer.from('sku;qty\n'), target);
    let appends = 0;
    const drop = withListHook(open(), async () => {
      if (appends >= 4) return;
      appends += 1;
      await uploader.append(Buffer.from(`A${appends};1\n`), target);
      // The uploader's own stat is answered after its writes are applied (one SFTP channel is served in order):
      // the listing on the drop's other connection then sees this append, not a size from half-way through it.
      await uploader.stat(target);
    });
    const watcher = new StableFileWatcher(drop, { settleMs: 20 });
    expect(await watcher.scanReady()).toEqual([]);
    expect(await watcher.scanReady()).toEqual([]);
    const ready = await watcher.scanReady();
    await uploader.end();
    expect(ready.map((f) => [f.name, f.size])).toEqual([['stock.csv', 8 + 4 * 5]]);
  });

  it('recovers when the server restarts in the middle of a poll', async () => {
    backing = sftpBacking(server);
    backing.put('inbox/before.csv', 'a');
    let restarted = false;
    const drop = withListHook(open({ pollIntervalMs: 50 }), async (call) => {
      if (call === 3 && !restarted) {
        restarted = true;
        backing.put('inbox/after.csv', 'b');
        await server.restart(); // the connection the next list would use is gone
      }
    });
    const watcher = new StableFileWatcher(drop, { settleMs: 0, pollIntervalMs: 50 });
    const controller = new AbortController();
    const seen: ReadyFile[] = [];
    await watcher.run(async (file) => {
      seen.push(file);
      await drop.move('inbox', file.name, 'archive');
      if (seen.length === 2) controller.abort();
    }, controller.signal);
    expect(restarted).toBe(true);
    expect(seen.map((f) => f.name)).toEqual(['before.csv', 'after.csv']);
    expect(readdirSync(backing.path('archive')).sort()).toEqual(['after.csv', 'before.csv']);
  });

  it('scanReady survives a restart between its two looks', async () => {
    backing = sftpBacking(server);
    backing.put('inbox/a.csv', 'a');
    const drop = withListHook(open(), async (call) => { if (call === 2) await server.restart(); });
    const ready = await new StableFileWatcher(drop, { settleMs: 10 }).scanReady();
    expect(ready.map((f) => f.name)).toEqual(['a.csv']);
  });

  it('a connection lost during an upload fails the write and leaves no file under the final name', async () => {
    backing = sftpBacking(server);
    const drop = open();
    async function* source() {
      yield Buffer.alloc(256 * 1024, 0x62);
      await server.restart();
      yield Buffer.alloc(256 * 1024, 0x63);
    }
    const error = await drop.writeAtomic('outbox', 'lost.csv', source()).then(() => undefined, (e: unknown) => e);
    expect(isWisbridgeError(error)).toBe(true);
    expect(['DROP_CONNECT', 'DROP_IO']).toContain((error as { code: string }).code);
    expect(existsSync(backing.path('outbox/lost.csv'))).toBe(false);
    expect(await drop.writeAtomic('outbox', 'lost.csv', 'second try')).toEqual({ name: 'lost.csv', size: 10 });
    expect(readFileSync(backing.path('outbox/lost.csv'), 'utf8')).toBe('second try');
  });

  it('a connection lost during a download fails the stream with DROP_CONNECT instead of hanging', async () => {
    backing = sftpBacking(server);
    backing.put('inbox/big.csv', Buffer.alloc(8 * 1024 * 1024, 0x61));
    const drop = open();
    const stream = await drop.openRead('inbox', 'big.csv');
    let read = 0;
    const error = await (async () => {
      for await (const chunk of stream) {
        if (read === 0) await server.restart();
        read += (chunk as Buffer).length;
      }
    })().then(() => undefined, (e: unknown) => e);
    expect(isWisbridgeError(error, 'DROP_CONNECT')).toBe(true);
    expect(read).toBeLessThan(8 * 1024 * 1024);
    expect((await drop.stat('inbox', 'big.csv'))?.size).toBe(8 * 1024 * 1024);
  });

  it('computes the host key fingerprint exactly as OpenSSH prints it', () => {
    const pub = readFileSync(`${server.root}/../ssh_host_ed25519_key.pub`, 'utf8').split(' ')[1]!;
    expect(hostKeyFingerprint(Buffer.from(pub, 'base64'))).toBe(server.hostKeyFingerprint);
    const printed = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${server.root}/../ssh_host_ed25519_key.pub`], { encoding: 'utf8' });
    expect(printed).toContain(hostKeyFingerprint(Buffer.from(pub, 'base64')));
  });
});
