import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import { OIDC_CALLBACK_PATH } from '../config/console.js';
import { targetOf } from './target.js';

/** What a refused sign-in is counted as: wrong credentials, or an attempt refused unchecked because its client was throttled. */
export type SignInRefusal = 'refused' | 'throttled';

export interface SignInThrottleOptions {
  /** Failed attempts a client may make in a burst. */
  burst?: number;
  /** One more attempt per this many milliseconds. */
  refillMs?: number;
  now?: () => number;
  logger?: Logger;
  /** Counts each refusal (the metric `wisbridge_sign_in_failures_total`). */
  onRefused?: (area: string, refusal: SignInRefusal) => void;
  /** Clients kept at most (the least recently failed are forgotten first). */
  maxClients?: number;
}

interface Bucket {
  tokens: number;
  at: number;
  /** Refusals while throttled, logged once the bucket has tokens again (not one line per attempt). */
  throttled: number;
}

/** The client's address: the socket's peer (a reverse proxy in front makes all clients one; X-Forwarded-For can be forged). */
export function remoteAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/**
 * Failed sign-ins per client address, as a token bucket: each failure takes a token, a token comes back every
 * `refillMs`; with none left the client's attempts are refused without looking at them (429) until one is back.
 * Successful sign-ins cost nothing. Every refusal is logged (address, where, never the secret) and counted.
 */
export class SignInThrottle {
  readonly #buckets = new Map<string, Bucket>();
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #now: () => number;
  readonly #maxClients: number;

  constructor(readonly area: string, private readonly options: SignInThrottleOptions = {}) {
    this.#burst = options.burst ?? 10;
    this.#refillMs = options.refillMs ?? 6_000;
    this.#now = options.now ?? Date.now;
    this.#maxClients = options.maxClients ?? 10_000;
  }

  #bucket(client: string): Bucket | undefined {
    const bucket = this.#buckets.get(client);
    if (!bucket) return undefined;
    const now = this.#now();
    const earned = Math.floor((now - bucket.at) / this.#refillMs);
    if (earned > 0) {
      bucket.tokens = Math.min(this.#burst, bucket.tokens + earned);
      bucket.at = bucket.tokens === this.#burst ? now : bucket.at + earned * this.#refillMs;
    }
    return bucket;
  }

  /**
   * Seconds the client must wait before its next attempt is looked at (counted and logged as throttled), or 0 when
   * it may try.
   */
  refuse(req: IncomingMessage): number {
    const client = remoteAddress(req);
    const bucket = this.#bucket(client);
    if (!bucket || bucket.tokens > 0) {
      if (bucket && bucket.throttled > 0) {
        this.options.logger?.warn({ area: this.area, client, throttledAttempts: bucket.throttled }, 'sign-in attempts were refused while throttled');
        bucket.throttled = 0;
      }
      return 0;
    }
    if (bucket.throttled === 0) {
      this.options.logger?.warn({ area: this.area, client, retryAfterSeconds: this.#retrySeconds(bucket) }, 'sign-in throttled: too many failed attempts from this client');
    }
    bucket.throttled += 1;
    this.options.onRefused?.(this.area, 'throttled');
    return this.#retrySeconds(bucket);
  }

  #retrySeconds(bucket: Bucket): number {
    return Math.max(1, Math.ceil((bucket.at + this.#refillMs - this.#now()) / 1000));
  }

  /** A failed attempt: logged with how it was made (`via`: login form, bearer header, basic auth; a user name), never the secret. */
  failed(req: IncomingMessage, details: { via: string; user?: string }): void {
    const client = remoteAddress(req);
    let bucket = this.#bucket(client);
    if (!bucket) {
      if (this.#buckets.size >= this.#maxClients) this.#buckets.delete(this.#buckets.keys().next().value as string);
      bucket = { tokens: this.#burst, at: this.#now(), throttled: 0 };
    }
    // Re-inserted: the map's order is the order of the last failure, the oldest forgotten first.
    this.#buckets.delete(client);
    this.#buckets.set(client, bucket);
    if (bucket.tokens === this.#burst) bucket.at = this.#now();
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    this.options.logger?.warn({ area: this.area, client, ...details, attemptsLeft: bucket.tokens }, 'sign-in refused: wrong credentials');
    this.options.onRefused?.(this.area, 'refused');
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The console's handler behind the throttle: a request that tries to sign in (the login form's POST, the identity
 * provider's answer on the callback, or credentials in an `Authorization` header) is refused unchecked (429) while its client is throttled, and counted as a failed
 * attempt when the console answers it 401. Requests without credentials (a browser sent to the login page, a
 * session cookie) are neither.
 */
export function throttledSignIns(handler: Handler, throttle: SignInThrottle): Handler {
  return (req, res) => {
    // The route as the console's router sees it: a spelling it refuses is answered 400 unchecked, not throttled.
    const target = targetOf(req);
    if (target.kind !== 'console') return handler(req, res);
    const header = req.headers.authorization;
    const login = target.path === '/console/login' && req.method === 'POST';
    const callback = target.path === OIDC_CALLBACK_PATH;
    if (!login && !callback && header === undefined) return handler(req, res);
    const wait = throttle.refuse(req);
    if (wait) {
      res.writeHead(429, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': String(wait), 'cache-control': 'no-store' })
        .end(`too many failed sign-ins from this address: try again in ${wait} s\n`);
      return true;
    }
    res.once('finish', () => {
      if (res.statusCode === 401) throttle.failed(req, callback ? { via: 'identity provider' } : describeAttempt(login, header));
    });
    return handler(req, res);
  };
}

/** How a sign-in was tried, for the log: never the secret (an unknown scheme might be the secret itself). */
export function describeAttempt(login: boolean, header: string | undefined): { via: string; user?: string } {
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return { via: 'basic auth', user: colon < 0 ? undefined : decoded.slice(0, colon).slice(0, 100) };
  }
  if (header?.startsWith('Bearer ')) return { via: 'bearer header' };
  if (header !== undefined) return { via: 'other authorization scheme' };
  return { via: login ? 'login form' : 'unknown' };
}
