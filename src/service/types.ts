import type { ReadyFile } from '../drops/index.js';
import type { ExportJob, InboundJob } from '../config/schema.js';
import type { ExportRuntime } from '../export/index.js';
import type { FileOutcome, FileRuntime } from '../pipeline/index.js';
import type { Progress } from '../pipeline/index.js';

export interface RowCounts {
  ok: number;
  error: number;
  skipped: number;
  uncertain: number;
}

/** One inbound file as a job reports it. */
export interface FileResult {
  name: string;
  fileId?: number;
  /**
   * done: every row ok/skipped; failed: some rows error/uncertain; rejected: the file as a whole (error/);
   * duplicate: seen before; interrupted: stopped by shutdown, resumes later; vanished: gone before it was read;
   * changed: still being written when read, read again once stable.
   */
  outcome: FileOutcome;
  rows: RowCounts;
  /** Where the result file went (drop outbox name), when one was written. */
  resultFile?: string;
  reason?: string;
}

/** One export file (work list or cancellation list). */
export interface ExportResult {
  file: string;
  records: number;
  kind?: 'work' | 'cancellation' | 'result';
  acknowledged?: number;
  ackErrors?: number;
}

export interface JobSummary {
  files: FileResult[];
  exports: ExportResult[];
}

export const emptySummary = (): JobSummary => ({ files: [], exports: [] });

/**
 * What the service needs from the flow layers (pipeline, export). The `signal` is the soft stop:
 * a runner stops picking up new work when it aborts and returns after the request in flight.
 */
export interface JobRunners {
  /** onProgress: rows read of the file in progress (the console's live view). */
  inboundPass(runtime: FileRuntime, job: InboundJob, signal: AbortSignal, onProgress?: (progress: Progress) => void): Promise<JobSummary>;
  inboundFile(runtime: FileRuntime, job: InboundJob, file: ReadyFile, signal: AbortSignal, onProgress?: (progress: Progress) => void): Promise<JobSummary>;
  exportRun(runtime: ExportRuntime, job: ExportJob, signal: AbortSignal): Promise<JobSummary>;
}
