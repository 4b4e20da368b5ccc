import type { Dispatcher, Pool } from 'undici';
import type { RetryClass } from '../contract/index.js';
import { describeError, WisbridgeError, type CallFailureCode, type CallOutcome } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { backoffDelay, linkSignals, parseRetryAfter, sleep } from './backoff.js';
import { redact } from '../secret.js';
import { Limiter } from '../util/limiter.js';

/**
 * RetryClass: how a request may be repeated when its outcome is unknown (sent, then the connection dropped or timed
 * out): `read` and `repeatable` are repeated; `unsafe` is reported as UNCERTAIN_OUTCOME and never repeated.
 * Answers that prove nothing was applied (429, 503, connection refused) are retried for every class.
 */
export type { RetryClass } from '../contract/index.js';

export type ClientEvent =
  | { type: 'request-start'; endpoint: string; method: string; attempt: number }
  | {
      type: 'request-end';
      endpoint: string;
      method: string;
      attempt: number;
      /** Retries so far in this call (attempt - 1). */
      retries: number;
      /** HTTP status, undefined when no answer arrived. */
      status: number | undefined;
      durationMs: number;
      /** `ok`: answer handed back; `retry`: another attempt follows; `error`: the call fails; `uncertain`: outcome unknown. */
      result: 'ok' | 'retry' | 'error' | 'uncertain';
      /** Network-level failure kind when no answer arrived (e.g. `reset`, `timeout`, `connect`). */
      failure?: string;
    };

export interface TransportOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  baseUrl: string;
  token: string;
  /** Cap on open connections (undici's default is unlimited); raised to `maxRequestsInFlight` when that is larger. */
  connections?: number;
  /** Requests (attempts) outstanding at once on this transport, every caller together (default: `connections`). */
  maxRequestsInFlight?: number;
  /** Idle keep-alive, kept below the server's idle timeout (Node servers: 5 s) to dodge the stale-socket race. */
  keepAliveTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** Per attempt: time to the response headers, and between body chunks. */
  requestTimeoutMs?: number;
  maxAttempts?: number;
  /** Bound on the whole call including retries and waits. */
  maxRetryTimeMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Retry-After is honoured up to this many ms; a longer demand ends the retries. */
  maxRetryAfterMs?: number;
  /** Client-wide shutdown signal: aborts everything in flight and every wait. */
  signal?: AbortSignal;
  onEvent?: (event: ClientEvent) => void;
  logger?: Logger;
  random?: () => number;
}

/** A request body that is already JSON text (sent as it is, not serialized again). */
export class JsonText {
  constructor(readonly text: string) {}
}

export interface TransportRequest {
  endpoint: string;
  method: string;
  /** Path with query string, relative to the base URL. */
  path: string;
  body?: unknown;
  retry: RetryClass;
  signal?: AbortSignal;
  /** Absolute time (epoch ms) after which the call fails with TIMEOUT. */
  deadline?: number;
  /** Before each attempt, its slot taken: a throw stops the call (WriteOptions.beforeAttempt). */
  beforeAttempt?: () => void;
  /**
   * A 2xx body is handed back as `bytes`, neither decoded nor parsed: the caller does both, e.g. on a worker
   * thread (copying bytes there costs less than decoding them here).
   */
  raw?: boolean;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; undefined when the body was empty or the request asked for `raw`. */
  json: unknown;
  /** The body's bytes (an ArrayBuffer of its own), for a 2xx answer to a `raw` request. */
  bytes?: ArrayBuffer;
  attempts: number;
}

export type { CallOutcome } from '../errors.js';

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** Errors raised before the request could reach the server: nothing was applied. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

function failureKind(error: unknown): { kind: string; sent: boolean } {
  const code = (error as { code?: string } | undefined)?.code ?? '';
  if (NOT_SENT_CODES.has(code)) return { kind: 'connect', sent: false };
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { kind: 'timeout', sent: true };
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') return { kind: 'reset', sent: true };
  return { kind: code || 'network', sent: true };
}

export class Transport {
  readonly #token: string;
  /** Opened on the first request: a command that never calls the service never loads undici (docs/conventions.md,
   * "A command loads what it uses"). */
  #pool: Pool | undefined;
  readonly #origin: string;
  #closed = false;
  readonly #limiter: Limiter;
  readonly #basePath: string;
  /** The client-wide shutdown signal, linked once so that requests in flight listen to a signal of ours. */
  readonly #shutdown: AbortSignal | undefined;
  readonly #opts: Required<Omit<TransportOptions, 'signal' | 'onEvent' | 'random' | 'token' | 'baseUrl' | 'maxRequestsInFlight'>> &
    Pick<TransportOptions, 'signal' | 'onEvent' | 'random'>;

