import { runExportJob, type ExportSummary } from '../export/index.js';
import { processInboxFile, type FileReport } from '../pipeline/index.js';
import { belongsToJob, runInboundJob } from '../pipeline/index.js';
import type { ExportResult, FileResult, JobRunners, JobSummary } from './types.js';

export function fileResult(report: FileReport): FileResult {
  return {
    name: report.file, fileId: report.fileId, outcome: report.outcome, rows: { ...report.rows },
    resultFile: report.resultFile, reason: report.reason,
  };
}

export function exportResults(summary: ExportSummary): ExportResult[] {
  return [
    ...summary.files.map((f): ExportResult => ({ file: f.name, records: f.records, kind: f.kind })),
    ...summary.acknowledgements.resultFiles.map((file): ExportResult => ({ file, records: 0, kind: 'result' })),
  ];
}

/** The real flows: the inbound pipeline and the exports (tests give the service runners of their own). */
export const flowRunners: JobRunners = {
  async inboundPass(runtime, job, signal, onProgress) {
    const report = await runInboundJob(runtime, job, { signal, onProgress });
    return { files: report.files.map(fileResult), exports: [] };
  },
  async inboundFile(runtime, job, file, signal, onProgress): Promise<JobSummary> {
    if (!(await belongsToJob(runtime, job, file.name))) return { files: [], exports: [] };
    const reports = await processInboxFile(runtime, job, file, { signal, onProgress });
    return { files: reports.map(fileResult), exports: [] };
  },
  async exportRun(runtime, job, signal) {
    const summary = await runExportJob(runtime, job, { signal });
    return { files: [], exports: exportResults(summary) };
  },
};
