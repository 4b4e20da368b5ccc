import type { ConsoleQueries } from './console-queries.js';
import type { createDispositions } from './dispositions.js';
import type { createInbound } from './inbound.js';
import type { createOperator } from './operator.js';
import type { createOutbound } from './outbound.js';
import type { createPrune } from './prune.js';
import type { createReads } from './reads.js';

/*
 * The journal split by who uses it (docs/journal.md, "Interfaces by who uses them"). Each consumer takes the
 * narrowest one it needs; none exposes the database handle. The method signatures come from the SQLite
 * factories (one source of truth); a second engine implements these interfaces, not the factories.
 */

type Inbound = ReturnType<typeof createInbound>;
type Operator = ReturnType<typeof createOperator>;
type Outbound = ReturnType<typeof createOutbound>;
type Reads = ReturnType<typeof createReads>;

/** Several journal calls in one commit (one fsync). fn is synchronous: never await inside. */
export interface JournalTransactions {
  transaction<T>(fn: () => T): T;
}

/**
 * Inbound claims and requests: the pipeline (first send, resume, settling a crash) and re-drive. `path`: a large file
 * commits on a worker thread with its own connection to the same journal (pipeline/batches-thread.ts).
 */
export type InboundJournal = Pick<Inbound,
  | 'claimFile' | 'addItems' | 'recordRequest' | 'recordBatch' | 'markSent' | 'releaseRequest' | 'completeRequest'
  | 'finishFile' | 'rejectFile' | 'resumeState' | 'itemsInRange' | 'requestItems' | 'getRequest'>
  & ReturnType<typeof createDispositions> & Pick<Reads, DuplicateRecords> & JournalTransactions & { readonly path: string };

/** File events as the pipeline writes them: a duplicate is recorded, finished and, after a crash, found again. */
type DuplicateRecords = 'recordFileEvent' | 'unfinishedDuplicate' | 'recordEventDisposition';

/** What a file's rows came to: result files, `wisbridge rows`, the summary of a file. */
export type ResultReads = Pick<Inbound, 'fileSummary' | 'resultOf' | 'resultList'>
  & Pick<Operator, 'getFile' | 'iterateLineOutcomes' | 'itemHistory'>;

/** Operator actions and the views behind them: status, metrics, retry, resolve, alerts, retention. */
export type OperatorJournal = Pick<Operator,
  | 'getFile' | 'latestFileNamed' | 'listFiles' | 'failedItems' | 'uncertainItems' | 'retryable' | 'beginRedrive' | 'resolveUncertain' | 'backlog'>
  & Omit<Reads, 'recordFileEvent' | 'unfinishedDuplicate' | 'recordEventDisposition'> & ReturnType<typeof createPrune> & Pick<Outbound, 'listExports' | 'getExport'>
  & Pick<Outbound, 'getCursor' | 'setCursor'> & { readonly path: string };

/**
 * Exports and their acknowledgements (src/export), and the confirmations an inbound acknowledgement brings.
 * `path`: the export records in a worker thread with its own connection to the same journal.
 */
export type ExportJournal = Outbound & JournalTransactions & { readonly path: string };

/** The part of ExportJournal the inbound acknowledgement endpoint uses (pipeline/confirmations.ts). */
export type ExportConfirmations = Pick<ExportJournal, 'confirmRecords' | 'pendingAcknowledgements' | 'recordAcknowledgements'>
  & JournalTransactions;

/** The operations console's keyset pages and its audit trail of operator actions (console-queries.ts). */
export type ConsoleJournal = ConsoleQueries;

/** Opening, closing and identifying the journal: the runtime and `wisbridge status`. */
export interface JournalLifecycle {
  readonly path: string;
  readonly schemaVersion: number;
  /** Checkpoints and closes the connection. Idempotent. */
  close(): void;
}

/** The whole journal that openJournal returns and the runtime hands out: every interface above, and nothing else. */
export type Journal = InboundJournal & ResultReads & OperatorJournal & ExportJournal & JournalLifecycle & {
  /** The console's queries, prepared on first use. */
  readonly console: ConsoleJournal;
};
