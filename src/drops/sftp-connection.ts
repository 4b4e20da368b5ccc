import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { SFTPWrapper } from 'ssh2';
import type SftpClient from 'ssh2-sftp-client';
import { WisbridgeError, isWisbridgeError } from '../errors.js';
import type { Logger } from '../log.js';
import { dropError } from './drop.js';
import type { SftpDropOptions } from './options.js';

/** OpenSSH's fingerprint of a raw host key: `SHA256:` + unpadded base64 of its sha256. */
export function hostKeyFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** Errors after which the connection is unusable; a safe operation is then retried on a new one. */
const CONNECTION_LOST = /no response from server|not connected|no sftp connection|unexpected (end|close)|econnreset|socket|channel|connection lost|keepalive/i;

export function isConnectionLost(error: unknown): boolean {
  if (isWisbridgeError(error)) return error.details !== undefined && 'connectionLost' in error.details;
  const e = error as { code?: unknown; message?: unknown };
  return e?.code === 'ECONNRESET' || e?.code === 'ERR_NOT_CONNECTED' || CONNECTION_LOST.test(String(e?.message ?? ''));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}

/** Resolves with the promise, or rejects with onTimeout() after ms; the timer never keeps the process alive. */
export function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    timer.unref?.();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The ssh2 Client inside ssh2-sftp-client (public in its source, missing from its typings). */
function sshOf(client: SftpClient): EventEmitter & { destroy(): void } {
  return (client as unknown as { client: EventEmitter & { destroy(): void } }).client;
}

interface Live {
  client: SftpClient;
  /** ssh2's SFTP channel, on which operations send their requests (sftp-requests.ts). */
  sftp: SFTPWrapper;
  dead: boolean;
  extensions: Record<string, string>;
  /** Transfer streams on this connection: destroyed when it dies, or they would wait forever. */
  streams: Set<{ destroy(error?: Error): void }>;
}

/** What an operation gets besides the client. */
export interface LiveConnection {
  extensions: Record<string, string>;
  /** Registers a transfer stream so that it fails (instead of hanging) when the connection dies. */
  track<S extends NodeJS.ReadableStream | NodeJS.WritableStream>(stream: S): S;
}

/**
 * One SSH connection per drop. Operations run at once on its SFTP channel (their requests are numbered, so they
 * overlap: a distant server's round trips are not paid one after the other); a lost or idle-closed connection is
 * reopened on demand with exponential backoff; every operation has a deadline; end() is raced against a timer and the
 * socket destroyed afterwards.
 */
export class SftpConnection {
  private live: Live | undefined;
  private connecting: Promise<Live> | undefined;
  /** Operations under way: close() waits for them, and the connection is not idle while there are any. */
  private readonly running = new Set<Promise<unknown>>();
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private streams = 0;

  constructor(private readonly options: SftpDropOptions, private readonly dropName: string, private readonly logger: Logger) {}

  /**
   * Runs fn on the connection's SFTP channel, beside whatever else runs on it. `safe` operations (reads, mkdir) are
   * retried once on a fresh connection when the connection was lost under them.
   */
  run<T>(label: string, fn: (sftp: SFTPWrapper, live: LiveConnection) => Promise<T>, safe = false): Promise<T> {
    this.clearIdle();
    const task = (async (): Promise<T> => {
      try {
        return await this.attempt(label, fn);
      } catch (error) {
        if (!safe || !isConnectionLost(error) || this.closed) throw error;
        this.logger.warn({ drop: this.dropName, op: label, err: String((error as Error).message) }, 'SFTP connection lost; reconnecting and retrying');
        return await this.attempt(label, fn);
      }
    })();
    this.running.add(task);
    const settled = () => {
      this.running.delete(task);
      this.armIdle();
    };
    task.then(settled, settled);
    return task;
  }

