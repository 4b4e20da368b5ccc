export { DEFAULT_LEASE_MS, openJournal, type JournalOptions, type JournalTarget } from './journal.js';
export { JournalTally, type JournalTimings } from './timings.js';
export {
  canReopen, type InstanceInfo, type InstanceRecord, type InstancesAndLeases, type JournalAddress, type JournalContract, type TickClaim,
} from './contract.js';
export type {
  ConsoleJournal, ExportConfirmations, ExportJournal, InboundJournal, Journal, JournalLifecycle, JournalTransactions,
  OperatorJournal, ResultReads,
} from './interfaces.js';
export { BUSY_TIMEOUT_MS } from './sqlite/db.js';
export { workingFolderOf } from './sqlite/file-guard.js';
export { packBatch, packOkOutcomes, type AllOkRequest, type BlockIndexOf, type PackedBatch, type PackedOkOutcomes } from './block-pack.js';
export type { PackedDoc } from './blocks.js';
export { decodeLines } from './rows.js';
export { freshState } from './resume-state.js';
export { SCHEMA_VERSION } from './sqlite/migrations.js';
export type * from './types.js';
export type { FileEvent, FileEventKind, JournalStats, NewFileEvent } from './reads.js';
export { migrateJournal, type MigrationReport, type MigrationTarget } from './copy.js';
export { checkJournalReachable } from './reach.js';
export { postgresJournalSchema } from './postgres/connect.js';
export type { OperatorActions } from './contract.js';
export type { ActivityBucket } from './activity.js';
export type {
  FailedRowCounts, FileEventEntry, FileLine, FileLinePage, FileListEntry, NewAlert, OperatorAction, RowPage, RowView, StoredAlert,
} from './console-queries.js';
export type { SearchPage } from './search.js';
