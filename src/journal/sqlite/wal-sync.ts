import { open, type FileHandle } from 'node:fs/promises';
import { WisbridgeError } from '../../errors.js';
import { secondsSince } from '../core/timings.js';

/**
 * Makes the journal's commits durable without stopping the thread that made them. The connection runs WAL with
 * synchronous=NORMAL, so COMMIT only writes its frames to the write-ahead log; a commit's Promise then resolves once
 * an fdatasync of the log that started after the COMMIT has returned: the promise of synchronous=FULL (a commit the
 * bridge acts on is on disk), while the thread maps, sends and reads answers during the sync instead of waiting
 * in it. Commits made while a sync runs share the next one. With FULL, a night of small files held the main thread in
 * COMMIT for a good part of the night, and for most of it on a disk with slow syncs, where this took little more than
 * half as long (docs/performance.md, "Settings chosen by measurement"). SQLite itself syncs the log before a
 * checkpoint copies it into the database file and the database file after, in either mode, and keeps the file
 * consistent after a power loss in NORMAL: what NORMAL alone would lose, the last commits, is what is synced here
 * before anyone learns of them.
 */
export class WalSync {
  #file: Promise<FileHandle> | undefined;
  /** The sync under way. */
  #running: Promise<void> | undefined;
  /** The sync that starts after the one under way: it covers every commit made since that one started. */
  #queued: Promise<void> | undefined;
  #failed: WisbridgeError | undefined;

  /**
   * `datasync`: the sync itself (fdatasync of the log); tests pass one they can hold. `onSync`: told how long each
   * sync that succeeded took (JournalTally).
   */
  constructor(
    private readonly walPath: string,
    private readonly datasync: (file: FileHandle) => Promise<void> = (file) => file.datasync(),
    private readonly onSync: (seconds: number) => void = () => undefined,
  ) {}

  /** Settles once everything written to the log before the call is on disk; rejects, now and ever after, if that failed. */
  durable(): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (this.#queued) return this.#queued;
    if (!this.#running) return this.#start();
    const queued = this.#running.catch(() => undefined).then(() => {
      this.#queued = undefined;
      return this.#failed ? Promise.reject(this.#failed) : this.#start();
    });
    this.#queued = queued;
    return queued;
  }

  /** Closes the log's descriptor once the syncs asked for are done. */
  async close(): Promise<void> {
    await this.#queued?.catch(() => undefined);
    await this.#running?.catch(() => undefined);
    const file = this.#file;
    this.#file = undefined;
    await (await file?.catch(() => undefined))?.close();
  }

  #start(): Promise<void> {
    const run = this.#syncOnce();
    this.#running = run;
    const clear = () => {
      if (this.#running === run) this.#running = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  async #syncOnce(): Promise<void> {
    try {
      // The log of an open connection keeps its inode (a checkpoint truncates it, only the last connection's close
      // deletes it): one descriptor serves every sync.
      this.#file ??= open(this.walPath, 'r');
      const file = await this.#file;
      const started = performance.now();
      await this.datasync(file);
      this.onSync(secondsSince(started));
    } catch (error) {
      // After a failed sync the kernel may have dropped the dirty pages: no later sync can vouch for them.
      this.#failed ??= new WisbridgeError('JOURNAL', `the journal's write-ahead log ${this.walPath} could not be synced to disk `
        + `(${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): the last commits may not be durable; `
        + 'stop the bridge, check the disk, and start it again (a file in flight resumes from what the journal holds)', { cause: error });
      throw this.#failed;
    }
  }
}
