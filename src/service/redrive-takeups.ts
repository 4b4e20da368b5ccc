import { describeError } from '../errors.js';
import type { Journal } from '../journal/index.js';
import type { Logger } from '../log.js';

type TakeUpJournal = Pick<Journal, 'instance' | 'redrivesToTakeUp'>;

/**
 * Takes up re-drives their run left unfinished (the process that ran `retry` or a console re-drive crashed or was
 * stopped): once nobody holds such a file, an instance re-drives it again, which reconciles what the interrupted run
 * left in flight before it sends the failed rows (pipeline/redrive.ts), as a first pass's takeover resumes a file.
 * The file is no longer in the inbox, so the watchers' takeover never meets it. Every instance looks, every lease; a
 * re-drive under way here is not started twice, and one that fails (the service still down) is tried a look later.
 */
export class RedriveTakeUps {
  #timer: NodeJS.Timeout | undefined;
  #looking: Promise<void> | undefined;
  readonly #running = new Set<number>();

  constructor(
    private readonly journal: () => Promise<TakeUpJournal>,
    /** Runs the re-drive of the file as the console's actions run (a stop waits for it). */
    private readonly redrive: (fileId: number) => Promise<unknown>,
    private readonly logger: Logger,
    private readonly stopped: AbortSignal,
  ) {}

  /** One look now (the timer calls it too): resolves once the re-drives it started ended. */
  look(): Promise<void> {
    this.#looking ??= this.#look().catch((error: unknown) => {
      this.logger.warn({ err: describeError(error) }, 'could not look for re-drives left unfinished');
    }).finally(() => {
      this.#looking = undefined;
    });
    return this.#looking;
  }

  start(everyMs: number): void {
    this.#timer ??= setInterval(() => void this.look(), everyMs).unref();
    void this.look();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#looking;
  }

  async #look(): Promise<void> {
    const journal = await this.journal();
    if (journal.instance === null) return;
    const files = (await journal.redrivesToTakeUp()).filter((f) => !this.#running.has(f.fileId));
    await Promise.all(files.map(async (f) => {
      if (this.stopped.aborted) return;
      this.#running.add(f.fileId);
      this.logger.info({ event: 'redrive.takeup', file: f.name, fileId: f.fileId, from: f.owner }, 'a re-drive left unfinished: taken up here');
      try {
        await this.redrive(f.fileId);
      } catch (error) {
        this.logger.warn({ file: f.name, fileId: f.fileId, err: describeError(error) }, 'could not take up the unfinished re-drive: tried again a lease later');
      } finally {
        this.#running.delete(f.fileId);
      }
    }));
  }
}
