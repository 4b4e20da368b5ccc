import type { Readable } from 'node:stream';
import { documentName } from '../contract/index.js';
import { describeError, isWisbridgeError } from '../errors.js';
import { mapInbound, type InboundOutcome, type Mapping, type ReferenceIds, type RowError } from '../mapping/index.js';
import { emptyRowCounts, FILE_LEVEL, type FileReport } from '../pipeline/index.js';

/**
 * One line of a dry run, as `wisbridge map` and `wisbridge process --dry-run` both print it (JSON, one per line).
 * `request`: a body that would be sent and the input lines of each document in it; `rejected`: a document refused
 * before sending, with its errors; `skipped`: a line left out on purpose; `file-rejected`: the file as a whole.
 * `key` is the mapping's document key ('' for one-row documents); `document` names the document as the result file
 * does (an adjustment's SKU, a count's reference, the id found for a number), null when nothing identifies it.
 */
export type DryRunLine =
  | { file: string; kind: 'request'; endpoint: string; body: Record<string, unknown>; documents: Array<{ key: string; document: string | null; lines: number[] }> }
  | { file: string; kind: 'rejected'; endpoint: string; key: string; document: string | null; lines: number[]; errors: RowError[] }
  | { file: string; kind: 'skipped'; line: number; reason: string }
  | { file: string; kind: 'file-rejected'; code: string; message: string };

export interface DryRunOptions {
  job: string;
  file: string;
  maxBatchItems: number;
  referenceIds?: ReferenceIds;
  /** Set on inventory items that name none (the service account's warehouse), as the pipeline does. */
  warehouse?: number;
  emit(line: DryRunLine): void;
}

export function dryRunLine(file: string, o: InboundOutcome): DryRunLine {
  if (o.kind === 'skipped') return { file, kind: 'skipped', line: o.line, reason: o.reason };
  if (o.kind === 'rejected') {
    return { file, kind: 'rejected', endpoint: o.endpoint, key: o.key, document: documentName(o.endpoint, o.key, o.item), lines: o.lines, errors: o.errors };
  }
  const documents = o.documents.map((d) => ({ key: d.key, document: documentName(o.endpoint, d.key, d.item), lines: d.lines }));
  return { file, kind: 'request', endpoint: o.endpoint, body: o.body, documents };
}

/**
 * A file-level problem (no mapping, unreadable, wrong layout): one `file-rejected` line and a rejected report.
 * A usage mistake of the command (no source of reference ids for a mapping with references) stays an error: exit 2.
 */
export function rejectFile(report: FileReport, error: unknown, emit: (line: DryRunLine) => void): FileReport {
  if (!isWisbridgeError(error) || !FILE_LEVEL.has(error.code) || error.code === 'USAGE') throw error;
  emit({ file: report.file, kind: 'file-rejected', code: error.code, message: error.message });
  return { ...report, outcome: 'rejected', reason: describeError(error) };
}

export function dryRunReport(job: string, file: string): FileReport {
  return { job, file, outcome: 'dry-run', rows: emptyRowCounts(), requests: 0 };
}

/** Maps and validates a file without sending anything; the exit code is `exitCodeOf([report])` for both commands. */
export async function dryRunFile(source: () => Promise<Readable>, mapping: Mapping, options: DryRunOptions): Promise<FileReport> {
  const report: FileReport = { ...dryRunReport(options.job, options.file), mapping: mapping.name };
  try {
    for await (const o of mapInbound(await source(), mapping, { fileName: options.file, referenceIds: options.referenceIds, maxBatchItems: options.maxBatchItems })) {
      if (o.kind === 'skipped') report.rows.skipped += 1;
      else if (o.kind === 'rejected') report.rows.error += o.lines.length;
      else {
        report.requests += 1;
        for (const d of o.documents) {
          report.rows.ok += d.lines.length;
          if (options.warehouse !== undefined && d.item.warehouse === undefined) d.item.warehouse = options.warehouse;
        }
      }
      options.emit(dryRunLine(options.file, o));
    }
  } catch (error) {
    return rejectFile(report, error, options.emit);
  }
  return report;
}
