import type { BlockIndexOf } from '../journal/index.js';

/**
 * How long a recorded block's search index may trail it: long enough that a small file's index mostly rides with the
 * commits of its outcomes (at 50 ms it took a commit of its own in most files of 1,000 rows: docs/performance.md,
 * "Settings chosen by measurement"), short enough for the console's search to find a row moments after it went.
 */
export const INDEX_WAIT_MS = 200;

/**
 * The console search's index of the blocks a file's flow recorded, written after their record instead of in it. In
 * it, the index's rows (16 token parts, scattered in their table) made the commit a send waits for much longer:
 * against a distant service, most of what the bridge lost to a script that records nothing (docs/performance.md,
 * "Settings chosen by measurement"). Written instead by a commit that sends nothing (stored outcomes, or its own
 * within INDEX_WAIT_MS), and at the file's end. A block is searchable a moment after it is recorded; one whose index
 * a crash lost is indexed from its stored bodies when the file resumes (JournalContract.indexMissingBlocks).
 */
export class TrailingIndex {
  #pending: BlockIndexOf[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** The write under way, settled: the next one waits for it. */
  #writing: Promise<void> = Promise.resolve();

  /** `write`: one commit of the given indexes. */
  constructor(private readonly write: (indexes: readonly BlockIndexOf[]) => Promise<unknown>) {}

  /** Blocks just recorded: their index follows within INDEX_WAIT_MS, or sooner with a commit that takes it. */
  add(indexes: readonly BlockIndexOf[]): void {
    if (indexes.length === 0) return;
    this.#pending.push(...indexes);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch(() => undefined); // left pending: the next commit or flush takes it
    }, INDEX_WAIT_MS).unref();
  }

  /** What is pending, for a commit that sends nothing to carry; `giveBack` it if that commit fails. */
  take(): BlockIndexOf[] {
    this.#clearTimer();
    const taken = this.#pending;
    this.#pending = [];
    return taken;
  }

  giveBack(indexes: readonly BlockIndexOf[]): void {
    if (indexes.length > 0) this.#pending = [...indexes, ...this.#pending];
  }

  /** Writes what is pending, after the write under way; on failure it stays pending and the error is thrown. */
  flush(): Promise<void> {
    const turn = this.#writing.then(async () => {
      const indexes = this.take();
      if (indexes.length === 0) return;
      try {
        await this.write(indexes);
      } catch (error) {
        this.giveBack(indexes);
        throw error;
      }
    });
    this.#writing = turn.catch(() => undefined);
    return turn;
  }

  close(): void {
    this.#clearTimer();
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
