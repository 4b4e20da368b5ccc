import { ApiReferenceResolver } from '../client/index.js';
import type { InboundJob } from '../config/schema.js';
import type { Readable } from 'node:stream';
import { ByteCounter } from '../drops/index.js';
import type { NewItem, ResumeState } from '../journal/index.js';
import { mapInbound, type Mapping } from '../mapping/index.js';
import type { Runtime } from '../runtime/runtime.js';
import { sendBatch, type OutgoingDoc, type SenderContext } from './sender.js';
import { CompletionQueue, inlineRecorder, type RequestRecorder } from './completions.js';
import { RecorderThread } from './recorder-thread.js';
import type { ResultSpool } from './result-spool.js';
import type { ProcessFileOptions } from './types.js';
import { documentName, takesWarehouse } from '../contract/index.js';

/** Documents asked from the mapper at a time: its output buffer (4 entries) then holds at most 400 documents. */
const MAPPER_BATCH = 100;
/** Rejected and skipped rows are recorded with the next request, or on their own past this many. */
const EXTRA_FLUSH = 5000;
/**
 * Files of at least this many bytes commit on a RecorderThread (~500,000 rows of five columns): the thread costs
 * ~0.2 s to start, ~25 MB of RSS and some CPU per commit, and saves the main thread's fsync waits — measured a clear
 * gain at 32 MB, none to speak of at 1–8 MB (docs/pipeline.md, Benchmark). WISBRIDGE_RECORDER_THREAD_FROM overrides
 * it (tests of `wisbridge batch`: 1).
 */
export const RECORDER_THREAD_FROM = 16 << 20;

export interface StreamInput {
  runtime: Runtime;
  job: InboundJob;
  name: string;
  /** Opens the bytes to map: the private copy whose checksum was claimed. */
  source: () => Readable;
  options: ProcessFileOptions;
  mapping: Mapping;
  sender: SenderContext;
  /** What an earlier run of this file already settled (finished or sent seqs are skipped). */
  state: ResumeState;
  size: number;
  /** Physical lines of the file (its progress total). */
  lines?: number;
  /** Where the result rows go as they settle (a first run of the file). */
  spool?: ResultSpool;
}

/**
 * Second pass over the file: mapped documents are gathered into requests of the service's batch size, recorded
 * and sent; rejected and skipped rows are recorded with them. Returns false when the signal stopped it between
 * batches (everything outstanding settled first).
 */
export async function streamFile(input: StreamInput): Promise<boolean> {
  const { mapping, state, options, spool } = input;
  const { fileId } = input.sender;
  const recorder = await openRecorder(input);
  const completions = new CompletionQueue(recorder, fileId);
  const service = input.runtime.loaded.service(input.job.service);
  const warehouse = takesWarehouse(mapping.document) ? service.warehouse : undefined;
  const wholeFile = mapping.inbound?.wholeFile === true;
  const requestSize = service.batch_size;
  const counter = new ByteCounter();
  const source = input.source();
  source.on('error', (error) => counter.destroy(error));
  // Requests outstanding at once (services.<name>.requests_in_flight): the journal and the mapping work while the
  // service answers; a whole-file document is one request.
  const window = new InFlight(wholeFile ? 1 : service.requests_in_flight);
  const extra: NewItem[] = [];
  let pending: OutgoingDoc[] = [];
  let endpoint = mapping.document;
  let rows = 0;

  /** Sends what is pending in requests of at most the service's batch size (all of it when `all`, else only full ones). */
  const flush = async (all: boolean): Promise<void> => {
    while (pending.length > 0 && (all || pending.length >= requestSize)) {
      if (options.signal?.aborted && !all) return;
      const docs = wholeFile || pending.length <= requestSize ? pending : pending.slice(0, requestSize);
      pending = docs === pending ? [] : pending.slice(docs.length);
      const sent = sendBatch(input.sender, completions, endpoint, docs, extra);
      if (spool) {
        const first = spool.sending(docs.length);
        await window.add(sent.then((outcomes) => spool.answer(first, docs, outcomes)));
      } else await window.add(sent);
    }
  };
  const outcomes = mapInbound(source.pipe(counter), mapping, {
    fileName: input.name, resolver: new ApiReferenceResolver(input.sender.client), maxBatchItems: Math.min(MAPPER_BATCH, requestSize),
  });
  try {
    for await (const o of outcomes) {
      if (o.kind === 'skipped') {
        rows++;
        if (state.classify(o.line) === 'unsent') extra.push({ seq: o.line, lines: [o.line], status: 'skipped', messages: [o.reason] });
        spool?.skipped(o.line, o.reason);
      } else if (o.kind === 'rejected') {
        rows += o.lines.length;
        const seq = minOf(o.lines);
        const messages = o.errors.map((e) => e.message);
        // Named like a sent row of the same document (the SKU of an adjustment, say), from what was mapped of it.
        const docKey = documentName(o.endpoint, o.key, o.item);
        if (state.classify(seq) === 'unsent') extra.push({ seq, endpoint: o.endpoint, docKey, lines: o.lines, status: 'error', messages });
        spool?.rejected(o.lines, docKey, messages);
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
        spool?.documents(pending.length - before);
        if (pending.length >= requestSize || wholeFile) {
          if (options.signal?.aborted) return await stop();
          await flush(wholeFile);
        }
      }
      if (extra.length >= EXTRA_FLUSH) await completions.commitWith(extra.splice(0));
      options.onProgress?.({ file: input.name, rows, bytes: counter.bytes, size: input.size, lines: input.lines });
    }
    if (options.signal?.aborted && pending.length > 0) return await stop();
    await flush(true);
    await window.drain();
    await completions.flush(extra.splice(0));
    return true;
  } catch (error) {
    await window.drain().catch(() => undefined);
    // outcomes already answered are kept whatever stopped the file; the first error is the one to report
    await completions.flush().catch(() => undefined);
    throw error;
  } finally {
    source.destroy(); // a file rejected half-way must not hold its descriptor until garbage collection
    await recorder.close();
  }

  async function stop(): Promise<false> {
    await window.drain();
    await completions.flush(extra.splice(0));
    return false;
  }
}

/** The file's recorder: a RecorderThread for big files (inline when it cannot start), else the journal's connection. */
async function openRecorder(input: StreamInput): Promise<RequestRecorder> {
  const { journal, logger } = input.sender;
  const from = input.options.recorderThreadFrom ?? (Number(process.env.WISBRIDGE_RECORDER_THREAD_FROM) || RECORDER_THREAD_FROM);
  if (input.size < from || journal.path === ':memory:') return inlineRecorder(journal, logger);
  const thread = new RecorderThread(journal.path, logger);
  try {
    await thread.ready;
    return thread;
  } catch (error) {
    logger.warn({ err: error }, 'the journal recorder thread did not start; recording on the main thread');
    await thread.close().catch(() => undefined);
    return inlineRecorder(journal, logger);
  }
}

function minOf(values: readonly number[]): number {
  let min = values[0];
  for (const v of values) if (v < min) min = v;
  return min;
}

/** At most `limit` sends outstanding; the first failure is rethrown once every outstanding send has settled. */
class InFlight {
  private readonly running = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  constructor(private readonly limit: number) {}

  async add(task: Promise<unknown>): Promise<void> {
    const tracked: Promise<void> = task
      .then(() => undefined, (error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
    while (this.running.size >= this.limit && !this.failure) await Promise.race(this.running);
    if (this.failure) await this.drain();
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.race(this.running);
    if (this.failure) throw this.failure.error;
  }
}
