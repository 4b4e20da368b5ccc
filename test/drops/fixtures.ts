import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import type { Drop, DropEntry, FolderRole } from '../../src/drops/index.js';
import type { SftpDropOptions } from '../../src/drops/options.js';
import type { SftpServer } from '../support/sftp-server.js';

/** A folder in which the WMS side of a test writes files directly (the drop root, local path). */
export interface Backing {
  root: string;
  /** Writes a file as the WMS would (owned by the SFTP login user when there is one). */
  put(relativePath: string, content: string | Buffer): string;
  mkdir(relativePath: string): string;
  path(relativePath: string): string;
  cleanup(): void;
}

export function localBacking(): Backing {
  const root = mkdtempSync(join(tmpdir(), 'wisbridge-drop-'));
  return backingAt(root, undefined, () => rmSync(root, { recursive: true, force: true }));
}

let counter = 0;

/** A fresh sub-folder of the server's root, owned by its login user. */
export function sftpBacking(server: SftpServer): Backing {
  counter += 1;
  const root = join(server.root, `case-${process.pid}-${counter}`);
  const owner = { uid: server.uid, gid: server.gid };
  const backing = backingAt(root, owner, () => rmSync(root, { recursive: true, force: true }));
  backing.mkdir('.');
  return backing;
}

function backingAt(root: string, owner: { uid: number; gid: number } | undefined, cleanup: () => void): Backing {
  const own = (p: string) => { if (owner && process.getuid?.() === 0) chownSync(p, owner.uid, owner.gid); };
  const mkdir = (rel: string) => {
    const p = join(root, rel);
    mkdirSync(p, { recursive: true });
    for (let d = p; d.startsWith(root); d = dirname(d)) own(d);
    return p;
  };
  return {
    root,
    mkdir,
    path: (rel) => join(root, rel),
    put(rel, content) {
      const p = join(root, rel);
      mkdir(dirname(rel));
      writeFileSync(p, content);
      own(p);
      return p;
    },
    cleanup,
  };
}

export function sftpOptions(server: SftpServer, root: string, extra: Partial<SftpDropOptions> = {}) {
  return {
    type: 'sftp' as const,
    host: server.host,
    port: server.port,
    username: server.username,
    privateKey: server.privateKey,
    hostKeyFingerprint: server.hostKeyFingerprint,
    root,
    reconnectInitialDelayMs: 50,
    operationTimeoutMs: 10_000,
    ...extra,
  };
}

/**
 * A test SFTP drop as a configuration names it: a backing folder holding inbox/, outbox/, archive/ and error/, the
 * lines under `drops: NAME:` (the client key read from `client_key` beside the configuration, which `writeKey`
 * puts there), and `port` when the drop is reached through something else than the server's own port (a proxy).
 */
export function sftpDropConfig(server: SftpServer, options: { port?: number; extra?: readonly string[] } = {}) {
  const backing = sftpBacking(server);
  for (const f of ['inbox', 'outbox', 'archive', 'error']) backing.mkdir(f);
  const yaml = [
    '    type: sftp', `    host: ${server.host}`, `    port: ${options.port ?? server.port}`, `    username: ${server.username}`,
    '    private_key: { file: client_key }', `    host_key_fingerprint: "${server.hostKeyFingerprint}"`, `    root: ${backing.root}`,
    '    settle_ms: 0', ...(options.extra ?? []).map((o) => `    ${o}`),
  ].join('\n');
  return { backing, yaml, writeKey: (dir: string) => writeFileSync(join(dir, 'client_key'), server.privateKey, { mode: 0o600 }) };
}

/** A drop whose list() runs a hook first: lets a test act exactly between two polls. */
export function withListHook(drop: Drop, hook: (call: number) => Promise<void> | void): Drop {
  let calls = 0;
  return new Proxy(drop, {
    get(target, prop, receiver) {
      if (prop === 'list') {
        return async (folder: FolderRole, filter?: (name: string) => boolean): Promise<DropEntry[]> => {
          calls += 1;
          await hook(calls);
          return target.list(folder, filter);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A pino logger writing JSON lines into an array, to assert on logs. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
  return { logger: pino({ level: 'debug' }, destination), lines };
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}
