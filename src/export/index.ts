// Public API of the outbound flow: list → work-list file → acknowledge (docs/exports.md).
export { runExportJob, acknowledgeDueForJob, type ExportRuntime, type ExportSummary, type RunExportOptions } from './job.js';
export type { AckTally } from './acknowledge.js';
export type { ExportTuning, WrittenFile } from './work.js';
export { WORK_TYPE_ARGUMENTS, WORK_TYPE_SPECS, parseWorkType, formatFileName, type WorkListType, type WorkTypeSpec } from './work-types.js';
export { resultFileName, RESULT_COLUMNS } from './files.js';
export {
  describeInterchangeState, interchangeView, overdueInterchanges, x12Interchanges, type InterchangeAckState, type X12InterchangeView,
} from './x12-ack-states.js';
