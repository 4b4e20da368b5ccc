/** Per owner (a runtime: one process), the last run of each checksum, which the next run of those bytes waits for. */
const turns = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * Runs fn once no other run of the same bytes is under way in this process. The journal knows a file by its bytes:
 * a second file of bytes still being processed (a re-drop under another name among the files in flight) would be
 * claimed as a resume of the first's file and run beside it; in turn, it finds the first concluded and is a duplicate.
 */
export async function inTurnOfBytes<T>(owner: object, checksum: string, fn: () => Promise<T>): Promise<T> {
  let byChecksum = turns.get(owner);
  if (!byChecksum) turns.set(owner, (byChecksum = new Map()));
  const before = byChecksum.get(checksum);
  const run = (async () => {
    if (before) await before.catch(() => undefined);
    return fn();
  })();
  byChecksum.set(checksum, run);
  try {
    return await run;
  } finally {
    if (byChecksum.get(checksum) === run) byChecksum.delete(checksum);
  }
}
