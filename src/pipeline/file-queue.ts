import { bindsOthers, mustFollow, type FilePlace } from './file-order.js';

/**
 * How a file's run left it: `concluded` (done, failed, rejected, duplicate, vanished: the files behind it may go), or
 * `pending` (still to be done: interrupted, held by another instance, changed, waiting for its checksum file): the
 * files that must follow it are not started.
 */
export type FileRunEnd = 'concluded' | 'pending';

export interface FileQueueOptions<F> {
  /** Files run at once (the job's files_in_flight). */
  limit: number;
  run(file: F): Promise<FileRunEnd>;
  /** No file is started once it aborts; the runs in flight finish (they watch the signal themselves). */
  signal?: AbortSignal;
  /** A run threw: no file is started any more. */
  onFailure?(error: unknown): void;
  /** A file stayed pending: the files that must follow it wait for a later pass. */
  onBlocked?(name: string): void;
}

interface Entry<F> {
  file: F;
  name: string;
  place: FilePlace;
}

/**
 * A job's files, up to `limit` at once, in the order they were added except where the order rules (file-order.ts)
 * hold a file back: a file of an ordered mapping starts only when no earlier-named file of the mapping is waiting or
 * running, a file of a later stage only when no file of its family at an earlier stage is. Files are started on the
 * next turn of the event loop after an `add`, so the files of one listing, added together, are weighed together.
 */
export class FileQueue<F> {
  private readonly queued: Entry<F>[] = [];
  private readonly running = new Set<Entry<F>>();
  private readonly blocked: Entry<F>[] = [];
  private failure: { error: unknown } | undefined;
  private scheduled = false;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(private readonly options: FileQueueOptions<F>) {}

  /**
   * Queues a file; `first`: ahead of the files queued (a file nobody works on any more, which a backlog would
   * otherwise hold back), or moved there when it is queued already, and left alone while it runs. The order rules
   * hold for it all the same.
   */
  add(file: F, name: string, place: FilePlace, first = false): void {
    if (!first) {
      this.queued.push({ file, name, place });
    } else {
      if ([...this.running].some((r) => r.name === name)) return;
      const at = this.queued.findIndex((q) => q.name === name);
      this.queued.unshift(at === -1 ? { file, name, place } : this.queued.splice(at, 1)[0]);
    }
    this.schedule();
  }

  /** Files added and never started (held back by a pending file, or left by a failure or a stop). */
  get left(): number {
    return this.queued.length;
  }

  /**
   * Resolves once no file runs and none can start (every file added is done, or held back, or the signal aborted);
   * rejects with the first run's error when a run threw.
   */
  async drained(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
      this.checkIdle();
    });
    if (this.failure) throw this.failure.error;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.dispatch();
    });
  }

  private get halted(): boolean {
    return this.failure !== undefined || this.options.signal?.aborted === true;
  }

  private dispatch(): void {
    if (!this.halted) {
      for (let i = 0; i < this.queued.length && this.running.size < this.options.limit; i++) {
        const entry = this.queued[i];
        if (!this.startable(entry)) continue;
        this.queued.splice(i--, 1);
        this.running.add(entry);
        void this.start(entry);
      }
    }
    this.checkIdle();
  }

  private startable(entry: Entry<F>): boolean {
    for (const other of this.blocked) if (mustFollow(entry.place, other.place)) return false;
    for (const other of this.running) if (mustFollow(entry.place, other.place)) return false;
    for (const other of this.queued) {
      if (other === entry || !mustFollow(entry.place, other.place)) continue;
      // Within a lane only the earlier name goes first; a family's earlier stage always does.
      if (entry.place.lane === undefined || other.place.lane !== entry.place.lane || other.name < entry.name) return false;
    }
    return true;
  }

  private async start(entry: Entry<F>): Promise<void> {
    try {
      // Only a file others must follow holds anything back (a file held by another instance is offered again later).
      if ((await this.options.run(entry.file)) === 'pending' && bindsOthers(entry.place)) {
        this.blocked.push(entry);
        this.options.onBlocked?.(entry.name);
      }
    } catch (error) {
      if (this.failure === undefined) {
        this.failure = { error };
        this.options.onFailure?.(error);
      }
    } finally {
      this.running.delete(entry);
      this.dispatch();
    }
  }

  private checkIdle(): void {
    if (this.running.size > 0 || this.scheduled) return;
    if (!this.halted && this.queued.some((e) => this.startable(e))) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
