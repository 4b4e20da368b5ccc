import { setImmediate as nextTurn } from 'node:timers/promises';
import type { BeginExportInput, ExportRecordInput, ExportJournal, InstanceInfo, JournalAddress, JournalTally } from '../journal/index.js';
import { WorkerThread } from '../runtime/worker-thread.js';

/**
 * The journal writes of an export file: record it with its records (in chunks), then mark it written. Inline on the
 * journal's own connection, or on a JournalThread.
 */
export interface ExportJournalWriter {
  begin(input: BeginExportInput & { repeatable?: boolean }): Promise<number>;
  add(exportId: number, records: readonly ExportRecordInput[], options: { repeatable?: boolean }): Promise<void>;
  /** The fenced step before the rename (journal stageExport). */
  stage(exportId: number, stagedName: string): Promise<void>;
  markWritten(exportId: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * On the journal's connection, in the main thread; a turn of the event loop after each call (setImmediate: after
 * the I/O callbacks waiting now) lets the listing's answers in.
 */
export function inlineJournalWriter(journal: ExportJournal): ExportJournalWriter {
  const after = async <T>(result: T): Promise<T> => {
    await nextTurn();
    return result;
  };
  return {
    begin: async (input) => after(await journal.beginExport(input)),
    add: async (exportId, records, options) => after(await journal.addExportRecords(exportId, records, options)),
    stage: (exportId, stagedName) => journal.stageExport(exportId, stagedName),
    markWritten: (exportId) => journal.markExportWritten(exportId),
    close: async () => undefined,
  };
}

/**
 * The outbound journal's writes in a worker thread with its own connection to the journal file (WAL: the main
 * thread's connection reads and writes beside it). Recording and marking a big export's records costs CPU and
 * fsyncs; on the main thread that time is taken from the listing, whose answers wait meanwhile
 * (docs/performance.md, "Settings chosen by measurement").
 */
export class JournalThread implements ExportJournalWriter {
  readonly #thread: WorkerThread;
  /** Settles once the worker has opened the journal (or failed to start). */
  readonly ready: Promise<void>;

  readonly #tally: JournalTally | undefined;

  /**
   * `tally`: where the thread's commits and syncs are added once it closes; `instance`: the journal's instance, which
   * the thread's exports are recorded as (their owner).
   */
  constructor(address: JournalAddress, tally?: JournalTally, instance?: InstanceInfo | null) {
    this.#thread = new WorkerThread(new URL('../export/journal-worker', import.meta.url), { address, instance: instance ?? undefined }, 'journal', 'JOURNAL');
    this.#tally = tally;
    this.ready = this.#thread.ready;
  }

  // Records travel as JSON text: structured cloning many small objects costs the main thread several times more
  // (docs/performance.md, "Settings chosen by measurement").
  begin(input: BeginExportInput & { repeatable?: boolean }): Promise<number> {
    return this.#thread.call('begin', [{ ...input, records: JSON.stringify(input.records) }]) as Promise<number>;
  }

  async add(exportId: number, records: readonly ExportRecordInput[], options: { repeatable?: boolean }): Promise<void> {
    await this.#thread.call('add', [exportId, JSON.stringify(records), options]);
  }

  async stage(exportId: number, stagedName: string): Promise<void> {
    await this.#thread.call('stage', [exportId, stagedName]);
  }

  async markWritten(exportId: number): Promise<void> {
    await this.#thread.call('markWritten', [exportId]);
  }

  async close(): Promise<void> {
    this.#tally?.addClosed(await this.#thread.close());
  }
}
