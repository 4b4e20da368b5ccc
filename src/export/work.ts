import type { ResourceLimits } from 'node:worker_threads';
import type { ListEndpointId, WisClient } from '../client/index.js';
import type { ExportJob } from '../config/schema.js';
import type { Drop } from '../drops/index.js';
import { canReopen, type ExportRecordInput, type ExportJournal, type JournalTally } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { Mapping } from '../mapping/index.js';
import { createExportRenderer, encodeChunks, type ExportRenderer } from '../mapping/index.js';
import { writeRecorded } from './files.js';
import { inlineJournalWriter, JournalThread, type ExportJournalWriter } from './journal-writer.js';
import { journalRecord, type ListedRecord } from './journal-record.js';
import { FileRecording, type FileJournalSpec } from './recording.js';
import { ExportPages } from './pages.js';
import { formatFileName } from './work-types.js';

export interface WrittenFile {
  name: string;
  kind: 'work' | 'cancellation';
  records: number;
  bytes: number;
}

export interface FileContext {
  job: ExportJob;
  client: WisClient;
  journal: ExportJournal;
  drop: Drop;
  logger: Logger;
  concurrency: number;
  signal?: AbortSignal;
  /**
   * Resolves when this run may write to the outbox (the instance's heartbeat is fresh); throws once `signal` aborted
   * (a scheduled run whose tick another instance took over writes nothing more).
   */
  fence?: () => Promise<void>;
  now: () => Date;
  tuning?: ExportTuning;
  /** Where a journal thread's commits and syncs are added when it ends (the process's, Runtime.journalTally). */
  journalTally?: JournalTally;
}

/**
 * How an export uses worker threads and journal transactions; the defaults suit production, tests make every path
 * reachable with little data.
 */
export interface ExportTuning {
  /** Records recorded per transaction (default 1,000): the listing's answers are served in between. */
  chunk?: number;
  /** Files of at least this many records are journaled on a JournalThread, not the main thread (default 5,000). */
  threadFrom?: number;
  /**
   * With concurrent paging, pending-work pages are decoded on a page thread started once this many records were
   * listed (default 200; 0: started before the listing, every page waits for it; see ExportPages).
   */
  pageThreadFrom?: number;
  /** A listing counted at this many records or more waits for the page thread from its start (default 5,000). */
  pageThreadWaitFrom?: number;
  /** Node's resource limits of the page thread (tests starve it to prove the fallback to the main thread). */
  pageThreadLimits?: ResourceLimits;
}
const JOURNAL_CHUNK = 1_000;
const JOURNAL_THREAD_FROM = 5_000;
const PAGE_THREAD_FROM = 200;
const PAGE_THREAD_WAIT_FROM = 5_000;

/**
 * Collects records into files of at most max_records_per_file. Each record is rendered to CSV text when it is
 * added (the listed objects are not kept, only their text and journal fields); each file is recorded in the
 * journal (with its records, in parts) before it is written, and marked written once it is in the outbox. A file
 * that reaches `threadFrom` records is named then and recorded on the journal thread while it goes on filling up;
 * a full file is written while the caller goes on adding (the listing keeps its requests in flight). Files are
 * named in order and written one after another, in order; `flush` waits for all of them. A failed write fails the
 * next `add` and the final `flush`, and the files after it are abandoned. `close` (always, also after a failure)
 * ends the journal thread, if one was started.
 */
export class FileBatcher {
  readonly files: WrittenFile[] = [];
  readonly #renderer: ExportRenderer;
  #records: ExportRecordInput[] = [];
  #texts: string[] = [];
  /** The file filling up, when it is recorded while it fills; #records[0 .. #recorded) are given to it. */
  #open: FileRecording | undefined;
  #recorded = 0;
  #writing: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  #thread: JournalThread | undefined;
  #threadFailed = false;

