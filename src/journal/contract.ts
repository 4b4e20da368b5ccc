import type { AllOkRequest, BlockIndexOf, PackedBatch, PackedOkOutcomes } from './core/block-pack.js';
import type {
  ExportFilter, FailedRowCounts, FileFilter, FileLineFilter, FileLinePage, FileListEntry, NewAlert, NewOperatorAction, OperatorAction, RowPage, StoredAlert, UncertainRowPage, UncertainRequest, ExportListEntry,
} from './console/console-queries.js';
import type { SearchOptions, SearchPage } from './console/search.js';
import type { ControlNumberKind, ExportControls } from './outbound/control-numbers.js';
import type { ExportAck, ExportAckInput, X12ExportFilter, X12ExportState } from './outbound/received-acks.js';
import type { ActivityBucket, ActivityQuery } from './console/activity.js';
import type { FileOwnerChange } from './leases/file-owners.js';
import type { DuplicateClaim, FileEvent, JournalStats, NewDuplicate, NewFileEvent } from './admin/reads.js';
import type {
  Acknowledgement, Backlog, BeginExportInput, ClaimInput, ClaimResult, ExportFile, ExportRecord, ExportRecordInput, ExportTake,
  ExportStatus, FileRecord, FileStatus, FileSummary, ItemOutcome, ItemWithBody, LineOutcome, NewItem,
  PruneOptions, PruneReport, RecordedRequest, RequestStatus, ResolveOptions, ResolveTarget, ResumeState, StoredItem,
  X12EnvelopeEntry, X12EnvelopePage,
} from './core/types.js';

/*
 * The journal's contract: what the bridge asks of its memory, by role. The pipeline, exports, service, console and
 * CLI depend on these types only; an engine (src/journal/sqlite, src/journal/postgres) implements all of them.
 * Every call is asynchronous, carries no engine type and no storage location, and every write commits before its
 * Promise resolves (durably: the WAL synced before the Promise resolves on SQLite, synchronous_commit=on on PostgreSQL).
 * docs/journal.md says what each role's calls guarantee.
 */

