import type { Readable } from 'node:stream';
import { ApiReferenceIds } from '../client/index.js';
import type { InboundJob } from '../config/schema.js';
import { requestsInFlight } from './requests-in-flight.js';
import { takesWarehouse } from '../contract/index.js';
import { isWisbridgeError } from '../errors.js';
import { canReopen, type Journal, type ResumeState } from '../journal/index.js';
import type { Mapping, X12Share } from '../mapping/index.js';
import type { InterchangeResult } from '../x12/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import { BatchesThread } from './batches-thread.js';
import { applyUnit, CompletionQueue } from './completions.js';
import { FileBatches, type FileRequests, type SpoolEvent } from './file-batches.js';
import type { ResultSpool } from './result-spool.js';
import { sendCommitted, type SenderContext } from './sender.js';
import type { ProcessFileOptions } from './types.js';
import { UndecidedShare } from './undecided.js';
import type { Limiter } from '../util/limiter.js';

/**
 * Files of at least this many bytes are mapped and recorded on a BatchesThread (~500,000 rows of five columns): the
 * thread costs time to start and memory of its own, and takes the mapping's CPU and garbage and the fsync waits off
 * the main thread: a clear gain at twice this size, none to speak of at half of it and below (docs/performance.md,
 * "Settings chosen by measurement"). `mapping_threads.from_bytes` in
 * the configuration, or the `threadFrom` option, says otherwise.
 */
export const THREAD_FROM = 16 << 20;

export interface StreamInput {
  runtime: RuntimeParts<'loaded' | 'undecided' | 'mappingThreads' | 'journalTally', Pick<Journal, 'instance'>>;
  job: InboundJob;
  name: string;
  /** Opens the bytes to map: the private copy whose checksum was claimed. */
  source: () => Readable;
  /** Those bytes as a file (a BatchesThread opens it itself). */
  snapshotFile?: () => Promise<string>;
  options: ProcessFileOptions;
  mapping: Mapping;
  sender: SenderContext;
  /** What an earlier run of this file already did (finished or sent seqs are skipped). */
  state: ResumeState;
  size: number;
  /** Physical lines of the file (its progress total). */
  lines?: number;
  /** Where the result rows go as they are decided (a first run of the file). */
  spool?: ResultSpool;
  /** An X12 file's envelope verdicts, read when it was routed: its rows go on as they are read (MapInboundOptions). */
  x12Verdicts?: readonly InterchangeResult[];
  /** Which of its sets this mapping reads, when they go to several (MapInboundOptions). */
  x12Share?: X12Share;
}

/**
 * Second pass over the file: its requests, mapped and recorded by FileRequests (one commit for as many as the window
 * has room for, with the outcomes answered since the last one), are sent, `requests_in_flight` at once: the requests
 * recorded and those outstanding never exceed it, so after a crash no more are in doubt. Returns false when the
 * signal stopped it between requests (everything outstanding settled first).
 */
export async function streamFile(input: StreamInput): Promise<boolean> {
  const { mapping, options, spool } = input;
  const service = input.runtime.loaded.service(input.job.service);
  const wholeFile = mapping.inbound?.wholeFile === true;
  const requests = await openRequests(input, service.batch_size, takesWarehouse(mapping.document) ? service.warehouse : undefined);
  const share = new UndecidedShare(input.runtime.undecided(input.job.service));
  const completions = new CompletionQueue(requests, input.sender.logger, share);
  // Requests outstanding at once (requests_in_flight of the job or the service, else by kind of write): the journal and the mapping work while the
  // service answers; a whole-file document is one request.
  const window = new InFlight(wholeFile ? 1 : requestsInFlight(service, input.job, mapping.document));
  try {
    for (;;) {
      const stop = options.signal?.aborted === true;
      if (stop) await window.drain();
      // As many requests as the window has room for (and the service's undecided requests, see UndecidedShare),
      // recorded in one commit (one fsync): while a commit waits on the disk several answers come in, and the next
      // commit records their successors together.
      const step = await completions.next(stop, window.room());
      if (spool) replay(spool, step.spool);
      options.onProgress?.({ file: input.name, rows: step.rows, bytes: step.bytes, size: input.size, lines: input.lines });
      for (const request of step.requests) {
        const sent = sendCommitted(input.sender, completions, request);
        if (spool) {
          const first = spool.sending(request.count);
          window.start(sent.then(({ docs, outcomes }) => spool.answer(first, docs, outcomes)));
        } else window.start(sent);
      }
      if (step.end) {
        await window.drain();
        await completions.flush();
        await requests.finish();
        return !stop;
      }
      await window.whenRoom();
      // Every undecided slot of the service is taken (by other files, or by this one's answered requests whose
      // outcomes wait for a commit): wait for one, then commit again.
      if (step.starved) await share.wait(options.signal).catch(() => undefined);
    }
  } catch (error) {
    // Another instance took the file over: its sends still out are aborted now rather than awaited.
    if (isWisbridgeError(error, 'LEASE_LOST')) input.sender.lease?.lose();
    await window.drain().catch(() => undefined);
    // outcomes already answered are kept whatever stopped the file; the first error is the one to report
    await completions.flush().catch(() => undefined);
    await requests.finish().catch(() => undefined);
    throw error;
  } finally {
    share.close();
    await requests.close();
  }
}

