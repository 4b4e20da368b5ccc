import type {
  ClaimsAndRequests, ConsolePages, ExportsAndAcknowledgements, InstancesAndLeases, JournalAddress, JournalContract, OperatorActions,
  OutcomesAndResults, RetentionAndStatistics, UnitOfWork,
} from './contract.js';

/*
 * The narrow views of the journal contract (contract.ts) that each part of the bridge takes: a consumer names the one
 * it needs, so the compiler shows what it may do. All are parts of JournalContract; none names an engine.
 */

export type JournalTransactions = UnitOfWork;

/** A journal that a worker thread can open again on its own connection (its `address`). */
type Reopenable = { readonly address: JournalAddress };

/** Inbound claims and requests: the pipeline (first send, resume, reconciling what a crash left in flight) and re-drive. */
export type InboundJournal = ClaimsAndRequests & UnitOfWork & Reopenable;

/** What a file's rows came to: result files, `status --file`, the summary of a file. */
export type ResultReads = Pick<OutcomesAndResults, 'fileSummary' | 'getFile' | 'iterateLineOutcomes'>;

/** Operator actions and the views behind them: status, metrics, retry, resolve, alerts, retention. */
export type OperatorJournal = Omit<OperatorActions, 'console'> & Pick<OutcomesAndResults, 'getFile' | 'failedItems' | 'uncertainItems'>
  & RetentionAndStatistics & Pick<ExportsAndAcknowledgements, 'listExports' | 'getExport' | 'getCursor' | 'setCursor'>
  & { readonly location: string };

/** Exports and their acknowledgements (src/export), and the confirmations an inbound acknowledgement brings. */
export type ExportJournal = ExportsAndAcknowledgements & UnitOfWork & Reopenable & Pick<InstancesAndLeases, 'instance'>;

/** The part of ExportJournal the inbound acknowledgement endpoint uses (pipeline/confirmations.ts). */
export type ExportConfirmations = Pick<ExportsAndAcknowledgements, 'confirmRecords' | 'pendingAcknowledgements' | 'recordAcknowledgements'>
  & UnitOfWork;

/** The operations console's keyset pages and its audit trail of operator actions. */
export type ConsoleJournal = ConsolePages;

export type { JournalLifecycle } from './contract.js';

/** The whole journal that openJournal returns and the runtime hands out. */
export type Journal = JournalContract;
