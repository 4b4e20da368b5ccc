import type { LoadedConfig } from '../config/load.js';
import type { InboundJob } from '../config/schema.js';
import { StableFileWatcher, type ReadyFile } from '../drops/index.js';
import { describeError } from '../errors.js';
import type { Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { FileRunEnd } from '../pipeline/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import type { Clock } from './clock.js';
import type { FileRun } from './watch.js';

export interface InboxOfferParts {
  runtime: RuntimeParts<'drop', Pick<Journal, 'instance' | 'filesToTakeOver'>>;
  loaded: Pick<LoadedConfig, 'config' | 'dropOptions'>;
  clock: Clock;
  logger: Logger;
  /** The service's soft stop: nothing is offered once it aborts. */
  signal: AbortSignal;
  /** Runs a file in its job's turn: whether the run went well, whether another instance holds the file, how it ended. */
  run(job: InboundJob, file: ReadyFile): Promise<{ ok: boolean; elsewhere: boolean; end: FileRunEnd }>;
}

/**
 * The files the watchers found, offered to their job, and the files other instances held or gave up, put into their
 * job's file queue again (watch.ts `takeOvers`): they run in the queue's order rules and files_in_flight like any file.
 */
export class InboxOffers {
  /**
   * Files another instance held when they were offered here, by job and name: offered again once their lease may have
   * expired, and the reason each listing of their job's inbox looks for files given up (`look`).
   */
  private readonly offeredAgain = new Map<string, unknown>();
  /** Looks for files given up under way (`look`): stop() waits for them before the journal closes. */
  private readonly looks = new Set<Promise<void>>();
  /** Files put first as nobody's (takeOvers) whose run failed here: left to the watcher's order from then on. */
  private readonly failedTakeOvers = new Set<number>();
  /** Files put first as nobody's and not run to their end yet, by drop and name: their journal file. */
  private readonly takenOver = new Map<string, number>();
  /**
   * When each file nobody works on was last put first, by file and the owner whose lease ran out: once a lease at
   * most, so one that cannot be taken here (another job's, or held again) is not put ahead of every next file.
   */
  private readonly putAt = new Map<string, number>();
  /** How many times each journal file was put first as nobody's: what the bound above keeps low (tests read it). */
  readonly takeOverOffers = new Map<number, number>();
  /** Jobs whose files nobody works on are being looked for now. */
  private readonly looking = new Set<string>();
  /** The job's file queue while its watcher looks at the inbox. */
  private readonly queues = new Map<string, (file: ReadyFile) => Promise<void>>();
  /** Watched files running here now, by drop and name (several run at once: files_in_flight). */
  private readonly filesRunning = new Map<string, Promise<FileRun>>();

  constructor(private readonly parts: InboxOfferParts) {}

  /** The job's watcher looks at its inbox: files nobody works on go into its queue (`put`) until the returned call. */
  attach(job: InboundJob, put: (file: ReadyFile) => Promise<void>): () => void {
    this.queues.set(job.name, put);
    return () => {
      if (this.queues.get(job.name) === put) this.queues.delete(job.name);
    };
  }

  /** No file is offered again from now on; resolves once no look for files given up is under way. */
  async stop(): Promise<void> {
    for (const timer of this.offeredAgain.values()) this.parts.clock.clearTimer(timer);
    this.offeredAgain.clear();
    await Promise.allSettled([...this.looks]);
  }

  /**
   * A listing of the job's inbox went well. While another instance holds files of the job (found busy here), each
   * listing looks for files nobody works on any more, so a file another instance gave up (a graceful stop, a run that
   * failed) is taken at this instance's next look at the inbox rather than a lease after it was found busy. Without
   * such files there is nothing to take over, and nothing is asked of the journal.
   */
  look(job: InboundJob): void {
    if (this.parts.signal.aborted || !this.heldElsewhere(job)) return;
    const looking = this.takeOvers(job, undefined).finally(() => this.looks.delete(looking));
    this.looks.add(looking);
  }

  private heldElsewhere(job: InboundJob): boolean {
    const prefix = `${job.name}\n`;
    for (const key of this.offeredAgain.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }

  /**
   * A file the watcher found, run in the job's turn. A file another instance holds (or took over from this one) is
   * left to it; the watcher offers a file once while it stays in the inbox, so it is put into the job's queue again
   * once a lease has passed: still there then, its owner may have died, and the claim takes it over.
   */
  async offer(job: InboundJob, file: ReadyFile): Promise<FileRun> {
    // The same owner may claim a file it holds again: one run of a file at a time in this process, or it would be sent twice.
    const key = runningKey(job.drop, file.name);
    for (let running = this.filesRunning.get(key); running; running = this.filesRunning.get(key)) await running;
    const run = this.offerNow(job, file);
    this.filesRunning.set(key, run);
    try {
      return await run;
    } finally {
      this.filesRunning.delete(key);
    }
  }

  private async offerNow(job: InboundJob, file: ReadyFile): Promise<FileRun> {
    const { ok, elsewhere, end } = await this.parts.run(job, file);
    const takenOver = this.takenOver.get(runningKey(job.drop, file.name));
    if (takenOver !== undefined) {
      this.takenOver.delete(runningKey(job.drop, file.name));
      if (!ok) this.failedTakeOvers.add(takenOver);
    }
    if (elsewhere && !this.parts.signal.aborted) {
      const key = `${job.name}\n${file.name}`;
      this.parts.clock.clearTimer(this.offeredAgain.get(key));
      const timer = this.parts.clock.setTimer(() => {
        if (this.offeredAgain.get(key) === timer) this.offeredAgain.delete(key);
        void this.offerIfStill(job, file);
      }, this.parts.loaded.config.instance.lease_ms);
      this.offeredAgain.set(key, timer);
    }
    return { ok, end };
  }

  /**
   * Before each watched file starts, the files of the job's drop that nobody works on any more (their instance died, or
   * was paused past its lease, or gave them up) are put into the job's queue ahead of the files waiting: the watcher
   * queues the inbox's files as it lists them, and behind a backlog such a file would wait for every file queued
   * before it. The file about to start (`next`, none after a listing) goes on; each of them is put once a lease at most.
   */
  async takeOvers(job: InboundJob, next: string | undefined): Promise<void> {
    const put = this.queues.get(job.name);
    // One look per job at a time: files_in_flight files start at once, and each would find the same files.
    if (put === undefined || this.looking.has(job.name)) return;
    this.looking.add(job.name);
    try {
      const journal = await this.parts.runtime.journal();
      if (journal.instance === null) return;
      const now = this.parts.clock.now();
      const leaseMs = this.parts.loaded.config.instance.lease_ms;
      for (const [key, at] of this.putAt) if (now - at >= leaseMs) this.putAt.delete(key);
      const files = (await journal.filesToTakeOver(job.drop))
        .filter((f) => f.name !== next && !this.failedTakeOvers.has(f.fileId) && !this.putAt.has(`${f.fileId}\n${f.owner}`)
          && !this.filesRunning.has(runningKey(job.drop, f.name)));
      // Counted as put once looked at, whether or not it is still in the inbox: at most once a lease either way.
      for (const f of files) this.putAt.set(`${f.fileId}\n${f.owner}`, now);
      if (files.length === 0) return;
      const drop = await this.parts.runtime.drop(job.drop);
      const options = await this.parts.loaded.dropOptions(job.drop);
      // In marker mode a file comes with its marker, which leaves the inbox with it.
      const marked = options.stability === 'marker' ? await new StableFileWatcher(drop, options).scanReady(this.parts.signal) : undefined;
      for (const f of files) {
        if (this.parts.signal.aborted) return;
        const ready = marked ? marked.find((r) => r.name === f.name) : await drop.stat('inbox', f.name);
        if (ready === undefined) continue;
        this.takeOverOffers.set(f.fileId, (this.takeOverOffers.get(f.fileId) ?? 0) + 1);
        this.parts.logger.info({ event: 'file.takeover-queued', job: job.name, file: f.name, fileId: f.fileId, owner: f.owner }, 'a file nobody works on any more: queued before the files waiting');
        this.takenOver.set(runningKey(job.drop, f.name), f.fileId);
        // Taken here: no longer a file another instance holds, to be offered again a lease later.
        const again = `${job.name}\n${f.name}`;
        this.parts.clock.clearTimer(this.offeredAgain.get(again));
        this.offeredAgain.delete(again);
        await put(ready);
      }
    } catch (error) {
      // The journal or the drop out of reach: the next file's run says so.
      this.parts.logger.debug({ job: job.name, err: describeError(error) }, 'could not look for files nobody works on');
    } finally {
      this.looking.delete(job.name);
    }
  }

  /** A file another instance held, still in the inbox a lease later: into the job's queue again (its owner may have died). */
  private async offerIfStill(job: InboundJob, file: ReadyFile): Promise<void> {
    const put = this.queues.get(job.name);
    if (this.parts.signal.aborted || put === undefined) return;
    try {
      const drop = await this.parts.runtime.drop(job.drop);
      if ((await drop.stat('inbox', file.name)) === undefined) return;
      await put(file);
    } catch (error) {
      this.parts.logger.warn({ job: job.name, file: file.name, err: describeError(error) }, 'could not look at a file another instance held');
    }
  }
}

/** A watched file's place in filesRunning: its drop and name. */
function runningKey(drop: string, name: string): string {
  return `${drop}\n${name}`;
}
