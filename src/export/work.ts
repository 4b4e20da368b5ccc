import type { WisClient } from '../client/index.js';
import type { ExportJob } from '../config/schema.js';
import type { Drop } from '../drops/index.js';
import { isWisbridgeError } from '../errors.js';
import type { ExportRecordInput, Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { Mapping } from '../mapping/index.js';
import { writeRecorded } from './files.js';
import { formatFileName } from './work-types.js';

export interface ListedRecord {
  id: number;
  number?: string;
  updated_at?: unknown;
  [key: string]: unknown;
}

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
}

export const journalRecord = (r: ListedRecord): ExportRecordInput => ({
  id: r.id,
  number: typeof r.number === 'string' ? r.number : typeof r.code === 'string' ? r.code : String(r.id),
  updatedAt: typeof r.updated_at === 'string' ? r.updated_at : null,
});

/**
 * Collects records into files of at most max_records_per_file: each file is recorded in the journal (with its
 * records) before it is written, and marked written once it is in the outbox. A full file is written while the
 * caller goes on adding (the listing keeps its requests in flight); files are written one after another, in order,
 * and `flush` waits for all of them. A failed write fails the next `add` and the final `flush`.
 */
export class FileBatcher {
  readonly files: WrittenFile[] = [];
  #buffer: ListedRecord[] = [];
  #writing: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;

  constructor(
    private readonly ctx: FileContext,
    private readonly mapping: Mapping,
    private readonly begin: (fileName: string, records: ExportRecordInput[]) => number,
    private readonly options: { kind: 'work' | 'cancellation'; fileName: string },
  ) {}

  async add(record: ListedRecord): Promise<void> {
    if (this.#failure) throw this.#failure.error;
    this.#buffer.push(record);
    if (this.#buffer.length >= this.ctx.job.max_records_per_file) this.#queue(false);
  }

  /** Writes what is buffered and waits for every file; with `allowEmpty`, a header-only file when nothing at all was written. */
  async flush(allowEmpty = false): Promise<void> {
    this.#queue(allowEmpty);
    await this.#writing;
    if (this.#failure) throw this.#failure.error;
  }

  #queue(allowEmpty: boolean): void {
    const records = this.#buffer;
    this.#buffer = [];
    this.#writing = this.#writing.then(() => (this.#failure ? undefined : this.#write(records, allowEmpty))).catch((error: unknown) => {
      this.#failure ??= { error };
    });
  }

  async #write(buffered: ListedRecord[], allowEmpty: boolean): Promise<void> {
    if (buffered.length === 0 && !(allowEmpty && this.files.length === 0)) return;
    let records = buffered;
    const { job, journal, drop, logger } = this.ctx;
    const name = formatFileName(this.options.fileName, job, this.ctx.now(), journal.nextFileSequence(job.name));
    let exportId: number;
    try {
      exportId = this.begin(name, records.map(journalRecord));
    } catch (error) {
      // Another job of the same work type handed some of these over since they were listed: leave them out.
      const taken = isWisbridgeError(error, 'JOURNAL_STATE') ? (error.details?.ids as number[] | undefined) : undefined;
      if (!taken) throw error;
      logger.warn({ ids: taken.slice(0, 20), count: taken.length }, 'export: records handed over meanwhile by another job are left out');
      const takenIds = new Set(taken);
      records = records.filter((r) => !takenIds.has(r.id));
      if (records.length === 0) return;
      exportId = this.begin(name, records.map(journalRecord));
    }
    const written = await writeRecorded(journal, drop, exportId, name, this.mapping, records, logger);
    this.files.push({ name, kind: this.options.kind, records: records.length, bytes: written.size });
    logger.info({ file: name, kind: this.options.kind, records: records.length, bytes: written.size }, 'export: file written');
  }
}

/**
 * Lists the pending records (all pages, concurrently from the count endpoint), skips those the journal says
 * were handed over already, and writes the rest in work-list files. Acknowledging comes after the whole listing:
 * acknowledged records leave the pending list, which would shift the pages still to be read.
 */
export async function exportPending(
  ctx: FileContext, mapping: Mapping, list: Parameters<WisClient['pages']>[0], filters: Record<string, unknown>,
): Promise<{ listed: number; skipped: number; files: WrittenFile[] }> {
  const { job, journal } = ctx;
  const batcher = new FileBatcher(ctx, mapping, (fileName, records) => journal.beginExport({ workType: job.work_type, fileName, records, policy: job.acknowledge }),
    { kind: 'work', fileName: job.file_name });
  let listed = 0;
  let skipped = 0;
  for await (const page of ctx.client.pages(list, filters as never, { concurrency: ctx.concurrency, signal: ctx.signal })) {
    const records = page.records as ListedRecord[];
    listed += records.length;
    const before = journal.alreadyExported(job.work_type, records.map((r) => r.id));
    skipped += before.size;
    for (const r of records) if (!before.has(r.id)) await batcher.add(r);
  }
  await batcher.flush(job.empty_files);
  return { listed, skipped, files: batcher.files };
}