  constructor(
    private readonly ctx: FileContext,
    mapping: Mapping,
    private readonly spec: FileJournalSpec,
    private readonly options: { fileName: string },
  ) {
    this.#renderer = createExportRenderer(mapping);
  }

  /** The renderer of this batcher's mapping (records rendered elsewhere must be rendered the same way). */
  get renderer(): ExportRenderer {
    return this.#renderer;
  }

  async add(record: ListedRecord): Promise<void> {
    return this.addRendered(journalRecord(record), this.#renderer.render(record));
  }

  /** A record already rendered through this batcher's mapping (`text`: its rows). */
  async addRendered(record: ExportRecordInput, text: string): Promise<void> {
    if (this.#failure) throw this.#failure.error;
    this.#texts.push(text);
    const n = this.#records.push(record);
    if (this.#open) {
      if (n - this.#recorded >= this.#chunk) this.#recordPart(n);
    } else if (n === this.#threadFrom && n < this.ctx.job.max_records_per_file) {
      this.#open = await this.#recording(n);
      this.#recordPart(n);
    }
    if (n >= this.ctx.job.max_records_per_file) await this.#queue(false);
  }

  /** Writes what is buffered and waits for every file; with `allowEmpty`, a header-only file when nothing at all was written. */
  async flush(allowEmpty = false): Promise<void> {
    await this.#queue(allowEmpty);
    await this.#writing;
    if (this.#failure) throw this.#failure.error;
  }

  async close(): Promise<void> {
    const open = this.#open;
    this.#open = undefined;
    await Promise.all([this.#writing, open?.abandon()]);
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.close();
  }

  async #queue(allowEmpty: boolean): Promise<void> {
    const records = this.#records;
    const texts = this.#texts;
    let recording = this.#open;
    if (recording) this.#recordPart(records.length);
    this.#records = [];
    this.#texts = [];
    this.#open = undefined;
    this.#recorded = 0;
    if (!recording && records.length > 0) {
      // named now, so that files are named in order whatever the journal is still doing for earlier ones
      recording = await this.#recording(records.length);
      for (let start = 0; start < records.length; start += this.#chunk) recording.part(records.slice(start, start + this.#chunk));
    }
    const file = recording;
    this.#writing = this.#writing
      .then(async () => {
        if (this.#failure) return file?.abandon();
        if (file) return this.#write(file, records, texts);
        if (allowEmpty && this.files.length === 0) {
          const empty = await this.#recording(0);
          empty.part([]);
          return this.#write(empty, records, texts);
        }
        return undefined;
      })
      .catch((error: unknown) => {
        this.#failure ??= { error };
      });
  }

  get #chunk(): number {
    return this.ctx.tuning?.chunk ?? JOURNAL_CHUNK;
  }

  get #threadFrom(): number {
    return this.ctx.tuning?.threadFrom ?? JOURNAL_THREAD_FROM;
  }

  /** A new file of this batcher, named now, recorded through the journal thread when it has `threadFrom` records. */
  async #recording(records: number): Promise<FileRecording> {
    const { job, journal, logger } = this.ctx;
    const name = formatFileName(this.options.fileName, job, this.ctx.now(), await journal.nextFileSequence(job.name));
    return new FileRecording(name, this.#writer(records), journal, this.spec, logger);
  }

  /** Gives the open file the buffered records up to `n`, in parts of #chunk. */
  #recordPart(n: number): void {
    for (let start = this.#recorded; start < n; start += this.#chunk) this.#open!.part(this.#records.slice(start, Math.min(start + this.#chunk, n)));
    this.#recorded = n;
  }

  /** The journal thread for files of `records` records, started if need be; inline when it cannot start. */
  async #writer(records: number): Promise<ExportJournalWriter> {
    if (records >= this.#threadFrom) this.#startThread();
    const thread = this.#thread;
    if (!thread) return inlineJournalWriter(this.ctx.journal);
    try {
      await thread.ready;
      return thread;
    } catch (error) {
      if (this.#thread === thread) {
        this.ctx.logger.warn({ err: error }, 'export: the journal thread did not start; journaling on the main thread');
        this.#thread = undefined;
        this.#threadFailed = true;
      }
      return inlineJournalWriter(this.ctx.journal);
    }
  }

  #startThread(): void {
    if (this.#thread || this.#threadFailed || !canReopen(this.ctx.journal.address)) return;
    this.#thread = new JournalThread(this.ctx.journal.address, this.ctx.journalTally, this.ctx.journal.instance);
  }

  async #write(file: FileRecording, records: ExportRecordInput[], texts: string[]): Promise<void> {
    const { journal, drop, logger } = this.ctx;
    const recorded = await file.done();
    if (!recorded) return;
    const { exportId, left } = recorded;
    const kept = left.size === 0 ? records : records.filter((r) => !left.has(r.id));
    const keptTexts = left.size === 0 ? texts : texts.filter((_, i) => !left.has(records[i]!.id));
    const name = file.name;
    const written = await writeRecorded(journal, await file.writer, drop, exportId, name, encodeChunks(this.#renderer, keptTexts), logger, this.ctx.fence);
    this.files.push({ name, kind: this.spec.kind, records: kept.length, bytes: written.size });
    logger.info({ file: name, kind: this.spec.kind, records: kept.length, bytes: written.size }, 'export: file written');
  }
}

/**
 * Lists the pending records (all pages, concurrently from the count endpoint; decoded and rendered by ExportPages),
 * skips those the journal says were handed over already, and writes the rest in work-list files. Acknowledging
 * comes after the whole listing: acknowledged records leave the pending list, which would shift the pages still
 * to be read.
 */
export async function exportPending(
  ctx: FileContext, mapping: Mapping, list: ListEndpointId, filters: Record<string, unknown>,
): Promise<{ listed: number; skipped: number; files: WrittenFile[] }> {
  const { job, journal } = ctx;
  const batcher = new FileBatcher(ctx, mapping, { workType: job.work_type, kind: 'work', policy: job.acknowledge }, { fileName: job.file_name });
  // Paging one at a time, the next request waits for this page's has_more anyway: a thread would only add its messages.
  const threadFrom = ctx.concurrency > 1 ? (ctx.tuning?.pageThreadFrom ?? PAGE_THREAD_FROM) : Infinity;
  const pages = new ExportPages(list, mapping, batcher.renderer, ctx.logger, {
    threadFrom, waitFrom: ctx.tuning?.pageThreadWaitFrom ?? PAGE_THREAD_WAIT_FROM, resourceLimits: ctx.tuning?.pageThreadLimits,
  });
  let listed = 0;
  let skipped = 0;
  try {
    const options = { concurrency: ctx.concurrency, signal: ctx.signal, onCount: pages.expect };
    // eslint-disable-next-line no-restricted-syntax -- the work type's list is known at run time; its spec builds filters that list accepts
    for await (const page of ctx.client.decodedPages(list, filters as never, pages.decode, options)) {
      const { ids, repeated, data } = page;
      const fresh = repeated.size === 0 ? Array.from(ids) : Array.from(ids).filter((_, i) => !repeated.has(i));
      listed += fresh.length;
      const before = await journal.alreadyExported(job.work_type, fresh);
      skipped += before.size;
      const failed = data.failed.length === 0 ? undefined : new Map(data.failed);
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (repeated.has(i) || before.has(id)) continue;
        const problem = failed?.get(i);
        if (problem !== undefined) throw new Error(`export mapping "${mapping.name}": record ${id}: ${problem}`);
        await batcher.addRendered({ id, number: data.numbers[i]!, updatedAt: data.updatedAts[i]! }, data.texts[i]!);
      }
    }
    await batcher.flush(job.empty_files);
  } finally {
    await Promise.all([batcher.close(), pages.close()]);
  }
  return { listed, skipped, files: batcher.files };
}