/** Claims of inbound files and the requests made of their rows: the pipeline's first pass, resume and re-drive. */
export interface ClaimsAndRequests {
  /**
   * Claims a file by its content checksum: new, resume (a crash left it processing) or duplicate. In lease mode also
   * busy (another instance holds a live lease on it); an expired lease is taken over (a new token) and resumed.
   */
  claimFile(input: ClaimInput): Promise<ClaimResult>;
  /**
   * Lease mode: the run of a claimed file ended without finishing it (the journal, the service or the drop failed):
   * its lease is given up, so another instance may take the file at once, and heartbeats no longer renew it (should
   * the database not answer now, the lease runs out by itself). The next claim takes it again. Nothing otherwise.
   */
  releaseFile(fileId: number): Promise<void>;
  /** Records items (and rows the mapping rejected); seqs already recorded are left as they are. Resolves how many were new. */
  addItems(fileId: number, items: readonly NewItem[]): Promise<number>;
  /**
   * Records a request before it is sent and links its items. attempt 1 takes pending items; a re-drive (attempt
   * from beginRedrive) takes failed items and keeps their earlier outcome in the history.
   */
  recordRequest(fileId: number, endpoint: string, seqs: readonly number[], options?: { attempt?: number }): Promise<number>;
  /**
   * The hot path: records a commit's new requests, each with its new items as one packed block (`packBatch`, on the
   * thread that mapped them, with their bodies as one JSON array text), in one unit of work (on PostgreSQL in one
   * statement: the round trips are the commit's, not each request's); their ids in order. All are refused when one
   * would be, or when two share a seq. `sent: true` also marks the requests sent in the same commit: call it only
   * right before sending (a crash in between makes a batch look sent: read back or reported uncertain on resume,
   * never applied twice).
   */
  recordBatches(fileId: number, batches: ReadonlyArray<{ endpoint: string; packed: PackedBatch; bodies: string }>, options?: { sent?: boolean }): Promise<number[]>;
  /**
   * The console search's index of blocks recorded without it: the flow records a request with its PackedBatch's
   * `index` taken off and writes the index in a later commit, so the commit a send waits for stays small.
   */
  indexBlocks(fileId: number, indexes: readonly BlockIndexOf[]): Promise<void>;
  /**
   * Indexes the file's blocks whose index a crash kept from following them (read from their stored documents and
   * bodies); returns how many. A resumed file is searchable whole again.
   */
  indexMissingBlocks(fileId: number): Promise<number>;
  /** Call just before the bytes go out: from here on the outcome is unknown until completeRequest. */
  markSent(requestId: number): Promise<void>;
  /** The request did not reach the service after all (e.g. 503 until the retries ran out): its items are unsent again. */
  releaseRequest(requestId: number): Promise<void>;
  /** Stores every item's outcome (or `allOk(outcomes)`) and the request's status (derived unless given). */
  completeRequest(requestId: number, outcomes: readonly ItemOutcome[] | PackedOkOutcomes, options?: { status?: 'done' | 'failed' | 'uncertain' }): Promise<RequestStatus>;
  /**
   * Requests whose items all came back ok (packOkOutcomes), stored `done` in one statement, each as completeRequest
   * stores it; all are refused when one would be.
   */
  completeRequests(requests: ReadonlyArray<AllOkRequest>): Promise<void>;
  /** Ends a processing file: `done`, or `failed` when some items failed or are uncertain. */
  finishFile(fileId: number): Promise<FileStatus>;
  /** The file as a whole failed (unreadable, no header, unknown mapping…). */
  rejectFile(fileId: number, reason: string): Promise<void>;
  /** Where a crash left a file: which seqs are finished, sent (outcome unknown) or never sent. */
  resumeState(fileId: number): Promise<ResumeState>;
  requestItems(requestId: number): Promise<ItemWithBody[]>;
  getRequest(requestId: number): Promise<RecordedRequest>;
  /** Recorded before the result file is written, so that a crash in between rewrites that name, not a new one. */
  recordResultName(fileId: number, name: string): Promise<void>;
  /** `archive/NAME` or `error/NAME`, once the file has left its inbox. */
  recordDisposition(fileId: number, where: string): Promise<void>;
  /** An X12 file's acknowledgement (its name and control numbers, as text), recorded before it is written: a later run writes the same one. */
  recordX12Ack(fileId: number, ack: string): Promise<void>;
  /**
   * An X12 file's envelopes as read (its interchanges, groups and listed sets, in file order), in one unit of work;
   * an entry replaces the one recorded before under its ord. In lease mode, the owner's only.
   */
  recordX12Envelopes(fileId: number, entries: readonly X12EnvelopeEntry[]): Promise<void>;
  /**
   * An X12 interchange received in the file, by its sender and ISA13: the file that brought it first, this one when
   * none did before (recorded now; this file again on a later run of it). In lease mode, the owner's only.
   */
  recordReceivedInterchange(fileId: number, sender: string, control: string): Promise<number>;
  /** A file met but not claimed: a re-drop of content processed before, or a file rejected before a claim. */
  recordFileEvent(event: NewFileEvent): Promise<FileEvent>;
  recordEventDisposition(eventId: number, where: string): Promise<void>;
  /**
   * The handling of a re-drop, claimed once: the first to record its duplicate event (one unfinished per drop, name
   * and original file) handles it; an unfinished one is resumed under its names when its handler stopped (lease mode:
   * gave it up, or its lease ran out) and is answered busy while that handler lives.
   */
  claimDuplicate(duplicate: NewDuplicate): Promise<DuplicateClaim>;
  /**
   * The handling of a claimed duplicate ended: an unfinished event's lease is given up (another instance finishes it
   * at once). `unused`: nothing was done for it (its file had left the inbox already): the event is removed.
   */
  releaseFileEvent(eventId: number, options?: { unused?: boolean }): Promise<void>;
}

/** What a file's rows came to: result files, `status --file`, the console's file page. */
export interface OutcomesAndResults {
  getFile(fileId: number): Promise<FileRecord>;
  fileSummary(fileId: number): Promise<FileSummary>;
  /** One outcome per input line, in line order (result files). Safe to interleave with journal writes. */
  iterateLineOutcomes(fileId: number): AsyncIterable<LineOutcome>;
  failedItems(fileId: number, options?: { limit?: number }): Promise<StoredItem[]>;
  uncertainItems(fileId?: number, options?: { limit?: number }): Promise<StoredItem[]>;
}

