/**
 * Bytes a process keeps in memory instead of in a private file, across all its jobs and files: the small files read
 * (src/pipeline/source.ts) and the result rows spooled (src/pipeline/result-spool.ts). Each holds 1 MiB at most, but
 * many jobs with many files in flight could add up past the bridge's memory sizing (docs/operations.md); beyond the
 * budget a file is copied and a spool writes its file, as big ones always do.
 */
export class HeldBytes {
  #held = 0;

  constructor(readonly limit: number) {}

  /** Bytes held now. */
  get held(): number {
    return this.#held;
  }

  /** Takes `bytes` of the budget when they fit; false (nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (this.#held + bytes > this.limit) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }
}

/**
 * The process's budget: 16 MiB, what eight files of a job in flight hold at their largest (a file and its result
 * under 1 MiB each); a night of typical WMS files (a 1,000-row file is ~32 KB) stays far below it.
 */
export const HELD_BYTES = new HeldBytes(16 << 20);
