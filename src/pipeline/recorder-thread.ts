import { WorkerThread } from '../runtime/worker-thread.js';
import type { Logger } from '../log.js';
import type { CommitUnit, Committed, RequestRecorder } from './completions.js';

/** Node's limits of the recorder's isolate: it holds one unit at a time (a request's outcomes and items). */
const LIMITS = { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 };

/**
 * A file's commits on a worker thread with its own connection to the journal file (WAL: the main thread's
 * connection reads and writes beside it). The main thread maps, sends and reads answers while a commit waits for
 * its fsync; a request still leaves only once its record is committed. What travels is mostly text, packed on the
 * main thread in the form the journal stores (structured cloning 1,000 small objects costs the main thread several
 * times more than JSON): the request's items (packBatch) and bodies, all-ok outcomes (packOkOutcomes); outcomes
 * stored one by one and rejected rows go as JSON text.
 */
export class RecorderThread implements RequestRecorder {
  readonly #thread: WorkerThread;
  /** Settles once the worker has opened the journal (or failed to start). */
  readonly ready: Promise<void>;

  constructor(path: string, private readonly logger: Logger) {
    this.#thread = new WorkerThread(new URL('./recorder-worker', import.meta.url), { path }, 'journal recorder', 'JOURNAL', LIMITS);
    this.ready = this.#thread.ready;
  }

  async commit(unit: CommitUnit): Promise<Committed> {
    const { fileId, stores, extra, request } = unit;
    const packed = stores.filter((s) => 'packed' in s);
    const single = packed.length === stores.length ? '[]' : JSON.stringify(stores.filter((s) => !('packed' in s)));
    const committed = (await this.#thread.call('commit', [fileId, packed, single, extra.length === 0 ? '[]' : JSON.stringify(extra), request])) as Committed;
    if (committed.confirmed > 0) this.logger.info({ confirmed: committed.confirmed }, 'acknowledgements from the WMS recorded for the exported work lists');
    return committed;
  }

  close(): Promise<void> {
    return this.#thread.close();
  }
}