/** Work lists handed to the WMS, their records and acknowledgements, cursors and file sequences. */
export interface ExportsAndAcknowledgements {
  beginExport(input: BeginExportInput & { repeatable?: boolean }): Promise<number>;
  addExportRecords(exportId: number, records: readonly ExportRecordInput[], options?: { repeatable?: boolean }): Promise<void>;
  markExportWritten(exportId: number): Promise<void>;
  abandonExport(exportId: number): Promise<void>;
  /** The owner's fenced step before the rename: its work list is whole under `stagedName` in the outbox. */
  stageExport(exportId: number, stagedName: string): Promise<void>;
  /** Takes a recorded export over when its owner is not live (or is this journal's own instance): see export-lease.ts. */
  takeExport(exportId: number): Promise<ExportTake>;
  unwrittenExports(workType?: string): Promise<ExportFile[]>;
  listExports(options: { workType?: string; status?: ExportStatus; limit: number }): Promise<ExportFile[]>;
  getExport(exportId: number): Promise<ExportFile>;
  exportRecordsAfter(exportId: number, afterId: number, limit: number): Promise<ExportRecord[]>;
  pendingAcknowledgements(workType: string): Promise<ExportRecord[]>;
  exportsDueForAcknowledgement(workType: string): Promise<number[]>;
  pendingAcknowledgementsOf(exportId: number): Promise<ExportRecord[]>;
  pendingIdsOf(exportId: number): Promise<Set<number>>;
  /** Resolves whether the export is now complete. */
  recordAcknowledgements(exportId: number, acks: readonly Acknowledgement[]): Promise<boolean>;
  awaitingConfirmation(workType: string): Promise<ExportRecord[]>;
  /** An inbound acknowledgement confirms records exported under the on-confirmation policy. */
  confirmRecords(workType: string, ids: readonly number[]): Promise<{ confirmed: number[]; unknown: number[] }>;
  alreadyExported(workType: string, ids: readonly number[]): Promise<Set<number>>;
  cancelledNotYetExported(workType: string, cancelledIds: readonly number[]): Promise<ExportRecord[]>;
  getCursor(key: string): Promise<string | null>;
  setCursor(key: string, value: string): Promise<void>;
  nextFileSequence(workType: string): Promise<number>;
  /**
   * X12 control numbers (ISA13, GS06, ST02): the first of `count` consecutive numbers of a partner and kind, committed
   * before it resolves (never handed out twice, by two instances either; a crash leaves a gap). control-numbers.ts.
   */
  nextControlNumber(partner: string, kind: ControlNumberKind, count?: number): Promise<number>;
  /**
   * The control numbers of an X12 work list (its interchange, group and `sets` sets), allocated and recorded with the
   * export in one unit of work; those recorded before when it has some.
   */
  allocateExportControls(exportId: number, partner: string, sets: number): Promise<ExportControls>;
  exportControls(exportId: number): Promise<ExportControls | undefined>;
  /** The X12 work list whose group had this GS06 for this partner (the latest, should the numbers have wrapped). */
  exportOfGroup(partner: string, group: number): Promise<(ExportControls & { exportId: number }) | undefined>;
  /**
   * A partner's 997/999 for an X12 work list (the latest replaces an earlier one): resolves false when the same inbound
   * file recorded it before (a resumed run), so it is reported once. received-acks.ts.
   */
  recordExportAck(ack: ExportAckInput): Promise<boolean>;
  exportAck(exportId: number): Promise<ExportAck | undefined>;
  /** Written X12 work lists newest first, with their control numbers and acknowledgement (`awaitingSince`: the overdue ones). */
  x12Exports(filter: X12ExportFilter): Promise<X12ExportState[]>;
}

/** What operators look up and do: files by name, re-drives, resolutions, and the console's audited actions. */
export interface OperatorActions {
  latestFileNamed(name: string): Promise<FileRecord | undefined>;
  listFiles(options: { since?: string; status?: FileStatus; limit: number }): Promise<FileRecord[]>;
  recentFileEvents(limit: number): Promise<FileEvent[]>;
  fileEventsNamed(name: string, limit?: number): Promise<FileEvent[]>;
  /** Failed items of a file that can be sent again (never ok, uncertain or mapping-rejected ones), with bodies. */
  retryable(fileId: number): AsyncIterable<ItemWithBody>;
  /** Opens a re-drive of a failed file: resolves the attempt number to pass to recordRequest. */
  beginRedrive(fileId: number): Promise<number>;
  /** A person checked uncertain items: applied → ok, not-applied → error (so a re-drive can send them again). */
  resolveUncertain(target: ResolveTarget, options: ResolveOptions): Promise<{ resolved: number; files: Array<{ fileId: number; status: FileStatus }> }>;
  /** The console's keyset pages and its audit trail. */
  readonly console: ConsolePages;
}

