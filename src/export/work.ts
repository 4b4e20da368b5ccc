import type { ResourceLimits } from 'node:worker_threads';
import type { ListEndpointId, WisClient } from '../client/index.js';
import type { ExportJob } from '../config/schema.js';
import type { Drop } from '../drops/index.js';
import { isWisbridgeError } from '../errors.js';
import type { AckPolicy, ExportRecordInput, Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { Mapping } from '../mapping/index.js';
import { createExportRenderer, encodeChunks, type ExportRenderer } from '../mapping/export.js';
import { exportsInFlight, writeRecorded } from './files.js';
import { inlineJournalWriter, JournalThread, type ExportJournalWriter } from './journal-writer.js';
import { journalRecord, type ListedRecord } from './journal-record.js';
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
  journal: Journal;
  drop: Drop;
  logger: Logger;
  concurrency: number;
  signal?: AbortSignal;
  now: () => Date;
  tuning?: ExportTuning;
}

/**
 * How an export uses worker threads and journal transactions; the defaults suit production, tests make every path
 * reachable with little data.
 */
export interface ExportTuning {
  /** Records recorded, and marked written, per transaction (default 1,000): the listing's answers are served in between. */
  chunk?: number;
  /** Files of at least this many records are journaled on a JournalThread, not the main thread (default 5,000). */
  threadFrom?: number;
  /** Pending-work pages are decoded on a page thread once this many records were listed (default 1,000; see ExportPages). */
  pageThreadFrom?: number;
  /** Node's resource limits of the page thread (tests starve it to prove the fallback to the main thread). */
  pageThreadLimits?: ResourceLimits;
}
const JOURNAL_CHUNK = 1_000;
const JOURNAL_THREAD_FROM = 5_000;
const PAGE_THREAD_FROM = 1_000;

/** What a batcher's files are in the journal. */
export interface FileJournalSpec {
  workType: string;
  kind: 'work' | 'cancellation';
  policy: AckPolicy;
  /** Records may be in earlier exports too (products). */
  repeatable?: boolean;
}

/**
 * Collects records into files of at most max_records_per_file. Each record is rendered to CSV text when it is
 * added (the listed objects are not kept, only their text and journal fields); each file is recorded in the
 * journal (with its records, in chunks) before it is written, and marked written once it is in the outbox. A full
 * file is written while the caller goes on adding (the listing keeps its requests in flight); files are written
 * one after another, in order, and `flush` waits for all of them. A failed write fails the next `add` and the
 * final `flush`. `close` (always, also after a failure) ends the journal thread, if one was started.
 */