  constructor(options: TransportOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new WisbridgeError('CONFIG_INVALID', `the service base URL is not a valid URL: ${JSON.stringify(options.baseUrl)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new WisbridgeError('CONFIG_INVALID', `the service base URL must be http or https: ${url.origin}`);
    }
    this.#token = options.token;
    this.#shutdown = options.signal ? linkSignals([options.signal]).signal : undefined;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#opts = {
      connections: options.connections ?? 8,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 4_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      maxAttempts: options.maxAttempts ?? 10,
      maxRetryTimeMs: options.maxRetryTimeMs ?? 120_000,
      baseDelayMs: options.baseDelayMs ?? 100,
      maxDelayMs: options.maxDelayMs ?? 5_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
      logger: options.logger ?? silentLogger,
      signal: options.signal,
      onEvent: options.onEvent,
      random: options.random,
    };
    this.#limiter = new Limiter(options.maxRequestsInFlight ?? this.#opts.connections);
    // Every slot of the limiter gets a connection: a smaller pool would be a second, hidden cap.
    this.#opts.connections = Math.max(this.#opts.connections, this.#limiter.size);
    this.#origin = url.origin;
  }

  /** Closes the pool; with `force`, in-flight requests are destroyed instead of awaited. */
  async close(force = false): Promise<void> {
    this.#closed = true;
    const pool = this.#pool;
    if (pool === undefined) return;
    if (force) await pool.destroy();
    else await pool.close();
  }

  /** A secret-free description, so that logging the client never prints the token. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#basePath, connections: this.#opts.connections };
  }

  async #openPool(): Promise<Pool> {
    const { Pool } = await import('undici');
    if (this.#pool !== undefined) return this.#pool;
    this.#pool = new Pool(this.#origin, {
      connections: this.#opts.connections,
      keepAliveTimeout: this.#opts.keepAliveTimeoutMs,
      keepAliveMaxTimeout: this.#opts.keepAliveTimeoutMs,
      keepAliveTimeoutThreshold: 1_000,
      headersTimeout: this.#opts.requestTimeoutMs,
      bodyTimeout: this.#opts.requestTimeoutMs,
      connect: { timeout: this.#opts.connectTimeoutMs },
    });
    // A request after close() fails as it would on the pool closed with the transport.
    if (this.#closed) await this.#pool.close();
    return this.#pool;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    const started = Date.now();
    const budgetEnd = started + this.#opts.maxRetryTimeMs;
    const deadline = req.deadline;
    const userSignals = [this.#shutdown, req.signal].filter((s): s is AbortSignal => s !== undefined);
    let lastProblem = '';
    let lastOutcome: CallOutcome = 'not-applied';
    let lastCode: CallFailureCode = 'UNAVAILABLE';
    let attempts = 0;

    for (let attempt = 1; attempt <= this.#opts.maxAttempts; attempt++) {
      this.#checkStop(req, userSignals, deadline, lastOutcome, attempt - 1);
      attempts = attempt;
      await this.#slot(req, userSignals, deadline, lastOutcome, attempt - 1);
      this.#mayAttempt(req, lastOutcome, attempt - 1);
      let result: AttemptResult;
      try {
        result = await this.#attempt(req, attempt, userSignals, deadline);
      } finally {
        this.#limiter.release();
      }
      if (result.kind === 'answer') return { ...result.response, attempts: attempt };

      lastProblem = result.problem;
      // A read changes nothing. For a write, one attempt of unknown outcome makes the whole call unknown.
      if (req.retry !== 'read' && result.outcome === 'unknown') lastOutcome = 'unknown';
      lastCode = result.code;
      if (result.outcome === 'unknown' && req.retry === 'unsafe') {
        this.#event(req, attempt, result.status, result.durationMs, 'uncertain', result.failure);
        throw this.#error('UNCERTAIN_OUTCOME', req, `${result.problem}; the outcome is unknown and the request is not repeated`, attempt, 'unknown', result.status);
      }
      const wait = Math.max(backoffDelay(attempt, { ...this.#opts, random: this.#opts.random }), result.retryAfterMs ?? 0);
      const tooLate = Date.now() + wait > Math.min(budgetEnd, deadline ?? Infinity);
      const last = attempt === this.#opts.maxAttempts || tooLate || (result.retryAfterMs ?? 0) > this.#opts.maxRetryAfterMs;
      this.#event(req, attempt, result.status, result.durationMs, last ? 'error' : 'retry', result.failure);
      if (last) break;
      this.#opts.logger.debug({ endpoint: req.endpoint, attempt, waitMs: wait, problem: result.problem }, 'retrying request');
      const link = linkSignals(userSignals);
      try {
        await sleep(wait, link.signal);
      } catch {
        this.#checkStop(req, userSignals, deadline, lastOutcome, attempt);
      } finally {
        link.release();
      }
    }
    const outcomeText = lastOutcome === 'unknown' ? 'an attempt may have been applied' : 'nothing was applied';
    const code: CallFailureCode = lastOutcome === 'unknown' ? 'UNCERTAIN_OUTCOME' : lastCode;
    throw this.#error(code, req, `gave up after ${attempts} attempts (${lastProblem}); ${outcomeText}`, attempts, lastOutcome);
  }

  /** A slot of the limiter for one attempt; a shutdown or the deadline while waiting ends the call, nothing sent. */
  async #slot(req: TransportRequest, userSignals: AbortSignal[], deadline: number | undefined, outcome: CallOutcome, attempts: number): Promise<void> {
    if (this.#limiter.tryAcquire()) return;
    const signals = deadline === undefined ? userSignals : [...userSignals, AbortSignal.timeout(Math.max(0, deadline - Date.now()))];
    try {
      await this.#limiter.acquire(signals);
    } catch {
      this.#checkStop(req, userSignals, deadline, outcome, attempts);
      throw this.#error('TIMEOUT', req, 'the overall deadline passed', attempts, outcome);
    }
  }

  /**
   * The caller's check before an attempt (WriteOptions.beforeAttempt); its slot is given back when it refuses. Its
   * error ends the call as it is when nothing was applied yet; after an attempt of unknown outcome the call is uncertain.
   */
  #mayAttempt(req: TransportRequest, outcome: CallOutcome, attempts: number): void {
    if (!req.beforeAttempt) return;
    try {
      req.beforeAttempt();
    } catch (error) {
      this.#limiter.release();
      if (outcome !== 'unknown') throw error;
      throw this.#error('UNCERTAIN_OUTCOME', req, `${describeError(error)}; an earlier attempt may have been applied`, attempts, outcome);
    }
  }

  #checkStop(req: TransportRequest, userSignals: AbortSignal[], deadline: number | undefined, outcome: CallOutcome, attempts: number): void {
    if (userSignals.some((s) => s.aborted)) throw this.#error('ABORTED', req, 'aborted by shutdown', attempts, outcome);
    if (deadline !== undefined && Date.now() >= deadline) throw this.#error('TIMEOUT', req, 'the overall deadline passed', attempts, outcome);
  }

  async #attempt(req: TransportRequest, attempt: number, userSignals: AbortSignal[], deadline: number | undefined): Promise<AttemptResult> {
    const t0 = performance.now();
    const link = linkSignals(userSignals, deadline === undefined ? undefined : deadline - Date.now());
    const signal = link.signal;
    const body = req.body === undefined ? undefined : req.body instanceof JsonText ? req.body.text : JSON.stringify(req.body);
    this.#opts.onEvent?.({ type: 'request-start', endpoint: req.endpoint, method: req.method, attempt });
    let status: number | undefined;
    try {
      const pool = this.#pool ?? (await this.#openPool());
      const res = await pool.request({
        path: this.#basePath + req.path,
        method: req.method as Dispatcher.HttpMethod,
        headers: {
          authorization: `Bearer ${this.#token}`,
          accept: 'application/json',
          'user-agent': 'wisbridge',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body,
        signal,
      });
      status = res.statusCode;
      const ms = () => performance.now() - t0;
      if (RETRYABLE_STATUS.has(status)) {
        await res.body.dump().catch(() => undefined);
        const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
        // 429 and 503 are answers of a server that refused the request before processing it: nothing applied.
        // 502 and 504 come from a gateway that may have passed the request on: the outcome is unknown.
        const outcome: CallOutcome = status === 429 || status === 503 ? 'not-applied' : 'unknown';
        const code: CallFailureCode = status === 429 ? 'RATE_LIMITED' : 'UNAVAILABLE';
        return { kind: 'failure', problem: `HTTP ${status}`, outcome, code, status, retryAfterMs, durationMs: ms() };
      }
      if (req.raw && status >= 200 && status < 300) {
        const bytes = await res.body.arrayBuffer();
        this.#event(req, attempt, status, ms(), 'ok');
        return { kind: 'answer', response: { status, headers: res.headers, json: undefined, bytes } };
      }
      const text = await res.body.text();
      if (status === 401) {
        this.#event(req, attempt, status, ms(), 'error');
        throw this.#error('AUTHENTICATION', req, `the service refused the token (401${this.#serviceMessage(text)})`, attempt, 'not-applied', status);
      }
      if (status >= 500) {
        this.#event(req, attempt, status, ms(), req.method === 'GET' ? 'error' : 'uncertain');
        const outcome: CallOutcome = req.method === 'GET' ? 'not-applied' : 'unknown';
        throw this.#error(req.method === 'GET' ? 'UNAVAILABLE' : 'UNCERTAIN_OUTCOME', req, `HTTP ${status}${this.#serviceMessage(text)}`, attempt, outcome, status);
      }
      let json: unknown;
      if (text.trim() !== '') {
        try {
          json = JSON.parse(text);
        } catch {
          this.#event(req, attempt, status, ms(), 'error');
          const head = redact(text.slice(0, 60), this.#token);
          throw this.#error('CONTRACT_VIOLATION', req, `HTTP ${status} answer is not JSON (starts ${JSON.stringify(head)})`, attempt, status < 300 ? 'unknown' : 'not-applied', status);
        }
      }
      this.#event(req, attempt, status, ms(), 'ok');
      return { kind: 'answer', response: { status, headers: res.headers, json } };
    } catch (error) {
      if (error instanceof WisbridgeError) throw error;
      const ms = performance.now() - t0;
      const code = (error as { code?: string } | undefined)?.code;
      if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') {
        this.#event(req, attempt, status, ms, 'error', 'closed');
        throw this.#error('ABORTED', req, 'the client was closed', attempt, req.method === 'GET' ? 'not-applied' : 'unknown');
      }
      if (signal.aborted) {
        this.#event(req, attempt, status, ms, 'error', 'aborted');
        const outcome: CallOutcome = req.method === 'GET' ? 'not-applied' : 'unknown';
        if (userSignals.some((s) => s.aborted)) throw this.#error('ABORTED', req, 'aborted by shutdown', attempt, outcome);
        throw this.#error('TIMEOUT', req, 'the overall deadline passed', attempt, outcome);
      }
      const { kind, sent } = failureKind(error);
      const message = redact(error instanceof Error ? error.message : String(error), this.#token);
      const outcome: CallOutcome = sent ? 'unknown' : 'not-applied';
      return { kind: 'failure', problem: `${kind}: ${message}`, outcome, code: kind === 'timeout' ? 'TIMEOUT' : 'UNAVAILABLE', status, failure: kind, durationMs: ms };
    } finally {
      link.release();
    }
  }

