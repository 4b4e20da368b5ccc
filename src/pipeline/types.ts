import type { WisClient } from '../client/index.js';
import type { Drop, FolderRole, ReadyFile } from '../drops/index.js';
import type { ExportConfirmations, InboundJournal } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { HeldLease } from '../runtime/runtime.js';

export type RowStatus = 'ok' | 'error' | 'skipped' | 'uncertain';
export type RowCounts = Record<RowStatus, number>;

/**
 * How one file ended:
 * - `done` every row went through (or was skipped on purpose); `failed` some rows failed or are uncertain;
 * - `rejected` the file failed as a whole (moved to error/ with a reason file);
 * - `duplicate` the same bytes were processed before (not applied again; a result file says so);
 * - `interrupted` stopped by shutdown between batches: it stays in the inbox and resumes on the next run;
 * - `dry-run` mapped and validated only;
 * - `vanished` the file disappeared before it could be read;
 * - `changed` the file changed while it was read (still being written): it stays and is read again once stable;
 * - `waiting` its checksum file is missing or does not match yet (`checksum_missing` / `checksum_mismatch: wait`): it stays;
 * - `busy` another instance holds the file's lease: it works on the file, and this one leaves it alone;
 * - `lost` another instance took the file over while this one worked on it (its lease expired here): this one
 *   stopped at once, and the new owner finishes it (its result file and its move included).
 */
export type FileOutcome = 'done' | 'failed' | 'rejected' | 'duplicate' | 'interrupted' | 'dry-run' | 'vanished' | 'changed' | 'waiting' | 'busy' | 'lost';

export interface FileReport {
  job: string;
  file: string;
  mapping?: string;
  outcome: FileOutcome;
  fileId?: number;
  rows: RowCounts;
  /** Requests sent to the service for this file in this run. */
  requests: number;
  /** Name of the result file in the result folder. */
  resultFile?: string;
  /** Name of the X12 acknowledgement (997/999, TA1) in the result folder. */
  ackFile?: string;
  /** Where the source went (`archive/NAME`, `error/NAME`). */
  movedTo?: string;
  reason?: string;
  /** A resumed file (left processing by an earlier run). */
  resumed?: boolean;
}

export interface JobReport {
  job: string;
  files: FileReport[];
}

export interface Progress {
  file: string;
  /** Input lines mapped so far. */
  rows: number;
  bytes: number;
  size: number;
  /** Physical lines of the file, header included (from the checksum pass), when known. */
  lines?: number;
  /** The file is over: it leaves the live view (its job may still run other files). */
  finished?: boolean;
}

export interface ProcessFileOptions {
  /** Process again even when the same bytes were processed before. */
  force?: boolean;
  /** Use this mapping instead of matching the file name. */
  mapping?: string;
  /** Stops the file cleanly between batches (the file stays in the inbox and resumes later). */
  signal?: AbortSignal;
  /** Use this drop instead of the job's (the `process` command's local folder). */
  drop?: Drop;
  /** Move the source to archive/ or error/ afterwards (default true). */
  dispose?: boolean;
  /** A member of a compressed file (containers.ts): the container's checksum file was checked, the member has none. */
  member?: boolean;
  /** Folder the result file goes to (default outbox). */
  resultFolder?: FolderRole;
  onProgress?: (progress: Progress) => void;
  /** Files of at least this many bytes are mapped and recorded on a worker thread (default 16 MiB; tests: 0). */
  threadFrom?: number;
}

export type FileRef = ReadyFile | string;

export const emptyRowCounts = (): RowCounts => ({ ok: 0, error: 0, skipped: 0, uncertain: 0 });

/** What sending a file's requests needs: the first send, reconciling after a crash and re-drive share it. */
export interface SenderContext {
  /** The inbound side, and the export records an acknowledgement confirms. */
  journal: InboundJournal & ExportConfirmations;
  client: WisClient;
  fileId: number;
  logger: Logger;
  /** Counts requests sent (for the summary and the benchmark). */
  stats: { requests: number };
  /** Under `wisbridge run`: the file's lease. Every request waits for it to be fresh and is aborted when it is lost. */
  lease?: HeldLease;
}

/** One item of a request: its journal seq, what the result file shows as its document, its request body. */
export interface SendDoc {
  seq: number;
  /** What the result file shows as the document; null when nothing identifies it. */
  docKey: string | null;
  item: Record<string, unknown>;
}

/**
 * One mapped document ready to go: seq = its first input line (deterministic across runs of the same file). It is
 * also the journal's NewItem of the document (the request's bodies are recorded as one JSON text).
 */
export interface OutgoingDoc extends SendDoc {
  lines: number[];
}
