import type { Mapping, ReferenceKind, ReferenceResolver } from '../mapping/index.js';
import { WorkerThread } from '../runtime/worker-thread.js';
import type { Committed, StoredOutcome } from './completions.js';
import type { FileRequests, FileStep } from './file-batches.js';

/**
 * Node's limits of the thread's isolate. It maps one request ahead (1,000 documents) and holds the request it
 * records: a young generation of 8 MB cost it ~30 % more CPU, 24 MB gained nothing. The old generation's cap leaves
 * room for documents grouped over many rows; the bridge's peak was the same with 32 MB (docs/pipeline.md, Eighth round).
 */
const LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };

/** What the thread needs to read, map and record a file. */
export interface BatchesThreadData {
  journalPath: string;
  /** The private copy of the file whose checksum was claimed. */
  snapshotPath: string;
  fileId: number;
  fileName: string;
  /** The mapping as the main thread loaded it. */
  mapping: Mapping;
  requestSize: number;
  warehouse?: number;
}

/** What crosses to the thread (structured-cloned): the mapping as its definition, compiled again there. */
export type ThreadData = Omit<BatchesThreadData, 'mapping'> & { mapping: Pick<Mapping, 'name' | 'file' | 'definition'> };

/**
 * A file read, mapped and recorded on a worker thread with its own connection to the journal file (WAL: the main
 * thread's connection reads and writes beside it): FileBatches run there, mapping the next request while this one
 * is out, so the main thread only sends requests and reads their answers. A request still leaves only once its
 * record is committed. References the mapping resolves are looked up by the main thread's client (`resolve`).
 * Outcomes travel packed (packOkOutcomes) or as one JSON text: structured cloning 1,000 small objects costs the main
 * thread several times more.
 */
export class BatchesThread implements FileRequests {
  readonly #thread: WorkerThread;
  /** Settles once the worker has opened the journal and the file (or failed to start). */
  readonly ready: Promise<void>;

  constructor(data: BatchesThreadData, resolver: ReferenceResolver) {
    const { name, file, definition } = data.mapping;
    // The definition crosses, not the compiled mapping (functions cannot be cloned).
    const cloned: ThreadData = { ...data, mapping: { name, file, definition } };
    this.#thread = new WorkerThread(new URL('./batches-worker', import.meta.url), cloned, 'file mapping', 'JOURNAL', LIMITS, {
      resolve: (kind: ReferenceKind, keys: readonly string[]) => resolver.resolve(kind, keys),
    });
    this.ready = this.#thread.ready;
  }

  async next(stores: readonly StoredOutcome[], stop: boolean): Promise<FileStep> {
    return (await this.#thread.call('next', [...split(stores), stop])) as FileStep;
  }

  async store(stores: readonly StoredOutcome[]): Promise<Committed> {
    return (await this.#thread.call('store', split(stores))) as Committed;
  }

  close(): Promise<void> {
    return this.#thread.close();
  }
}

/** Packed outcomes as they are (a few strings each), the others as one JSON text. */
function split(stores: readonly StoredOutcome[]): [StoredOutcome[], string] {
  const packed = stores.filter((s) => 'packed' in s);
  return [packed, packed.length === stores.length ? '[]' : JSON.stringify(stores.filter((s) => !('packed' in s)))];
}