export class FileBatcher {
  readonly files: WrittenFile[] = [];
  readonly #renderer: ExportRenderer;
  #records: ExportRecordInput[] = [];
  #texts: string[] = [];
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
    this.#records.push(record);
    // started while the file fills up, so that it is ready when the file is journaled
    if (this.#records.length === (this.ctx.tuning?.threadFrom ?? JOURNAL_THREAD_FROM)) this.#startThread();
    if (this.#records.length >= this.ctx.job.max_records_per_file) this.#queue(false);
  }

  /** Writes what is buffered and waits for every file; with `allowEmpty`, a header-only file when nothing at all was written. */
  async flush(allowEmpty = false): Promise<void> {
    this.#queue(allowEmpty);
    await this.#writing;
    if (this.#failure) throw this.#failure.error;
  }

  async close(): Promise<void> {
    await this.#writing;
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.close();
  }

  #queue(allowEmpty: boolean): void {
    const records = this.#records;
    const texts = this.#texts;
    this.#records = [];
    this.#texts = [];
    this.#writing = this.#writing.then(() => (this.#failure ? undefined : this.#write(records, texts, allowEmpty))).catch((error: unknown) => {
      this.#failure ??= { error };
    });
  }

  get #chunk(): number {
    return this.ctx.tuning?.chunk ?? JOURNAL_CHUNK;
  }

  /** The journal thread for files of `records` records, started if need be; inline when it cannot start. */
  async #writer(records: number): Promise<ExportJournalWriter> {
    const threadFrom = this.ctx.tuning?.threadFrom ?? JOURNAL_THREAD_FROM;
    if (records >= threadFrom) this.#startThread();
    const thread = this.#thread;
    if (!thread) return inlineJournalWriter(this.ctx.journal);
    try {
      await thread.ready;
      return thread;
    } catch (error) {
      this.ctx.logger.warn({ err: error }, 'export: the journal thread did not start; journaling on the main thread');
      this.#thread = undefined;
      this.#threadFailed = true;
      return inlineJournalWriter(this.ctx.journal);
    }
  }

  #startThread(): void {
    if (this.#thread || this.#threadFailed || this.ctx.journal.path === ':memory:') return;
    this.#thread = new JournalThread(this.ctx.journal.path);
  }

  async #write(records: ExportRecordInput[], texts: string[], allowEmpty: boolean): Promise<void> {
    if (records.length === 0 && !(allowEmpty && this.files.length === 0)) return;
    const { job, journal, drop, logger } = this.ctx;
    const name = formatFileName(this.options.fileName, job, this.ctx.now(), journal.nextFileSequence(job.name));
    const writer = await this.#writer(records.length);
    const recorded = await this.#record(writer, name, records);
    if (!recorded) return;
    const { exportId, left } = recorded;
    const kept = left.size === 0 ? records : records.filter((r) => !left.has(r.id));
    const keptTexts = left.size === 0 ? texts : texts.filter((_, i) => !left.has(records[i]!.id));
    const written = await writeRecorded(journal, writer, drop, exportId, name, encodeChunks(this.#renderer, keptTexts), kept.map((r) => r.id), {
      logger, chunk: this.#chunk,
    });
    this.files.push({ name, kind: this.spec.kind, records: kept.length, bytes: written.size });
    logger.info({ file: name, kind: this.spec.kind, records: kept.length, bytes: written.size }, 'export: file written');
  }

  /**
   * Records the file and its records in the journal, JOURNAL_CHUNK records per transaction. Records another job
   * of the same work type handed over since they were listed are left out (`left`); undefined when that was all
   * of them. On any other failure the part already recorded is abandoned, so its records are free again.
   */
  async #record(writer: ExportJournalWriter, name: string, records: ExportRecordInput[]): Promise<{ exportId: number; left: Set<number> } | undefined> {
    const { journal, logger } = this.ctx;
    const { workType, kind, policy, repeatable } = this.spec;
    let exportId: number | undefined;
    const left = new Set<number>();
    // in flight from before the first part is recorded: a job starting meanwhile must not settle it as a leftover
    exportsInFlight.add(name);
    try {
      for (let start = 0; start === 0 || start < records.length; start += this.#chunk) {
        let chunk = records.slice(start, start + this.#chunk);
        for (;;) {
          if (chunk.length === 0 && (exportId !== undefined || records.length > 0)) break;
          try {
            if (exportId === undefined) {
              exportId = await writer.begin({ workType, fileName: name, records: chunk, kind, policy, repeatable });
            } else {
              await writer.add(exportId, chunk, { repeatable });
            }
            break;
          } catch (error) {
            const taken = isWisbridgeError(error, 'JOURNAL_STATE') ? (error.details?.ids as number[] | undefined) : undefined;
            if (!taken) throw error;
            for (const id of taken) left.add(id);
            chunk = chunk.filter((r) => !left.has(r.id));
          }
        }
      }
    } catch (error) {
      exportsInFlight.delete(name);
      if (exportId !== undefined) {
        try {
          journal.abandonExport(exportId);
        } catch {
          // left recorded: the next run finds no file for it and abandons it then
        }
      }
      throw error;
    }
    if (left.size > 0) {
      // Another job of the same work type handed some of these over since they were listed: leave them out.
      logger.warn({ ids: [...left].slice(0, 20), count: left.size }, 'export: records handed over meanwhile by another job are left out');
    }
    if (exportId === undefined) exportsInFlight.delete(name);
    return exportId === undefined ? undefined : { exportId, left };
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
  const pages = new ExportPages(list, mapping, batcher.renderer, ctx.logger, {
    threadFrom: ctx.tuning?.pageThreadFrom ?? PAGE_THREAD_FROM, resourceLimits: ctx.tuning?.pageThreadLimits,
  });
  let listed = 0;
  let skipped = 0;
  try {
    for await (const page of ctx.client.decodedPages(list, filters as never, pages.decode, { concurrency: ctx.concurrency, signal: ctx.signal })) {
      const { ids, repeated, data } = page;
      const fresh = repeated.size === 0 ? Array.from(ids) : Array.from(ids).filter((_, i) => !repeated.has(i));
      listed += fresh.length;
      const before = journal.alreadyExported(job.work_type, fresh);
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
