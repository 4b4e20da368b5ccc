import type { InboundJob } from '../config/schema.js';
import { StableFileWatcher, type ReadyFile } from '../drops/index.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import { pause, type Clock } from './clock.js';

export interface WatchOptions {
  runtime: RuntimeParts<'loaded' | 'drop'>;
  job: InboundJob;
  clock: Clock;
  signal: AbortSignal;
  logger: Logger;
  retryMs: number;
  /** Told after each listing of the inbox, with the error when it failed. */
  onListing?: (error?: unknown) => void;
  /** Processes one ready file; false when the run failed (the file stays and is offered again later). */
  onFile(file: ReadyFile): Promise<boolean>;
}

/**
 * Watches a job's inbox until the signal aborts. The watcher emits a file once while it stays in the
 * inbox, so after a failed run (service down, drop unreachable) the watch restarts after a pause and
 * every file still there is offered again; the journal makes that safe.
 */
export async function watchInbox(options: WatchOptions): Promise<void> {
  const { runtime, job, signal, logger } = options;
  while (!signal.aborted) {
    let failed = false;
    try {
      const drop = await runtime.drop(job.drop);
      const dropOptions = await runtime.loaded.dropOptions(job.drop);
      const watcher = new StableFileWatcher(drop, { ...dropOptions, onListing: options.onListing }, logger);
      logger.info({ drop: job.drop }, 'watching the inbox');
      for await (const file of watcher.watch(signal)) {
        logger.info({ file: file.name, size: file.size }, 'file ready');
        if (!(await options.onFile(file))) {
          failed = true;
          break;
        }
      }
    } catch (error) {
      failed = true;
      options.onListing?.(error);
      logger.error({ drop: job.drop, err: describeError(error) }, 'watching the inbox failed');
    }
    if (failed && !signal.aborted) {
      logger.info({ retryInMs: options.retryMs }, 'looking at the inbox again after a pause');
      await pause(options.clock, options.retryMs, signal);
    }
  }
}
