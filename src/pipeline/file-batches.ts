import type { Readable } from 'node:stream';
import { documentName } from '../contract/index.js';
import { ByteCounter } from '../drops/index.js';
import { packBatch, type BlockIndexOf, type ItemOutcome, type NewItem, type PackedBatch, type PackedOkOutcomes, type ResumeState } from '../journal/index.js';
import { mapInbound, type Mapping, type ReferenceIds, type X12Share } from '../mapping/index.js';
import type { InterchangeResult } from '../x12/index.js';
import { TrailingIndex } from './trailing-index.js';
import type { OutgoingDoc } from './types.js';

/** Documents asked from the mapper at a time: its output buffer (4 entries) then holds at most 400 documents. */
const MAPPER_BATCH = 100;
/** Rejected and skipped rows are recorded with the next request, or on their own past this many. */
const EXTRA_FLUSH = 5000;

/**
 * One request's outcomes, waiting to be stored: one by one, or — every item ok and nothing to confirm — packed by
 * packOkOutcomes on the thread that has them, so the recorder stores one text.
 */
export type StoredOutcome = { requestId: number; endpoint: string } & (
  | {
    outcomes: readonly ItemOutcome[];
    /** The request's bodies, only for endpoints whose outcomes confirm exported records (acknowledgements). */
    bodies?: readonly Record<string, unknown>[];
  }
  | { packed: PackedOkOutcomes }
);

/** A request to record and mark sent: its items packed by packBatch, and its bodies as one JSON text. */
export interface NewRequest {
  endpoint: string;
  packed: PackedBatch;
  bodies: string;
}

/** What one journal commit of a file's flow holds: outcomes answered, rows rejected or skipped, the next requests. */
export interface CommitUnit {
  fileId: number;
  stores: readonly StoredOutcome[];
  extra: readonly NewItem[];
  /** Recorded in this order (none when only outcomes are stored), without their search index (TrailingIndex). */
  requests: readonly NewRequest[];
  /** The search index of blocks recorded before (TrailingIndex). */
  index?: readonly BlockIndexOf[];
}

export interface Committed {
  /** The requests recorded, in the unit's order. */
  requestIds: number[];
  /** Exported records the stored acknowledgements confirmed. */
  confirmed: number;
}

/** What the result spool is told, in the mapper's order: documents mapped (a count), a row skipped, rows rejected. */
export type SpoolEvent =
  | number
  | { skipped: number; reason: string }
  | { rejected: readonly number[]; docKey: string | null; messages: readonly string[] };

/** A request recorded and marked sent: send it. `docs` is absent when it crossed from another thread (see docsOf). */
export interface CommittedRequest {
  requestId: number;
  endpoint: string;
  /** How many documents it sends. */
  count: number;
  /** The request's bodies as the journal recorded them: one JSON text. */
  itemsJson: string;
  /** The items' seq, document key and lines as the journal recorded them (PackedDoc list, JSON text). */
  packedDocs: string;
  docs?: OutgoingDoc[];
}

/** One commit of a file's flow and what came of it. */
export interface FileStep {
  /** The requests recorded (and marked sent) by the commit, in the file's order: send them. */
  requests: CommittedRequest[];
  spool: SpoolEvent[];
  /** Rows mapped and bytes read so far (progress). */
  rows: number;
  bytes: number;
  /** No request follows: the file is mapped to its end, or the flow was stopped. */
  end: boolean;
  /** Exported records that the stored acknowledgements confirmed. */
  confirmed: number;
}

/**
 * Where a file's requests come from: mapped and recorded on this thread (FileBatches) or on a worker thread
 * (BatchesThread). Commits reach the journal in call order.
 */
export interface FileRequests {
  /**
   * Records the next requests, up to `most` (default 1; marked sent; none with 0), in one commit with `stores` and
   * the rows rejected or skipped since the last one. With `stop`, or at the end of the file, what is pending is recorded
   * (no request with `stop`) and `end` is set. If it throws, `stores` were not committed.
   */
  next(stores: readonly StoredOutcome[], stop: boolean, most?: number): Promise<FileStep>;
  /** Commits outcomes on their own. */
  store(stores: readonly StoredOutcome[]): Promise<Committed>;
  /** Writes what the flow still owes the journal besides outcomes: the search index of its last blocks. */
  finish(): Promise<void>;
  close(): Promise<void>;
}