  #serviceMessage(text: string): string {
    try {
      const message = (JSON.parse(text) as { error?: { message?: unknown } })?.error?.message;
      if (typeof message === 'string') return `: ${redact(message.slice(0, 200), this.#token)}`;
    } catch {
      /* not JSON: no message to add */
    }
    return '';
  }

  #event(req: TransportRequest, attempt: number, status: number | undefined, durationMs: number, result: 'ok' | 'retry' | 'error' | 'uncertain', failure?: string): void {
    this.#opts.onEvent?.({ type: 'request-end', endpoint: req.endpoint, method: req.method, attempt, retries: attempt - 1, status, durationMs, result, ...(failure ? { failure } : {}) });
  }

  #error(code: CallFailureCode, req: TransportRequest, message: string, attempts: number | undefined, outcome: CallOutcome, status?: number): WisbridgeError<CallFailureCode> {
    return new WisbridgeError(code, `${req.endpoint} (${req.method} ${req.path.split('?')[0]}): ${message}`, {
      details: { endpoint: req.endpoint, outcome, ...(status === undefined ? {} : { status }), ...(attempts === undefined ? {} : { attempts }) },
    });
  }
}

type AttemptResult =
  | { kind: 'answer'; response: Omit<TransportResponse, 'attempts'> }
  | {
      kind: 'failure';
      problem: string;
      outcome: CallOutcome;
      code: CallFailureCode;
      status?: number;
      retryAfterMs?: number;
      failure?: string;
      durationMs: number;
    };
