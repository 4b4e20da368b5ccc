export type FileStatus = 'processing' | 'done' | 'failed' | 'rejected';
export type ItemStatus = 'pending' | 'sent' | 'ok' | 'error' | 'uncertain' | 'skipped';
export type RequestStatus = 'pending' | 'sent' | 'done' | 'failed' | 'uncertain' | 'abandoned';
export type Resolution = 'applied' | 'not-applied';

export interface ClaimInput {
  /** The drop (configured source) the file came from. */
  drop: string;
  name: string;
  /** sha256 of the file's bytes (hex), computed by the caller while streaming. */
  checksum: string;
  size: number;
  mapping: string;
  /** Process again even when the same bytes were processed before: a new claim generation. */
  force?: boolean;
}

/**
 * Why an instance took a file's lease (leases/file-owners.ts): `claim` its first claim; `lost` its owner's lease ran
 * out (killed, crashed, out of reach of the journal); `handover` its owner stopped gracefully and gave its files up;
 * `released` its owner gave it up after a run that failed; `redrive` an operator's re-drive of a concluded file;
 * `unowned` nobody held it (a one-shot command claimed it without an instance).
 */
export type FileOwnerReason = 'claim' | 'lost' | 'handover' | 'released' | 'redrive' | 'unowned';

export type ClaimResult =
  | { status: 'new'; fileId: number; generation: number }
  /**
   * Lease mode: `from` the instance whose lease was taken over (null: none held it), `token` the fencing token taken,
   * `reason` why it was free (leases/file-owners.ts; absent when it was this instance's own).
   */
  | { status: 'resume'; fileId: number; generation: number; from?: string | null; token?: number; reason?: FileOwnerReason }
  | { status: 'duplicate'; fileId: number; previousName: string; finishedAt: string | null; previousStatus: FileStatus }
  /** Lease mode: another instance holds a live lease on the file; leave it alone, its owner works on it. */
  | { status: 'busy'; fileId: number; owner: string };

export interface NewItem {
  /** Deterministic per file: a re-run of the same file yields the same seq for the same item. */
  seq: number;
  /** Endpoint id from the contract, e.g. `inventory.adjustments`. Null for rows rejected before mapping. */
  endpoint?: string | null;
  /** Shipment number, SKU... */
  docKey?: string | null;
  /** Input line numbers the item was built from (at least one). */
  lines: readonly number[];
  /** The item's request body: a JSON string, or a value to serialize. Absent for rejected rows. */
  body?: string | unknown;
  /**
   * `pending` (default) for items to send; `error` / `skipped` for rows the mapping rejected; `ok` for a row decided
   * without a request (a set of a received 997/999, recorded against the export it acknowledges).
   */
  status?: 'pending' | 'ok' | 'error' | 'skipped';
  messages?: readonly string[];
}

export interface ItemOutcome {
  seq: number;
  status: 'ok' | 'error' | 'uncertain';
  /** Fields the service returned (ids, shipped_at, move_id...). */
  result?: unknown;
  messages?: readonly string[];
  /** For uncertain items: what a person should check. */
  hint?: string;
}

export interface RecordedRequest {
  requestId: number;
  fileId: number;
  endpoint: string;
  attempt: number;
  seqs: number[];
  status: RequestStatus;
  /** When it was marked sent (null while pending): reading back looks for changes from then on. */
  sentAt: string | null;
}

export type ResumeClass = 'finished' | 'sent' | 'unsent';

export interface ResumeState {
  fileId: number;
  /** Highest seq recorded (-1 when none). */
  maxSeq: number;
  counts: { finished: number; sent: number; unsent: number };
  /** Requests whose bytes may have gone out before the crash: the caller reconciles each with completeRequest. */
  sentRequests: RecordedRequest[];
  /** Class of one seq; seqs never recorded are `unsent`. */
  classify(seq: number): ResumeClass;
}

export interface ItemRecord {
  /** Row id in `items`; null for an item of a block that has no row (pending, sent or ok). */
  itemId: number | null;
  fileId: number;
  seq: number;
  endpoint: string | null;
  docKey: string | null;
  lines: number[];
  status: ItemStatus;
  rejected: boolean;
  requestId: number | null;
  attempt: number;
  result: unknown;
  messages: string[];
  hint: string | null;
  resolution: Resolution | null;
  resolutionNote: string | null;
  resolvedBy: string | null;
  resolvedAt: string | null;
}

/** An item that has a row in `items` (errors, uncertain, rejected and skipped rows always do). */
export type StoredItem = ItemRecord & { itemId: number };

export interface ItemWithBody extends ItemRecord {
  /** The request body JSON as recorded. */
  body: string | null;
}

export interface LineOutcome {
  line: number;
  seq: number;
  itemId: number | null;
  endpoint: string | null;
  docKey: string | null;
  status: ItemStatus;
  result: unknown;
  messages: string[];
  hint: string | null;
  resolution: Resolution | null;
}

export type StatusCounts = Record<ItemStatus, number>;

export interface FileSummary extends StatusCounts {
  fileId: number;
  total: number;
}