/** The operations console's pages: keyset pages that stay fast on millions of rows, and the audit trail. */
export interface ConsolePages {
  /** The file list: files and file events (duplicates, refusals before a claim) newest first, one keyset page. */
  listFileLines(filter: FileLineFilter): Promise<FileLinePage>;
  listExports(filter: ExportFilter): Promise<ExportListEntry[]>;
  /** A file's rows by seq, after `after`; `through`: none past this seq (the rows of one X12 set). */
  fileRows(fileId: number, options: { status?: import('./core/types.js').ItemStatus; after?: number; through?: number; limit: number }): Promise<RowPage>;
  /** An X12 file's recorded envelopes by ord, after `after` (a page; none for any other file). */
  x12Envelopes(fileId: number, options: { after?: number; limit: number }): Promise<X12EnvelopePage>;
  uncertainRows(options: { afterFile?: number; afterSeq?: number; limit: number }): Promise<UncertainRowPage>;
  /** The uncertain rows counted by file and request (a request was sent whole: its rows are checked and resolved together). */
  uncertainRequests(): Promise<UncertainRequest[]>;
  /** A file's failed rows: those a re-drive sends again (as `retryable` yields them) and those the mapping rejected. */
  failedRows(fileId: number): Promise<FailedRowCounts>;
  /** The alert inbox (kept across restarts): an occurrence opens an alert of its kind and subject, or counts one more. */
  raiseAlert(alert: NewAlert): Promise<number>;
  /** Open alerts the most severe first, then newest seen first; acknowledged ones newest first, `before` an id for the next page. */
  listAlerts(options: { before?: number; limit: number }): Promise<{ open: StoredAlert[]; acknowledged: StoredAlert[] }>;
  getAlert(id: number): Promise<StoredAlert | undefined>;
  /** Resolves false when it was acknowledged already. */
  acknowledgeAlert(id: number, by: string): Promise<boolean>;
  /** Several at once, in one unit of work: resolves the ids acknowledged here (not those acknowledged already or not there). */
  acknowledgeAlerts(ids: readonly number[], by: string): Promise<number[]>;
  stats(location: string): Promise<{ path: string; bytes: number; oldestEntry: string }>;
  /** "Where is SO-1011?": rows of every file whose document key or request body carried the term, a page at a time, and how many (search.ts). */
  search(text: string, options: SearchOptions): Promise<SearchPage>;
  /** Files, rows, export records and the uncertain backlog per hour or day (the charts; activity.ts). */
  activity(query: ActivityQuery): Promise<ActivityBucket[]>;
  /** Every instance that took the file's lease, oldest first: its claim and each takeover (from whom, why, the token). */
  fileOwners(fileId: number): Promise<FileOwnerChange[]>;
  recordAction(action: NewOperatorAction): Promise<number>;
  listActions(options: { before?: number; fileId?: number; limit: number }): Promise<OperatorAction[]>;
}

/** Retention and the figures operators watch: backlog, counts, size and age. */
export interface RetentionAndStatistics {
  /** Drops the rows, bodies and requests of files finished before `olderThan`; their checksums stay (duplicates). */
  pruneJournal(options: PruneOptions): Promise<PruneReport>;
  journalStats(): Promise<JournalStats>;
  backlog(): Promise<Backlog>;
  countFiles(): Promise<number>;
  countFileEvents(): Promise<number>;
  countExports(): Promise<number>;
}

/**
 * Several journal calls as one unit of work: everything `fn` does through `tx` commits together or not at all; a call
 * that fails inside it fails the whole unit, even when `fn` catches its error (SqlPort.tx). Await only journal calls
 * on `tx` inside it (no HTTP, no file I/O): the engine holds its write lock or a connection until `fn` settles, and a
 * call on the outer journal from inside waits for it on SQLite.
 */
export interface UnitOfWork {
  transaction<T>(fn: (tx: this) => Promise<T>): Promise<T>;
}

/** A running bridge process, as it registers in the journal. */
export interface InstanceInfo { id: string; host: string; pid: number; version: string }

export interface InstanceRecord extends InstanceInfo {
  startedAt: string;
  heartbeatAt: string;
  stoppedAt: string | null;
  /** Files whose lease this instance holds now, and job ticks it holds. */
  files: number;
  jobs: number;
}

export type TickClaim = { won: true; token: number } | { won: false; owner: string; done: boolean };

/** A scheduled job's tick (claimTick). */
export interface TickRef {
  job: string;
  tick: string;
}

/** What a heartbeat found: the files, and the ticks (only when there are some), another instance took over. */
export interface Heartbeat {
  lost: number[];
  lostTicks?: TickRef[];
}