export interface FileBatchesInput {
  fileId: number;
  fileName: string;
  source: Readable;
  mapping: Mapping;
  referenceIds?: ReferenceIds;
  /** What an earlier run of this file already did (finished or sent seqs are skipped). */
  state: ResumeState;
  requestSize: number;
  /** The service's warehouse, for documents whose write names one and whose mapping did not. */
  warehouse?: number;
  /** One unit in one transaction (applyUnit on this thread's journal connection). */
  commit: (unit: CommitUnit) => Promise<Committed>;
  /**
   * Map the next request while this one is out (a worker thread does; the main thread maps when asked). The
   * documents mapped ahead are not kept, only their texts: they cross to the main thread as those, and held for a
   * round trip they would outlive the young generation (more old-generation collections on the thread).
   */
  mapAhead: boolean;
  /** An X12 file's envelope verdicts, read when it was routed: its rows go on as they are read (MapInboundOptions). */
  x12Verdicts?: readonly InterchangeResult[];
  x12Share?: X12Share;
}

/** What the mapper gave for one commit. */
interface Batch {
  /** How many documents the request sends. */
  count: number;
  /** The documents themselves, unless mapped ahead (see mapAhead). */
  docs?: OutgoingDoc[];
  /** The request's texts, made when the batch is taken (ahead of its commit on a worker thread). */
  texts?: { itemsJson: string; packed: PackedBatch };
  endpoint: string;
  extra: NewItem[];
  spool: SpoolEvent[];
  rows: number;
  bytes: number;
  end: boolean;
}

/**
 * A file mapped into requests of the service's batch size (a whole-file document into one), each recorded with the
 * rows rejected or skipped before it and the outcomes answered since the last commit. The one mapping loop of the
 * inbound flow, on whichever thread reads the file.
 */
export class FileBatches implements FileRequests {
  readonly #input: FileBatchesInput;
  readonly #batches: AsyncGenerator<Batch, void>;
  #ahead: Promise<IteratorResult<Batch, void>> | undefined;
  /** Rows mapped and bytes read as of the last request taken (the progress a commit without one reports). */
  #rows = 0;
  #bytes = 0;
  readonly #index: TrailingIndex;

  constructor(input: FileBatchesInput) {
    this.#input = input;
    this.#batches = this.#map();
    this.#index = new TrailingIndex((index) => input.commit({ fileId: input.fileId, stores: [], extra: [], requests: [], index }));
  }

