import type { InboundJob } from '../config/schema.js';
import { StableFileWatcher, type ReadyFile } from '../drops/index.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import { FileQueue, placeOfFile, type FilePlace, type FileRunEnd } from '../pipeline/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import { pause, type Clock } from './clock.js';

/** How one file's run went: false `ok` when the run failed (the file stays and is offered again later). */
export interface FileRun {
  ok: boolean;
  end: FileRunEnd;
}

export interface WatchOptions {
  runtime: RuntimeParts<'loaded' | 'drop' | 'mappings'>;
  job: InboundJob;
  clock: Clock;
  signal: AbortSignal;
  logger: Logger;
  retryMs: number;
  /** Told after each listing of the inbox, with the error when it failed. */
  onListing?: (error?: unknown) => void;
  /** Told of each ready file as it is found, before it is queued (awaited: files found next wait for it). */
  onReady?(file: ReadyFile): Promise<void>;
  /** Processes one ready file; up to the job's files_in_flight at once. */
  onFile(file: ReadyFile): Promise<FileRun>;
  /**
   * While a look at the inbox lasts: `put` queues a file nobody works on any more ahead of the others, within the
   * order rules and files_in_flight. Returns what ends it (a file put later waits for the next look, which lists it).
   */
  takeOvers?(put: (file: ReadyFile) => Promise<void>): () => void;
}

class RunFailed extends Error {}

/**
 * Watches a job's inbox until the signal aborts. Each listing's new files go into a FileQueue, run
 * `files_in_flight` at once within the order rules. The watcher emits a file once while it stays in the inbox, so
 * after a failed run (service down, drop unreachable), or when a file that others must follow stayed (held by another
 * instance, waiting for its checksum file), the watch stops taking files, lets the files in flight finish, and
 * restarts after a pause: every file still there is offered again, in order; the journal makes that safe.
 */
export async function watchInbox(options: WatchOptions): Promise<void> {
  const { runtime, job, signal, logger } = options;
  while (!signal.aborted) {
    let failed = false;
    let relist = false;
    const session = new AbortController();
    const endSession = () => session.abort();
    signal.addEventListener('abort', endSession, { once: true });
    const queue = new FileQueue<ReadyFile>({
      limit: job.files_in_flight,
      signal,
      run: async (file) => {
        const run = await options.onFile(file);
        if (!run.ok) throw new RunFailed(file.name);
        return run.end;
      },
      onFailure: () => {
        failed = true;
        session.abort();
      },
      onBlocked: (name) => {
        logger.info({ file: name }, 'file not finished: the files that must follow it wait until the inbox is looked at again');
        relist = true;
        session.abort();
      },
    });
    const detach = options.takeOvers?.(async (file) => {
      const place = await placeOfFile(runtime, job, file.name);
      // Once this look ended its queue only drains: the next look lists the file.
      if (!session.signal.aborted) queue.add(file, file.name, place, true);
    });
    try {
      const drop = await runtime.drop(job.drop);
      const dropOptions = await runtime.loaded.dropOptions(job.drop);
      const watcher = new StableFileWatcher(drop, { ...dropOptions, onListing: options.onListing }, logger);
      logger.info({ drop: job.drop }, 'watching the inbox');
      for await (const files of watcher.watchListings(session.signal)) {
        const places: FilePlace[] = [];
        for (const file of files) {
          logger.info({ event: 'file.ready', file: file.name, size: file.size }, 'file ready');
          await options.onReady?.(file);
          places.push(await placeOfFile(runtime, job, file.name));
        }
        // Added together, in one turn: the queue weighs a listing's files against each other before starting any.
        files.forEach((file, i) => queue.add(file, file.name, places[i]));
      }
    } catch (error) {
      failed = true;
      options.onListing?.(error);
      logger.error({ drop: job.drop, err: describeError(error) }, 'watching the inbox failed');
    } finally {
      signal.removeEventListener('abort', endSession);
    }
    session.abort();
    detach?.();
    await queue.drained().catch(() => undefined);
    if ((failed || relist) && !signal.aborted) {
      logger.info({ retryInMs: options.retryMs }, 'looking at the inbox again after a pause');
      await pause(options.clock, options.retryMs, signal);
    }
  }
}
