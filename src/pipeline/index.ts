// Public API of the inbound pipeline (see docs/pipeline.md).
export { processFile, pickMapping } from './process-file.js';
export { processInboxFile } from './containers.js';
export { runInboundJob, inboundWatcher, belongsToJob, placeOfFile, settledOf, type InboundJobOptions } from './job.js';
export { FileQueue, type FileSettled } from './file-queue.js';
export type { FilePlace } from './file-order.js';
export { recordConfirmations } from './confirmations.js';
export { concludeAgain, jobOfFile, openResultFile, recordedResultName } from './lifecycle.js';
export { storeOutcomes } from './outcomes.js';
export { deliver, type SendDoc } from './sender.js';
export type { SenderContext } from './types.js';
export { resultFileName, errorFileName, RESULT_COLUMNS, csvField } from './result-file.js';
export { ProgressBar, summaryTable, exitCodeOf } from './report.js';
export type { FileReport, FileOutcome, JobReport, ProcessFileOptions, Progress, RowCounts, RowStatus, FileRef } from './types.js';