/** The mapper's rows, in its order, told to the result spool. */
function replay(spool: ResultSpool, events: readonly SpoolEvent[]): void {
  for (const e of events) {
    if (typeof e === 'number') spool.documents(e);
    else if ('skipped' in e) spool.skipped(e.skipped, e.reason);
    else spool.rejected(e.rejected, e.docKey, e.messages);
  }
}

/**
 * Files whose mapping holds every document until the file's end (an unsorted grouped file; one with control totals,
 * checked before anything is sent) are mapped on a BatchesThread from this size, whatever THREAD_FROM says: on the
 * main thread a 16 MB one exhausted the process's heap and the whole bridge died (V8's fatal error), on every
 * restart; on its thread an overflow refuses the file with the reason (GROUPING_LIMIT) and the bridge goes on.
 */
export const HOLDING_THREAD_FROM = 1 << 20;
/** The heap cap of such a file's thread: the main thread's whole heap (NODE_OPTIONS), so what fitted there fits. */
export const HOLDING_HEAP_MB = 128;

/** Whether a file's mapping holds every document until the file's end (see HOLDING_THREAD_FROM). */
export function holdsDocuments(mapping: Pick<Mapping, 'inbound' | 'definition'>): boolean {
  return mapping.inbound?.totals !== undefined || (mapping.definition.request?.key !== undefined && !mapping.definition.grouping.sorted);
}

/**
 * Whether a file is mapped on a BatchesThread: from `from` bytes, or HOLDING_THREAD_FROM when its mapping holds its
 * documents; never when the whole file is one request (nothing to map while it is out).
 */
export function mapsOnThread(mapping: Pick<Mapping, 'inbound' | 'definition'>, size: number, from: number): boolean {
  if (mapping.inbound?.wholeFile === true) return false;
  return size >= from || (size >= HOLDING_THREAD_FROM && holdsDocuments(mapping));
}

/**
 * The file's requests: mapped and recorded on a BatchesThread for big files, once one of the process's mapping
 * threads (Runtime.mappingThreads) is free (on this thread when it cannot start, or when the flow is stopped while
 * it waits), else here on the journal's connection.
 */
async function openRequests(input: StreamInput, requestSize: number, warehouse: number | undefined): Promise<FileRequests> {
  const { journal, logger, fileId, client } = input.sender;
  const { mapping, name } = input;
  const referenceIds = new ApiReferenceIds(client);
  const tuning = input.runtime.loaded.config.mapping_threads;
  const from = input.options.threadFrom ?? tuning?.from_bytes ?? THREAD_FROM;
  const slots = input.runtime.mappingThreads;
  if (canReopen(journal.address) && input.snapshotFile !== undefined && mapsOnThread(mapping, input.size, from) && await took(slots, input.options.signal)) {
    let snapshotPath: string;
    try {
      snapshotPath = await input.snapshotFile();
    } catch (error) {
      slots.release();
      throw error;
    }
    const { instance } = await input.runtime.journal();
    const thread = new BatchesThread({
      journalAddress: journal.address, snapshotPath, fileId, fresh: input.state.maxSeq < 0, fileName: name,
      lease: instance === null ? undefined : { instance, leaseMs: input.runtime.loaded.config.instance.lease_ms },
      mapping, requestSize, warehouse, x12Verdicts: input.x12Verdicts, x12Share: input.x12Share,
      heapMb: tuning?.heap_mb ?? (holdsDocuments(mapping) ? HOLDING_HEAP_MB : undefined),
    }, referenceIds, () => {
      slots.release();
      logger.debug('the file mapping thread ended');
    }, input.runtime.journalTally);
    try {
      await thread.ready;
      logger.debug({ size: input.size }, 'the file is mapped and recorded on its own thread');
      return thread;
    } catch (error) {
      logger.warn({ err: error }, 'the file mapping thread did not start; mapping on the main thread');
      await thread.close().catch(() => undefined);
    }
  }
  return new FileBatches({
    fileId, fileName: name, source: input.source(), mapping, referenceIds, state: input.state, requestSize, warehouse,
    commit: (unit) => applyUnit(journal, logger, unit), mapAhead: false, x12Verdicts: input.x12Verdicts, x12Share: input.x12Share,
  });
}

/** Waits for a slot of `slots`; false when the flow was stopped first (it then ends at once). */
async function took(slots: Limiter, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await slots.acquire(signal ? [signal] : []);
    return true;
  } catch {
    return false;
  }
}

/** At most `limit` sends outstanding; the first failure is rethrown once every outstanding send has settled. */
class InFlight {
  private readonly running = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;
  constructor(private readonly limit: number) {}

  /** Sends that may start now. */
  room(): number {
    return Math.max(0, this.limit - this.running.size);
  }

  start(task: Promise<unknown>): void {
    const tracked: Promise<void> = task
      .then(() => undefined, (error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  /** Until a send may start (or, after a failure, every send has settled and the failure is thrown). */
  async whenRoom(): Promise<void> {
    if (this.running.size >= this.limit && !this.failure) {
      await Promise.race(this.running);
      // One turn of the event loop: the answers that came in with this one settle too, and the next commit records
      // their successors with it. Without it the loop took each answer alone (on the main thread a commit blocks
      // the thread, so answers arrive in bunches): at 32 in flight nearly every commit held one request, with it few
      // did (docs/performance.md, "Settings chosen by measurement").
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    while (this.running.size >= this.limit && !this.failure) await Promise.race(this.running);
    if (this.failure) await this.drain();
  }

  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.race(this.running);
    if (this.failure) throw this.failure.error;
  }
}
