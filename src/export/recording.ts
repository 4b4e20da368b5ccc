import { isWisbridgeError } from '../errors.js';
import type { AckPolicy, ExportRecordInput, ExportJournal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { exportsInFlight } from './files.js';
import type { ExportJournalWriter } from './journal-writer.js';

/** What a batcher's files are in the journal. */
export interface FileJournalSpec {
  workType: string;
  kind: 'work' | 'cancellation';
  policy: AckPolicy;
  /** Records may be in earlier exports too (products). */
  repeatable?: boolean;
}

/**
 * A work file being recorded in the journal, part by part (one transaction each), as its records come: a large
 * file is recorded while it fills up, so that little is left to record once it is full. Records another job of
 * the same work type handed over since they were listed are left out (`left`). On a failure the part already
 * recorded is abandoned, so its records are free again; an export holding only part of its records is safe
 * anyway: until its file is renamed into place it is abandoned like any unwritten export.
 */
export class FileRecording {
  #exportId: number | undefined;
  readonly #left = new Set<number>();
  #given = 0;
  #parts: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;

  constructor(
    readonly name: string,
    readonly writer: Promise<ExportJournalWriter>,
    private readonly journal: ExportJournal,
    private readonly spec: FileJournalSpec,
    private readonly logger: Logger,
  ) {
    // in flight from before the first part is recorded: a job starting meanwhile must not reconcile it as a leftover
    exportsInFlight.add(name);
  }

  /** Records these records after the parts given before (an empty part begins a header-only file). */
  part(records: ExportRecordInput[]): void {
    const empty = records.length === 0 && this.#given === 0;
    this.#given += records.length;
    if (records.length === 0 && !empty) return;
    this.#parts = this.#parts
      .then(() => (this.#failure ? undefined : this.#record(records)))
      .catch((error: unknown) => {
        this.#failure ??= { error };
      });
  }

  /** Once every part is recorded: the export id and the records left out; undefined when all were left out. */
  async done(): Promise<{ exportId: number; left: Set<number> } | undefined> {
    await this.#parts;
    if (this.#failure) {
      await this.#abandon();
      throw this.#failure.error;
    }
    if (this.#left.size > 0) {
      this.logger.warn({ ids: [...this.#left].slice(0, 20), count: this.#left.size }, 'export: records handed over meanwhile by another job are left out');
    }
    if (this.#exportId === undefined) exportsInFlight.delete(this.name);
    return this.#exportId === undefined ? undefined : { exportId: this.#exportId, left: this.#left };
  }

  /** The file will not be written (an earlier one failed): what was recorded is abandoned. */
  async abandon(): Promise<void> {
    await this.#parts;
    await this.#abandon();
  }

  async #abandon(): Promise<void> {
    try {
      if (this.#exportId !== undefined) await this.journal.abandonExport(this.#exportId);
    } catch {
      // left recorded: the next run finds no file for it and abandons it then
    } finally {
      // after the journal call: until then a job starting meanwhile must not take the export for a leftover
      exportsInFlight.delete(this.name);
    }
  }

  async #record(records: ExportRecordInput[]): Promise<void> {
    const writer = await this.writer;
    const { workType, kind, policy, repeatable } = this.spec;
    let part = records;
    for (;;) {
      if (part.length === 0 && (this.#exportId !== undefined || this.#given > 0)) return;
      try {
        if (this.#exportId === undefined) this.#exportId = await writer.begin({ workType, fileName: this.name, records: part, kind, policy, repeatable });
        else await writer.add(this.#exportId, part, { repeatable });
        return;
      } catch (error) {
        const details = isWisbridgeError(error, 'JOURNAL_STATE') ? error.details : undefined;
        const taken = details !== undefined && 'ids' in details ? details.ids : undefined;
        if (!taken) throw error;
        for (const id of taken) this.#left.add(id);
        part = part.filter((r) => !this.#left.has(r.id));
      }
    }
  }
}