  /** Keeps the connection from being idle-closed while a transfer stream is open; call the result when it ends. */
  hold(): () => void {
    this.streams += 1;
    this.clearIdle();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.streams -= 1;
      this.armIdle();
    };
  }

  /** Drops the current connection (after an error that left it in an unknown state). */
  discard(): void {
    const live = this.live;
    this.live = undefined;
    if (live) void this.endSafely(live);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearIdle();
    await Promise.allSettled([...this.running]);
    const live = this.live ?? (await this.connecting?.catch(() => undefined));
    this.live = undefined;
    if (live) await this.endSafely(live);
  }

  private async attempt<T>(label: string, fn: (sftp: SFTPWrapper, live: LiveConnection) => Promise<T>): Promise<T> {
    const live = await this.connection();
    const timeoutMs = this.options.operationTimeoutMs;
    try {
      const handle: LiveConnection = {
        extensions: live.extensions,
        track: (stream) => {
          const s = stream as unknown as { destroy(error?: Error): void; once(event: string, fn: () => void): void };
          live.streams.add(s);
          s.once('close', () => live.streams.delete(s));
          return stream;
        },
      };
      return await withDeadline(fn(live.sftp, handle), timeoutMs, () => dropError('TIMEOUT', { drop: this.dropName, connectionLost: true }, `${label} took longer than ${timeoutMs} ms`));
    } catch (error) {
      // The connection may still be busy with the abandoned request, or be gone: start afresh next time.
      if (live.dead || isConnectionLost(error)) {
        if (this.live === live) this.discard();
      }
      throw error;
    }
  }

  private async connection(): Promise<Live> {
    if (this.closed) throw dropError('DROP_CONNECT', { drop: this.dropName }, 'the drop is closed');
    if (this.live && !this.live.dead) return this.live;
    if (this.live) this.discard(); // died between operations: make sure its socket is gone too
    this.connecting ??= this.connectWithBackoff().finally(() => { this.connecting = undefined; });
    this.live = await this.connecting;
    return this.live;
  }

  private async connectWithBackoff(): Promise<Live> {
    const { reconnectAttempts, reconnectInitialDelayMs, reconnectMaxDelayMs } = this.options;
    let delay = reconnectInitialDelayMs;
    let lastError: unknown;
    for (let attempt = 1; attempt <= reconnectAttempts; attempt += 1) {
      try {
        return await this.connectOnce();
      } catch (error) {
        lastError = error;
        if (isWisbridgeError(error) && (error.code === 'DROP_HOST_KEY' || error.code === 'DROP_AUTH')) throw error;
        if (attempt === reconnectAttempts || this.closed) break;
        this.logger.warn({ drop: this.dropName, attempt, retryInMs: delay, err: (error as Error).message }, 'SFTP connect failed; retrying');
        await sleep(delay);
        delay = Math.min(reconnectMaxDelayMs, Math.max(1, delay * 2));
      }
    }
    throw lastError;
  }

  private async connectOnce(): Promise<Live> {
    const o = this.options;
    let rejectedKey: string | undefined;
    let rawError: (Error & { level?: string }) | undefined;
    let privateKey = o.privateKey;
    if (privateKey === undefined && o.privateKeyPath !== undefined) {
      try {
        privateKey = await readFile(o.privateKeyPath, 'utf8');
      } catch (error) {
        throw dropError('DROP_AUTH', { drop: this.dropName }, `cannot read privateKeyPath ${o.privateKeyPath}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
      }
    }
    const live: Live = { client: undefined as unknown as SftpClient, sftp: undefined as unknown as SFTPWrapper, dead: false, extensions: {}, streams: new Set() };
    const markDead = () => {
      live.dead = true;
      for (const stream of live.streams) stream.destroy(Object.assign(new Error('SFTP connection lost during a transfer'), { code: 'ECONNRESET' }));
      live.streams.clear();
    };
    // Loaded when a drop first connects: ssh2 and its ciphers take a while to load, which a bridge of local drops
    // need not pay (docs/performance.md, "Settings chosen by measurement").
    const { default: Client } = await import('ssh2-sftp-client');
    const client = new Client(this.dropName, {
      error: (error: unknown) => this.logger.warn({ drop: this.dropName, err: String((error as Error)?.message ?? error) }, 'SFTP connection error'),
      end: markDead,
      close: markDead,
    });
    live.client = client;
    // Registered on the ssh2 client itself: errors, ends and closes between operations mark the connection dead.
    const ssh = sshOf(client);
    ssh.on('error', (error: Error & { level?: string }) => { rawError ??= error; markDead(); });
    ssh.on('end', markDead);
    ssh.on('close', markDead);
    const hostVerifier = (key: Buffer): boolean => {
      const presented = hostKeyFingerprint(key);
      if (o.hostKeyFingerprint !== undefined) {
        if (presented === o.hostKeyFingerprint) return true;
        rejectedKey = presented;
        return false;
      }
      if (o.insecureAcceptAnyHostKey) {
        this.logger.warn({ drop: this.dropName, host: o.host, hostKey: presented },
          'INSECURE: accepting any SFTP host key (insecureAcceptAnyHostKey is set); pin it with hostKeyFingerprint');
        return true;
      }
      rejectedKey = presented;
      return false;
    };
    const config = {
      host: o.host, port: o.port, username: o.username, password: o.password, privateKey, passphrase: o.passphrase,
      readyTimeout: o.connectTimeoutMs, keepaliveInterval: o.keepaliveIntervalMs, keepaliveCountMax: o.keepaliveCountMax,
      hostVerifier, tryKeyboard: false,
    };
    try {
      const sftp = await withDeadline(client.connect(config), o.connectTimeoutMs + 1000,
        () => dropError('DROP_CONNECT', { drop: this.dropName }, `connecting to ${o.host}:${o.port} took longer than ${o.connectTimeoutMs} ms`));
      live.sftp = sftp as unknown as SFTPWrapper;
      live.extensions = { ...((sftp as unknown as { _extensions?: Record<string, string> })._extensions ?? {}) };
    } catch (error) {
      void this.endSafely(live);
      throw this.connectError(error, rawError, rejectedKey);
    }
    this.logger.info({ drop: this.dropName, host: o.host, port: o.port }, 'SFTP connected');
    return live;
  }

  private connectError(error: unknown, raw: (Error & { level?: string }) | undefined, rejectedKey: string | undefined): WisbridgeError {
    const o = this.options;
    const where = `${o.host}:${o.port}`;
    if (rejectedKey !== undefined) {
      const message = o.hostKeyFingerprint === undefined
        ? `host key of ${where} is not pinned: it presented ${rejectedKey}; set hostKeyFingerprint after checking it with the server's administrator`
        : `host key of ${where} changed or is unknown: it presented ${rejectedKey}, expected ${o.hostKeyFingerprint}`;
      return dropError('DROP_HOST_KEY', { drop: this.dropName, presented: rejectedKey }, message);
    }
    if (isWisbridgeError(error)) return error;
    const message = (raw?.message ?? (error as Error)?.message ?? String(error)).replace(/^getConnection: /, '');
    if (raw?.level === 'client-authentication' || /authentication methods failed|privateKey|passphrase/i.test(message)) {
      return dropError('DROP_AUTH', { drop: this.dropName }, `${where} refused the credentials of ${o.username}: ${message}`);
    }
    return dropError('DROP_CONNECT', { drop: this.dropName }, `cannot connect to ${where}: ${message}`);
  }

  private async endSafely(live: Live): Promise<void> {
    live.dead = true;
    try {
      await withDeadline(live.client.end(), this.options.endTimeoutMs, () => new Error('end timed out'));
    } catch {
      // end() can hang or fail on a reset connection; the socket is destroyed below either way.
    } finally {
      sshOf(live.client).destroy();
    }
  }

  private armIdle(): void {
    this.clearIdle();
    if (this.options.idleCloseMs <= 0 || this.closed || this.streams > 0 || this.running.size > 0) return;
    this.idleTimer = setTimeout(() => {
      const live = this.live;
      if (!live) return;
      this.live = undefined;
      this.logger.debug({ event: 'sftp.idle-closed', drop: this.dropName }, 'SFTP connection idle; closing');
      void this.endSafely(live);
    }, this.options.idleCloseMs);
    this.idleTimer.unref?.();
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
