/** Resolves true when `promise` settles within `ms`, false when the time ran out first. */
export async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The shutdown bound of `wisbridge run` and `wisbridge console`: the work under way gets 70 % of
 * `shutdown_timeout_ms` to finish its requests; past that, `late` is called, what is still in flight is aborted and
 * gets 15 % more to end (an aborted write is recorded `sent` and reconciled at the next start). Resolves either way:
 * true once the work ended, false when it still runs.
 */
export async function drainOrAbort(work: Promise<unknown>, timeoutMs: number, abort: () => void, late: () => void): Promise<boolean> {
  if (await within(work, timeoutMs * 0.7)) return true;
  late();
  abort();
  return within(work, timeoutMs * 0.15);
}
