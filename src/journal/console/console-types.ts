import type { FileEvent } from '../admin/reads.js';
import type { AlertSeverity } from './alert-severity.js';
import type { ExportFile, ExportStatus, FileRecord, FileStatus, ItemRecord } from '../core/types.js';

// What the console's queries (console-queries.ts) take and give: filters, pages, the audit trail and the alert inbox.

export interface FileFilter {
  status?: FileStatus;
  /** Drop names (a job reads one drop). */
  drop?: string;
  /** Mappings the job may use (files of the drop under other mappings belong to other jobs). */
  mappings?: readonly string[];
  /** Claimed at or after / before (ISO timestamps). */
  from?: string;
  to?: string;
  /** Part of the file name (case-insensitive). */
  name?: string;
  /** Files with an id below this one (the next page). */
  before?: number;
  limit: number;
}

/** One file of the console's list: the journal's file record without what only one file's page shows. */
export type FileListEntry = Pick<FileRecord,
  'fileId' | 'drop' | 'name' | 'mapping' | 'size' | 'status' | 'reason' | 'summary' | 'redrives' | 'claimedAt' | 'finishedAt' | 'processedAt'> & {
  /** The instance that holds or last held the file's lease (FileRecord's lease.owner); null without lease mode. */
  instance: string | null;
};

/**
 * The file list's filter: a FileFilter whose status may also be `duplicate` (re-drops only), and the next page's
 * cursor, one id per stream (`before` files, `beforeEvent` file events: each has its own ids).
 */
export interface FileLineFilter extends Omit<FileFilter, 'status'> {
  status?: FileStatus | 'duplicate';
  beforeEvent?: number;
}

/** A file the bridge met but never claimed, as the file list shows it: a duplicate names its original. */
export type FileEventEntry = FileEvent & { originalName: string | null };

/** One line of the file list: a claimed file, or a file event (a re-drop of processed content, a refusal before a claim). */
export type FileLine = { file: FileListEntry; event?: never } | { event: FileEventEntry; file?: never };

export interface FileLinePage {
  lines: FileLine[];
  /** The cursor of the next page; null when this was the last one. */
  next: { before?: number; beforeEvent?: number } | null;
}

export interface ExportFilter {
  workType?: string;
  status?: ExportStatus;
  from?: string;
  to?: string;
  name?: string;
  before?: number;
  limit: number;
}

/** One row of a file as the console lists it: the journal's item record, the file being the page's. */
export type RowView = Omit<ItemRecord, 'fileId'>;

export interface RowPage {
  rows: RowView[];
  /** The seq to pass as `after` for the next page; null when this was the last one. */
  next: number | null;
}

export interface OperatorAction {
  id: number;
  action: string;
  fileId: number | null;
  target: string | null;
  actor: string;
  via: string;
  detail: string | null;
  outcome: string;
  at: string;
}

export type NewOperatorAction = Omit<OperatorAction, 'id' | 'at'>;

/** One export of the console's list. */
export type ExportListEntry = Omit<ExportFile, 'kind' | 'policy'> & { kind: string; policy: string };

/** A file's failed rows: `sendable` ones a re-drive sends again; `unsendable` ones (rejected by the mapping) it never can. */
export interface FailedRowCounts {
  sendable: number;
  unsendable: number;
}

/**
 * One entry of the alert inbox: every alert of a kind about one subject (a file, a job's expected file, a drop, the
 * webhook) while it is open, counted, with when it was first and last seen, until an operator acknowledges it.
 */
export interface StoredAlert {
  id: number;
  kind: string;
  /** Told by its kind (alert-severity.ts). */
  severity: AlertSeverity;
  /** What it concerns, and its key for deduplication: `file:12`, `drop:wms`, `expect:stock:^KORR`, `webhook`. */
  subject: string;
  job: string | null;
  fileId: number | null;
  /** The latest occurrence's message. */
  message: string;
  times: number;
  firstSeen: string;
  lastSeen: string;
  acknowledgedBy: string | null;
  acknowledgedAt: string | null;
}

export type NewAlert = Pick<StoredAlert, 'kind' | 'subject' | 'message'> & { job?: string | null; fileId?: number | null };

/** The uncertain rows of one request: what an operator checks and resolves at once (a request was sent whole). */
export interface UncertainRequest {
  fileId: number;
  file: string;
  /** Null for rows recorded without a request. */
  requestId: number | null;
  endpoint: string | null;
  rows: number;
}

/** A page of uncertain rows across files, oldest file first. */
export interface UncertainRowPage {
  rows: Array<RowView & { fileId: number; file: string }>;
  /** Where the next page starts; null when this was the last one. */
  next: { fileId: number; seq: number } | null;
}