export interface FileRecord {
  fileId: number;
  drop: string;
  name: string;
  checksum: string;
  size: number;
  mapping: string;
  generation: number;
  status: FileStatus;
  reason: string | null;
  /** Counts per item status as of the last finish / resolve / retry (null while processing). */
  summary: FileSummary | null;
  /** How many re-drives (retry) were started for this file. */
  redrives: number;
  claimedAt: string;
  /** When it last finished: its processing, or the last re-drive that finished it again. */
  finishedAt: string | null;
  /** When its processing first finished (kept across re-drives); null for files re-driven before the journal kept it. */
  processedAt: string | null;
  /** Name of the file's result file once one was written (in the result folder of its run). */
  resultName: string | null;
  /** An X12 file's acknowledgement as recorded before it was written (its name and control numbers, JSON). */
  x12Ack: string | null;
  /** `archive/NAME` or `error/NAME` once the file left its inbox ('unknown' for files of older journals). */
  disposedTo: string | null;
  /** When retention dropped the file's rows, requests and bodies (its row, checksum and summary stay). */
  prunedAt: string | null;
  /** The instance that holds or last held the file's lease; null when no instance in lease mode claimed it. */
  lease: FileLease | null;
}

/**
 * One entry of an X12 file's envelopes as the pipeline read them (pipeline/x12-structure.ts): an interchange, a group
 * or a set, in file order from 1 (0: the file's totals). The journal keeps its detail as the pipeline wrote it.
 */
export interface X12EnvelopeEntry {
  ord: number;
  level: 'file' | 'interchange' | 'group' | 'set';
  /** JSON. */
  detail: string;
}

/** A page of a file's X12 envelopes by ord, and the ord to continue after (null at the end). */
export interface X12EnvelopePage {
  entries: X12EnvelopeEntry[];
  next: number | null;
}

export interface FileLease {
  owner: string;
  /** The fencing token: 1 for the first owner, one more for every new owner. */
  token: number;
  /** Until when the owner holds it (the database's clock), renewed by its heartbeat; null once given up. */
  until: string | null;
}

export interface ResolveOptions {
  resolution: Resolution;
  note: string;
  by: string;
}

export type ResolveTarget = { itemIds: readonly number[] } | { fileId: number; seqs: readonly number[] };

export interface HistoryEntry {
  requestId: number | null;
  attempt: number;
  status: ItemStatus;
  messages: string[];
  hint: string | null;
  recordedAt: string;
}

export interface Backlog {
  processingFiles: number;
  pendingRequests: number;
  pendingItems: number;
  sentRequests: number;
  sentItems: number;
  uncertainItems: number;
  errorItems: number;
  exportsUnwritten: number;
  acknowledgementsPending: number;
  awaitingConfirmation: number;
}

// Outbound

export type ExportKind = 'work' | 'cancellation';
export type AckPolicy = 'on-export' | 'on-confirmation' | 'never';
export type ExportStatus = 'recorded' | 'written' | 'completed' | 'abandoned';
export type AckStatus =
  | 'unwritten' | 'pending' | 'awaiting-confirmation' | 'acknowledged' | 'error' | 'not-required' | 'abandoned';

export interface ExportRecordInput {
  id: number;
  number: string;
  updatedAt?: string | null;
}

export interface BeginExportInput {
  workType: string;
  fileName: string;
  records: readonly ExportRecordInput[];
  kind?: ExportKind;
  /** Default `on-export`; cancellation lists are never acknowledged. */
  policy?: AckPolicy;
}

export interface ExportFile {
  exportId: number;
  workType: string;
  fileName: string;
  kind: ExportKind;
  policy: AckPolicy;
  status: ExportStatus;
  recordCount: number;
  createdAt: string;
  writtenAt: string | null;
  completedAt: string | null;
}

/**
 * A recorded export taken over (journal takeExport): from whom (null: a process without an instance), the temporary name its owner staged its work list under, if it got
 * that far; or refused, with the owner (a live instance) or the status it has now (no longer recorded).
 */
export type ExportTake = { taken: true; from: string | null; stagedName: string | null } | { taken: false; owner: string | null; status: ExportStatus };

export interface ExportRecord {
  exportId: number;
  fileName: string;
  workType: string;
  id: number;
  number: string | null;
  updatedAt: string | null;
  ackStatus: AckStatus;
  acknowledgedAt: string | null;
  messages: string[];
}

export interface Acknowledgement {
  id: number;
  status: 'acknowledged' | 'error';
  acknowledgedAt?: string | null;
  messages?: readonly string[];
}

/** What `pruneJournal` drops (journal retention, src/journal/admin/prune.ts). */
export interface PruneOptions {
  /** Files finished before this instant (ISO 8601) are pruned; file events before it are dropped. */
  olderThan: string;
  /** Stops between two chunks (shutdown); what was pruned stays pruned, the rest waits for the next prune. */
  signal?: AbortSignal;
}

export interface PruneReport {
  /** Files whose rows, blocks and requests were dropped. */
  files: number;
  /** Old finished files kept because they still have open rows (uncertain, or a request pending or sent). */
  keptOpen: number;
  items: number;
  blocks: number;
  requests: number;
  events: number;
}
