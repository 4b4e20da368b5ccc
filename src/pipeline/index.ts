// Public API of the inbound pipeline (see docs/pipeline.md).
export { processFile, type FileRuntime } from './process-file.js';
export { pickMapping } from './file-checks.js';
export { processInboxFile } from './containers.js';
export { runInboundJob, inboundWatcher, belongsToJob, placeOfFile, runEndOf, type InboundJobOptions } from './job.js';
export { FileQueue, type FileRunEnd } from './file-queue.js';
export type { FilePlace } from './file-order.js';
export { recordConfirmations } from './confirmations.js';
export { findJobOfFile, jobOfFile, openResultFile, processJobOn, recordedResultName } from './lifecycle.js';
export { findFile, neverClaimed, redriveFile, type RedriveJournal, type RedriveReport } from './redrive.js';
export { resolveRows, type ResolveJournal, type ResolveReport } from './resolve.js';
export type { SenderContext } from './types.js';
export { resultFileName, errorFileName, RESULT_COLUMNS, csvField } from './result-file.js';
export { ProgressBar, summaryTable, exitCodeOf } from './report.js';
export type { FileReport, FileOutcome, JobReport, ProcessFileOptions, Progress, RowCounts, RowStatus, FileRef } from './types.js';
export { FILE_LEVEL } from './file-checks.js';
export { emptyRowCounts } from './types.js';
export {
  openAckFile, readEnvelope, recordedAck,
  type EnvelopeDetail, type FileEnvelopes, type GroupEnvelope, type InterchangeEnvelope, type RecordedAck, type RefusalView, type SetEnvelope,
} from './x12-structure.js';
