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
