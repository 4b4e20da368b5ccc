import { setMaxListeners } from 'node:events';

/** Retry timing: exponential backoff with full jitter, and Retry-After. */
export interface BackoffOptions {
  /** First delay before jitter, ms. */
  baseDelayMs: number;
  /** Largest delay before jitter, ms. */
  maxDelayMs: number;
  /** Random source in [0, 1), replaceable for deterministic tests. */
  random?: () => number;
}

/** Delay before retry number `retry` (1 = first retry): uniform in [d/2, d] with d = min(max, base * 2^(retry-1)). */
export function backoffDelay(retry: number, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const random = options.random ?? Math.random;
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Retry-After: delta-seconds or an HTTP date; undefined when absent or unreadable. Result in ms, never negative. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One signal that aborts when any source aborts or `timeoutMs` passes, with `release()` to drop the listeners
 * and the timer. Unlike AbortSignal.any / AbortSignal.timeout, nothing stays attached to a long-lived
 * client-wide signal after the request, so a long-running bridge does not accumulate listeners.
 */
export function linkSignals(sources: readonly (AbortSignal | undefined)[], timeoutMs?: number): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  // Many requests in flight may listen to one linked signal at once; each listener is removed by release().
  setMaxListeners(0, controller.signal);
  const cleanups: (() => void)[] = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      break;
    }
    const onAbort = () => controller.abort(source.reason);
    source.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => source.removeEventListener('abort', onAbort));
  }
  if (timeoutMs !== undefined && !controller.signal.aborted) {
    const timer = setTimeout(() => controller.abort(new DOMException('deadline passed', 'TimeoutError')), Math.max(1, timeoutMs));
    cleanups.push(() => clearTimeout(timer));
  }
  return {
    signal: controller.signal,
    release() {
      for (const c of cleanups.splice(0)) c();
    },
  };
}