/**
 * Several instances on one journal (PostgreSQL; SQLite serves one). A journal opened with an `instance` is in lease
 * mode: claimFile takes a lease on the file (owner, fencing token, expiry by the database clock) and every write
 * concerning a file checks that this journal still holds it, or throws LEASE_LOST and writes nothing. docs/journal.md.
 */
export interface InstancesAndLeases {
  /** This journal's instance (set by openJournal's `instance` option); null for tools that never lease (status, migrate). */
  readonly instance: InstanceInfo | null;
  /** Registers or re-registers this instance; heartbeat_at = the database clock. SQLite refuses a second live instance. */
  registerInstance(): Promise<void>;
  /**
   * Renews this instance's heartbeat and the leases of every file and tick it holds (until = db clock + leaseMs).
   * Resolves the ids of files, and the ticks, whose lease it no longer holds (taken over by another instance): their
   * runs stop.
   */
  heartbeat(leaseMs: number): Promise<Heartbeat>;
  /** Marks the instance stopped and gives up its leases (a graceful stop: others take its files at once). */
  retireInstance(): Promise<void>;
  /**
   * A finished file's last steps (its result file, its move out of the inbox) are its owner's: takes the file's lease
   * (a new token) to do them here when its owner stopped, or fell silent (no heartbeat for a lease) and its lease ran
   * out: an owner killed between finishing a file and moving it. Otherwise resolves the owner, which is doing them now.
   */
  takeFinishedFile(fileId: number): Promise<{ taken: true } | { taken: false; owner: string }>;
  /**
   * Processing files of a drop that no instance works on: their owner's lease ran out (it died, or was paused past
   * it) or was given up. The watchers put them into their job's file queue ahead of the files waiting, so a backlog does not keep them waiting.
   */
  filesToTakeOver(drop: string): Promise<Array<{ fileId: number; name: string; owner: string }>>;
  /**
   * Re-drives their run left unfinished (a crash, a stop) that no instance works on: files processing again after
   * they were finished and moved, whose lease ran out or was given up. An instance takes them up (service/redrive-takeups.ts).
   */
  redrivesToTakeUp(): Promise<Array<{ fileId: number; name: string; owner: string }>>;
  listInstances(): Promise<InstanceRecord[]>;
  /**
   * An operator forgets an instance that is gone for good: its row leaves the list, unless it heartbeated since the
   * list was read (`heartbeatAt` as read there). Resolves whether it was removed.
   */
  forgetInstance(id: string, heartbeatAt: string): Promise<boolean>;
  /** Runs a scheduled job's tick once across instances: the first to claim (job, tick) wins, with a fencing token. */
  claimTick(job: string, tickIso: string, leaseMs: number): Promise<TickClaim>;
  /**
   * The tick ran to its end (done = true for others' claims afterwards); no longer held (heartbeats stop renewing it)
   * once the journal answered. Refused (LEASE_LOST) with a stale token.
   */
  finishTick(job: string, tickIso: string, token: number): Promise<void>;
  /** Gives a tick up unfinished (its run stopped): no longer held, and free for the next claim. */
  releaseTick(job: string, tickIso: string, token: number): Promise<void>;
}

/** Opening, identifying and closing a journal. */
export interface JournalLifecycle {
  /** For people: the SQLite file, or `postgres://user@host:port/db` (never a password). */
  readonly location: string;
  /** The engine and what it needs to open this journal again on another thread (opaque to the bridge). */
  readonly address: JournalAddress;
  readonly schemaVersion: number;
  /** Closes the connection(s); SQLite checkpoints its WAL. Idempotent. */
  close(): Promise<void>;
}

/** How to reach a journal again (a worker thread opens its own connection with it): structured-cloneable. */
export type JournalAddress =
  | { readonly engine: 'sqlite'; readonly path: string }
  | { readonly engine: 'postgres'; readonly connection: Readonly<Record<string, unknown>> };

/** The whole journal an engine opens: every role. */
export interface JournalContract
  extends ClaimsAndRequests, OutcomesAndResults, ExportsAndAcknowledgements, OperatorActions, RetentionAndStatistics,
    InstancesAndLeases, UnitOfWork, JournalLifecycle {}

/** Whether another thread can open this journal again (an in-memory SQLite database cannot). */
export function canReopen(address: JournalAddress): boolean {
  return address.engine !== 'sqlite' || address.path !== ':memory:';
}

export type { ExportFilter, FileFilter, FileListEntry, NewOperatorAction, OperatorAction, RowPage, PruneOptions, PruneReport, FileEvent, JournalStats, NewFileEvent };
export type { DuplicateClaim, NewDuplicate };
export type { FileStatus, RequestStatus };
