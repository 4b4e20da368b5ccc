import { describeError } from '../errors.js';
import type { Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { PeriodicLook } from './periodic-look.js';

type TakeUpJournal = Pick<Journal, 'instance' | 'redrivesToTakeUp'>;

/**
 * Takes up re-drives their run left unfinished (the process that ran `retry` or a console re-drive crashed or was
 * stopped): once nobody holds such a file, an instance re-drives it again, which reconciles what the interrupted run
 * left in flight before it sends the failed rows (pipeline/redrive.ts), as a first pass's takeover resumes a file.
 * The file is no longer in the inbox, so the watchers' takeover never meets it. Every instance looks, every lease; a
 * look waits for the re-drives it started (one under way holds its file's lease, so no look lists it), and one that
 * fails (the service still down) is tried a look later.
 */
export class RedriveTakeUps {
  readonly #periodic = new PeriodicLook(() => this.#look(), (error: unknown) => {
    this.logger.warn({ err: describeError(error) }, 'could not look for re-drives left unfinished');
  });

  constructor(
    private readonly journal: () => Promise<TakeUpJournal>,
    /** Runs the re-drive of the file as the console's actions run (a stop waits for it). */
    private readonly redrive: (fileId: number) => Promise<unknown>,
    private readonly logger: Logger,
    private readonly stopped: AbortSignal,
  ) {}

  /** One look now, and one every `everyMs`. */
  start(everyMs: number): void {
    this.#periodic.start(everyMs);
    void this.#periodic.look();
  }

  stop(): Promise<void> {
    return this.#periodic.stop();
  }

  async #look(): Promise<void> {
    const journal = await this.journal();
    if (journal.instance === null) return;
    const files = await journal.redrivesToTakeUp();
    await Promise.all(files.map(async (f) => {
      if (this.stopped.aborted) return;
      this.logger.info({ event: 'redrive.takeup', file: f.name, fileId: f.fileId, from: f.owner }, 'a re-drive left unfinished: taken up here');
      try {
        await this.redrive(f.fileId);
      } catch (error) {
        this.logger.warn({ file: f.name, fileId: f.fileId, err: describeError(error) }, 'could not take up the unfinished re-drive: tried again a lease later');
      }
    }));
  }
}
