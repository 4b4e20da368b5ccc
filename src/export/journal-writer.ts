import { Worker } from 'node:worker_threads';
import { WisbridgeError, type ErrorCode } from '../errors.js';
import type { BeginExportInput, ExportRecordInput, Journal } from '../journal/index.js';
import type { JournalCall, JournalReply } from './journal-worker.js';

/**
 * The journal writes of an export file: record it with its records (in chunks), then mark it written. Inline on the
 * journal's own connection, or on a JournalThread.
 */
export interface ExportJournalWriter {
  begin(input: BeginExportInput & { repeatable?: boolean }): Promise<number>;
  add(exportId: number, records: readonly ExportRecordInput[], options: { repeatable?: boolean }): Promise<void>;
  markRecords(exportId: number, fromId: number, toId: number): Promise<void>;
  markWritten(exportId: number): Promise<void>;
  close(): Promise<void>;
}

/** Resolves after the I/O callbacks waiting now (answers of the listing) have run. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** On the journal's connection, in the main thread; a turn of the event loop after each call lets the listing's answers in. */
export function inlineJournalWriter(journal: Journal): ExportJournalWriter {
  const after = async <T>(result: T): Promise<T> => {
    await nextTurn();
    return result;
  };
  return {
    begin: async (input) => after(journal.beginExport(input)),
    add: async (exportId, records, options) => after(journal.addExportRecords(exportId, records, options)),
    markRecords: async (exportId, fromId, toId) => after(journal.markExportRecordsWritten(exportId, fromId, toId)),
    markWritten: async (exportId) => journal.markExportWritten(exportId),
    close: async () => undefined,
  };
}

/**
 * The outbound journal's writes in a worker thread with its own connection to the journal file (WAL: the main
 * thread's connection reads and writes beside it). Recording and marking 25,000 records costs ~0.6 s of CPU and
 * fsyncs; on the main thread that time is taken from the listing, whose answers wait meanwhile.
 * The worker is referenced only while a call is open, so an idle one never keeps the process alive.
 */
export class JournalThread implements ExportJournalWriter {
  readonly #worker: Worker;
  readonly #calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  #nextId = 1;
  #failure: Error | undefined;
  /** Settles once the worker has opened the journal (or failed to start). */
  readonly ready: Promise<void>;

  constructor(path: string) {
    let started!: { resolve: (value: unknown) => void; reject: (error: unknown) => void };
    this.ready = new Promise<unknown>((resolve, reject) => (started = { resolve, reject })).then(() => undefined);
    this.ready.catch(() => undefined); // also reported to every call
    this.#calls.set(0, started);
    this.#worker = new Worker(new URL('./journal-worker-boot.mjs', import.meta.url), { workerData: { path } });
    this.#worker.on('message', (reply: JournalReply) => {
      const call = this.#calls.get(reply.id);
      if (!call) return;
      this.#calls.delete(reply.id);
      if (this.#calls.size === 0) this.#worker.unref();
      if ('error' in reply) {
        const e = reply.error;
        call.reject(e.code ? new WisbridgeError(e.code as ErrorCode, e.message, { details: e.details }) : new WisbridgeError('JOURNAL', e.message));
      } else {
        call.resolve(reply.result);
      }
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => this.#fail(new WisbridgeError('JOURNAL', 'the journal thread ended')));
  }

  // Records travel as JSON text: structured cloning 1,000 small objects costs the main thread ~4 ms, the text ~0.5 ms.
  begin(input: BeginExportInput & { repeatable?: boolean }): Promise<number> {
    return this.#call('begin', [{ ...input, records: JSON.stringify(input.records) }]) as Promise<number>;
  }

  async add(exportId: number, records: readonly ExportRecordInput[], options: { repeatable?: boolean }): Promise<void> {
    await this.#call('add', [exportId, JSON.stringify(records), options]);
  }

  async markRecords(exportId: number, fromId: number, toId: number): Promise<void> {
    await this.#call('markRecords', [exportId, fromId, toId]);
  }

  async markWritten(exportId: number): Promise<void> {
    await this.#call('markWritten', [exportId]);
  }

  async close(): Promise<void> {
    if (!this.#failure) await this.#call('close', []).catch(() => undefined);
    await this.#worker.terminate();
  }

  #call(op: JournalCall['op'], args: unknown[]): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject });
      if (this.#calls.size === 1) this.#worker.ref();
      this.#worker.postMessage({ id, op, args } satisfies JournalCall);
    });
  }

  #fail(error: Error): void {
    this.#failure ??= error instanceof WisbridgeError ? error : new WisbridgeError('JOURNAL', `the journal thread failed: ${error.message}`, { cause: error });
    for (const call of this.#calls.values()) call.reject(this.#failure);
    this.#calls.clear();
    this.#worker.unref();
  }
}
