import { hostname } from 'node:os';
import { request } from 'undici';
import { backoffDelay, parseRetryAfter, sleep } from '../client/index.js';
import { redact } from '../secret.js';
import type { LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { describeError } from '../errors.js';
import { alertSeverity, type AlertSeverity } from '../journal/index.js';
import { silentLogger, type Logger } from '../log.js';

export type AlertKind = 'file-failed' | 'file-rejected' | 'rows-uncertain' | 'expected-file-missing' | 'drop-unlistable' | 'job-failed' | 'instance-lost' | 'x12-ack-overdue';

/**
 * The console inbox's kind of each webhook kind, whose severity the webhook sends (alertSeverity: one table for both).
 * The webhook's own names stay, as receivers key on them.
 */
const INBOX_KIND: Record<AlertKind, string> = {
  'file-failed': 'file-failed', 'file-rejected': 'file-rejected', 'rows-uncertain': 'rows-uncertain', 'expected-file-missing': 'missed-file',
  'drop-unlistable': 'drop-unreachable', 'job-failed': 'job-failed', 'instance-lost': 'instance-lost', 'x12-ack-overdue': 'x12-ack-overdue',
};

/** The severity a webhook alert of this kind is sent with: its inbox kind's (alert-severity.ts). */
export const webhookSeverity = (kind: AlertKind): AlertSeverity => alertSeverity(INBOX_KIND[kind]);

/** One alert to send: `kind`, a one-line `message`, and the fields of its kind; its `severity` is added by its kind. */
export interface Alert {
  kind: AlertKind;
  message: string;
  job?: string;
  drop?: string;
  file?: string;
  fileId?: number;
  [field: string]: unknown;
}

export type WebhookConfig = NonNullable<NonNullable<Config['alerts']>['webhook']>;

/** Alerts waiting beyond this are dropped (oldest first, logged): a dead receiver must not grow memory. */
const MAX_QUEUE = 500;
const MAX_BACKOFF_MS = 60_000;
const RETRYABLE = (status: number) => status === 408 || status === 429 || status >= 500;

interface Target {
  url: string;
  headers: Record<string, string>;
  secrets: string[];
}

/**
 * Sends alerts as JSON POSTs, one at a time in order, each retried with exponential backoff (bounded attempts)
 * on connection errors, 408, 429 and 5xx. The URL and header values may be secret references: they are read on
 * the first send and never logged (only the URL's origin is, and only when the URL is not a reference).
 */
export class WebhookSender {
  private readonly queue: Array<Alert & { severity: AlertSeverity; at: string; source: string; host: string }> = [];
  private running: Promise<void> | undefined;
  private target: Target | undefined;
  private readonly stopped = new AbortController();
  readonly stats = { sent: 0, failed: 0, attempts: 0, dropped: 0 };

  constructor(
    private readonly loaded: LoadedConfig,
    private readonly config: WebhookConfig,
    private readonly options: { logger?: Logger; now?: () => number; onResult?: (kind: AlertKind, result: 'sent' | 'failed') => void } = {},
  ) {}

  private get logger(): Logger {
    return this.options.logger ?? silentLogger;
  }

  /** Queues an alert; never throws and never waits for the receiver. */
  send(alert: Alert): void {
    if (this.stopped.signal.aborted) return;
    const at = new Date(this.options.now?.() ?? Date.now()).toISOString();
    this.queue.push({ ...alert, severity: webhookSeverity(alert.kind), at, source: 'wisbridge', host: hostname() });
    if (this.queue.length > MAX_QUEUE) {
      const dropped = this.queue.shift()!;
      this.stats.dropped++;
      this.logger.warn({ alert: dropped.kind }, 'webhook: too many alerts waiting; the oldest was dropped');
    }
    this.running ??= this.drain().finally(() => { this.running = undefined; });
  }

  /** Resolves when every queued alert was sent or given up (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops retrying: alerts still queued are given up (shutdown). */
  async close(): Promise<void> {
    this.stopped.abort(new Error('webhook closed'));
    await this.idle();
  }

  private async drain(): Promise<void> {
    for (let alert = this.queue.shift(); alert; alert = this.queue.shift()) {
      const ok = await this.deliver(alert);
      if (ok) this.stats.sent++;
      else this.stats.failed++;
      this.options.onResult?.(alert.kind, ok ? 'sent' : 'failed');
    }
  }

  private async readTarget(): Promise<Target> {
    if (this.target) return this.target;
    const { url, headers } = this.config;
    const urlValue = typeof url === 'string' ? url : await this.loaded.secret(url, 'webhook URL');
    const headerValues: Record<string, string> = {};
    for (const [name, ref] of Object.entries(headers)) headerValues[name.toLowerCase()] = await this.loaded.secret(ref, `webhook header ${name}`);
    const secrets = [...Object.values(headerValues)];
    if (typeof url !== 'string') {
      const parsed = new URL(urlValue);
      secrets.push(urlValue, parsed.pathname + parsed.search);
    }
    this.target = { url: urlValue, headers: headerValues, secrets };
    return this.target;
  }

  /** What may appear in logs about the receiver: the origin of a literal URL, never a referenced one. */
  private get shownUrl(): string {
    return typeof this.config.url === 'string' ? new URL(this.config.url).origin : '(URL from a secret reference)';
  }

  private async deliver(alert: Alert): Promise<boolean> {
    let target: Target;
    try {
      target = await this.readTarget();
    } catch (error) {
      this.logger.error({ alert: alert.kind, err: describeError(error) }, 'webhook: its URL or headers cannot be read; alert not sent');
      return false;
    }
    const body = JSON.stringify(alert);
    const signal = this.stopped.signal;
    for (let attempt = 1; attempt <= this.config.max_attempts; attempt++) {
      this.stats.attempts++;
      let retryAfter: number | undefined;
      let problem: string;
      try {
        const res = await request(target.url, {
          method: 'POST', body, signal: AbortSignal.any([signal, AbortSignal.timeout(this.config.timeout_ms)]),
          headers: { 'content-type': 'application/json', 'user-agent': 'wisbridge', ...target.headers },
          headersTimeout: this.config.timeout_ms, bodyTimeout: this.config.timeout_ms,
        });
        await res.body.dump().catch(() => undefined);
        if (res.statusCode >= 200 && res.statusCode < 300) return true;
        problem = `HTTP ${res.statusCode}`;
        if (!RETRYABLE(res.statusCode)) {
          this.logger.error({ alert: alert.kind, url: this.shownUrl, status: res.statusCode }, 'webhook: the receiver refused the alert; not retried');
          return false;
        }
        retryAfter = parseRetryAfter(res.headers['retry-after']);
      } catch (error) {
        if (signal.aborted) return false;
        problem = target.secrets.reduce((text, secret) => redact(text, secret), describeError(error));
      }
      if (attempt === this.config.max_attempts) {
        this.logger.error({ alert: alert.kind, url: this.shownUrl, attempts: attempt, err: problem }, 'webhook: alert not delivered; giving up');
        return false;
      }
      const delay = Math.min(MAX_BACKOFF_MS, retryAfter ?? backoffDelay(attempt, { baseDelayMs: this.config.backoff_ms, maxDelayMs: MAX_BACKOFF_MS }));
      this.logger.warn({ alert: alert.kind, url: this.shownUrl, attempt, err: problem, retryInMs: delay }, 'webhook: delivery failed; retrying');
      try {
        await sleep(delay, signal);
      } catch {
        return false;
      }
    }
    return false;
  }
}
