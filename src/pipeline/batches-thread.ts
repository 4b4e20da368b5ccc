import { WisbridgeError } from '../errors.js';
import type { Mapping, ReferenceKind, ReferenceIds, X12Share } from '../mapping/index.js';
import { WorkerThread } from '../runtime/worker-thread.js';
import type { InterchangeResult } from '../x12/index.js';
import type { InstanceInfo, JournalAddress, JournalTally } from '../journal/index.js';
import type { Committed, FileRequests, FileStep, StoredOutcome } from './file-batches.js';

/**
 * The semi-spaces of the thread's isolate (the main thread's are production's 8 MB, src/runtime/node-options.ts).
 * On a big file, with 16 MB its collections paused it less than with 8, and fell more rarely into their costly
 * pattern (each scavenge promoting the documents being mapped: several times the full collections), for a little
 * more peak RSS (docs/performance.md, "Settings chosen by measurement").
 */
const SEMI_SPACE_MB = 16;
/**
 * The cap of its old generation, unless the file's mapping holds its documents (HOLDING_HEAP_MB in stream.ts) or
 * `mapping_threads.heap_mb` says otherwise. The thread's modules take a part of it; the bridge's peak on a million
 * rows was the same as with less (docs/performance.md, "Settings chosen by measurement").
 */
export const THREAD_HEAP_MB = 64;

/** What the thread needs to read, map and record a file. */
export interface BatchesThreadData {
  /** The journal the thread opens its own connection to. */
  journalAddress: JournalAddress;
  /** Under `wisbridge run`: the instance whose lease of the file the thread's writes carry (they are fenced like the main thread's). */
  lease?: { instance: InstanceInfo; leaseMs: number };
  /** The private copy of the file whose checksum was claimed. */
  snapshotPath: string;
  fileId: number;
  /** Nothing of the file is recorded yet (freshState), so the thread need not read where a crash left it. */
  fresh: boolean;
  fileName: string;
  /** The mapping as the main thread loaded it. */
  mapping: Mapping;
  requestSize: number;
  warehouse?: number;
  /** An X12 file's envelope verdicts, read when it was routed. */
  x12Verdicts?: readonly InterchangeResult[];
  x12Share?: X12Share;
  /** The old generation's cap (THREAD_HEAP_MB by default). */
  heapMb?: number;
}

/** What crosses to the thread (structured-cloned): the mapping as its definition, compiled again there. */
export type ThreadData = Omit<BatchesThreadData, 'mapping'> & { mapping: Pick<Mapping, 'name' | 'file' | 'definition'> };

/**
 * A file read, mapped and recorded on a worker thread with its own connection to the journal file (WAL: the main
 * thread's connection reads and writes beside it): FileBatches run there, mapping the next request while this one
 * is out, so the main thread only sends requests and reads their answers. A request still leaves only once its
 * record is committed. The ids of a mapping's references are fetched by the main thread's client (`idsOf`).
 * Outcomes travel packed (packOkOutcomes) or as one JSON text: structured cloning 1,000 small objects costs the main
 * thread several times more.
 */
export class BatchesThread implements FileRequests {
  readonly #thread: WorkerThread;
  #fileName: string;
  readonly #heapMb: number;
  /** Settles once the worker has opened the journal and the file (or failed to start). */
  readonly ready: Promise<void>;

  #onClosed: (() => void) | undefined;
  readonly #tally: JournalTally | undefined;

  /**
   * `onClosed`: called once, when the thread has ended (close, or a start that failed and was closed). `tally`: where
   * the thread's commits and syncs are added once it closes (as JournalThread's).
   */
  constructor(data: BatchesThreadData, referenceIds: ReferenceIds, onClosed?: () => void, tally?: JournalTally) {
    this.#onClosed = onClosed;
    this.#tally = tally;
    this.#fileName = data.fileName;
    this.#heapMb = data.heapMb ?? THREAD_HEAP_MB;
    const limits = { maxOldGenerationSizeMb: this.#heapMb, semiSpaceMb: SEMI_SPACE_MB };
    this.#thread = new WorkerThread(new URL('../pipeline/batches-worker', import.meta.url), crossing(data), 'file mapping', 'JOURNAL', limits, {
      idsOf: (kind: ReferenceKind, keys: readonly string[]) => referenceIds.idsOf(kind, keys),
    });
    this.ready = this.#thread.ready;
  }

  next(stores: readonly StoredOutcome[], stop: boolean, most = 1): Promise<FileStep> {
    return this.#call('next', [...split(stores), stop, most]) as Promise<FileStep>;
  }

  store(stores: readonly StoredOutcome[]): Promise<Committed> {
    return this.#call('store', split(stores)) as Promise<Committed>;
  }

  async finish(): Promise<void> {
    await this.#call('finish', []);
  }

  /**
   * A thread that ran out of memory would do so again on every run of the file (mapping is deterministic): the file
   * is refused as a whole (GROUPING_LIMIT, file-level: error/ with the reason, the rows decided so far in its result
   * file) instead of failing each run.
   */
  async #call(op: string, args: unknown[]): Promise<unknown> {
    try {
      return await this.#thread.call(op, args);
    } catch (error) {
      if ((error as { cause?: { code?: unknown } }).cause?.code !== 'ERR_WORKER_OUT_OF_MEMORY') throw error;
      throw new WisbridgeError('GROUPING_LIMIT', `${this.#fileName}: mapping it outgrew the memory of its thread (a ${this.#heapMb} MB heap; an unsorted `
        + 'grouped file, or one with control totals, holds every document until its end): sort the file by its key and set grouping.sorted: true, '
        + 'split the file, or raise mapping_threads.heap_mb', { cause: error });
    }
  }

  /**
   * Releases the file open on the thread and opens another (its journal, mapping and lease as given; the heap stays
   * the thread's): the thread's modules, which take most of its start, load once.
   */
  async open(data: BatchesThreadData): Promise<void> {
    const closed = await this.#call('open', [crossing(data)]);
    this.#tally?.addClosed(closed);
    this.#fileName = data.fileName;
  }

  /** Closes the file and the thread's connection to the journal, but not the thread (`open` gives it another file). */
  async release(): Promise<void> {
    const closed = await this.#call('release', []);
    this.#tally?.addClosed(closed);
  }

  async close(): Promise<void> {
    try {
      // Not inside `?.(…)`: without a tally, the argument would not be evaluated and the thread never closed.
      const closed = await this.#thread.close();
      this.#tally?.addClosed(closed);
    } finally {
      const onClosed = this.#onClosed;
      this.#onClosed = undefined;
      onClosed?.();
    }
  }
}

/** The definition crosses, not the compiled mapping (functions cannot be cloned). */
function crossing(data: BatchesThreadData): ThreadData {
  const { name, file, definition } = data.mapping;
  return { ...data, mapping: { name, file, definition } };
}

/** Packed outcomes as they are (a few strings each), the others as one JSON text. */
function split(stores: readonly StoredOutcome[]): [StoredOutcome[], string] {
  const packed = stores.filter((s) => 'packed' in s);
  return [packed, packed.length === stores.length ? '[]' : JSON.stringify(stores.filter((s) => !('packed' in s)))];
}