  async next(stores: readonly StoredOutcome[], stop: boolean, most = 1): Promise<FileStep> {
    if (most === 0 && !stop) {
      // No request may be recorded now (the service's undecided requests are at their cap): the outcomes alone.
      const { confirmed } = stores.length > 0 ? await this.store(stores) : { confirmed: 0 };
      return { requests: [], spool: [], rows: this.#rows, bytes: this.#bytes, end: false, confirmed };
    }
    const pending = this.#ahead ?? this.#batches.next();
    this.#ahead = undefined;
    const taken: Batch[] = [];
    let got = await pending;
    if (!got.done) taken.push(got.value);
    // More batches while requests may still go (a batch of rejected rows only, EXTRA_FLUSH, counts for none).
    let counted = taken[0]?.texts ? 1 : 0;
    while (!stop && counted < most && !got.done && !got.value.end) {
      got = await this.#batches.next();
      if (got.done) break;
      taken.push(got.value);
      if (got.value.texts) counted++;
    }
    const last = taken.at(-1);
    const end = stop || last === undefined || last.end;
    const sending = stop ? [] : taken.filter((b) => b.texts !== undefined);
    const { fileId, commit } = this.#input;
    const committed = await commit({
      fileId, stores, extra: taken.length === 1 ? taken[0].extra : taken.flatMap((b) => b.extra),
      requests: sending.map((b) => ({ endpoint: b.endpoint, packed: { ...b.texts!.packed, index: undefined }, bodies: b.texts!.itemsJson })),
    });
    const indexes: BlockIndexOf[] = [];
    sending.forEach((b, i) => {
      const index = b.texts!.packed.index;
      if (index !== undefined) indexes.push({ requestId: committed.requestIds[i], index });
    });
    this.#index.add(indexes);
    const requests = sending.map((b, i): CommittedRequest => {
      const { itemsJson, packed } = b.texts!;
      return { requestId: committed.requestIds[i], endpoint: b.endpoint, count: b.count, itemsJson, packedDocs: packed.docs, docs: b.docs };
    });
    if (!end && this.#input.mapAhead) {
      this.#ahead = this.#batches.next();
      this.#ahead.catch(() => undefined); // rethrown by the next call
    }
    const spool = taken.length === 1 ? taken[0].spool : taken.flatMap((b) => b.spool);
    this.#rows = last?.rows ?? this.#rows;
    this.#bytes = last?.bytes ?? this.#bytes;
    return { requests, spool, rows: this.#rows, bytes: this.#bytes, end, confirmed: committed.confirmed };
  }

  async store(stores: readonly StoredOutcome[]): Promise<Committed> {
    const index = this.#index.take();
    try {
      return await this.#input.commit({ fileId: this.#input.fileId, stores, extra: [], requests: [], index });
    } catch (error) {
      this.#index.giveBack(index);
      throw error;
    }
  }

  finish(): Promise<void> {
    return this.#index.flush();
  }

  async close(): Promise<void> {
    this.#index.close();
    await this.#ahead?.catch(() => undefined);
    await this.#batches.return();
  }

  async *#map(): AsyncGenerator<Batch, void> {
    const { mapping, state, requestSize, warehouse, source } = this.#input;
    const wholeFile = mapping.inbound?.wholeFile === true;
    const counter = new ByteCounter();
    source.on('error', (error) => counter.destroy(error));
    let pending: OutgoingDoc[] = [];
    let extra: NewItem[] = [];
    let spool: SpoolEvent[] = [];
    let endpoint: string = mapping.document;
    let rows = 0;
    const take = (docs: OutgoingDoc[], end: boolean): Batch => {
      const texts = docs.length > 0 ? textsOf(endpoint, docs) : undefined;
      const batch = { count: docs.length, docs: this.#input.mapAhead ? undefined : docs, texts, endpoint, extra, spool, rows, bytes: counter.bytes, end };
      extra = [];
      spool = [];
      return batch;
    };
    const outcomes = mapInbound(source.pipe(counter), mapping, {
      fileName: this.#input.fileName, referenceIds: this.#input.referenceIds, maxBatchItems: Math.min(MAPPER_BATCH, requestSize),
      x12Verdicts: this.#input.x12Verdicts, x12Share: this.#input.x12Share,
    });
    try {
      for await (const o of outcomes) {
        if (o.kind === 'skipped') {
          rows++;
          if (state.classify(o.line) === 'unsent') extra.push({ seq: o.line, lines: [o.line], status: 'skipped', messages: [o.reason] });
          spool.push({ skipped: o.line, reason: o.reason });
        } else if (o.kind === 'rejected') {
          rows += o.lines.length;
          const seq = minOf(o.lines);
          const messages = o.errors.map((e) => e.message);
          // Named like a sent row of the same document (the SKU of an adjustment, say), from what was mapped of it.
          const docKey = documentName(o.endpoint, o.key, o.item);
          if (state.classify(seq) === 'unsent') extra.push({ seq, endpoint: o.endpoint, docKey, lines: o.lines, status: 'error', messages });
          spool.push({ rejected: o.lines, docKey, messages });
        } else {
          endpoint = o.endpoint;
          const before = pending.length;
          for (const d of o.documents) {
            rows += d.lines.length;
            const seq = d.lines[0];
            if (state.classify(seq) !== 'unsent') continue;
            if (warehouse !== undefined && d.item.warehouse === undefined) d.item.warehouse = warehouse;
            const docKey = documentName(o.endpoint, d.key, d.item);
            pending.push({ seq, docKey, lines: d.lines, item: d.item });
          }
          if (pending.length > before) spool.push(pending.length - before);
          while (!wholeFile && pending.length >= requestSize) {
            const docs = pending.length === requestSize ? pending : pending.slice(0, requestSize);
            pending = docs === pending ? [] : pending.slice(requestSize);
            yield take(docs, false);
          }
        }
        if (extra.length >= EXTRA_FLUSH) yield take([], false);
      }
      while (!wholeFile && pending.length > requestSize) {
        const docs = pending.slice(0, requestSize);
        pending = pending.slice(requestSize);
        yield take(docs, false);
      }
      yield take(pending, true);
    } finally {
      source.destroy(); // a file rejected half-way must not hold its descriptor until garbage collection
    }
  }
}

/** Serialized once: the journal stores these texts and the request is sent from them. */
function textsOf(endpoint: string, docs: readonly OutgoingDoc[]): Batch['texts'] {
  const bodies: Record<string, unknown>[] = new Array(docs.length);
  for (let i = 0; i < docs.length; i++) bodies[i] = docs[i].item;
  return { itemsJson: JSON.stringify(bodies), packed: packBatch(endpoint, docs, bodies) };
}

function minOf(values: readonly number[]): number {
  let min = values[0];
  for (const v of values) if (v < min) min = v;
  return min;
}
