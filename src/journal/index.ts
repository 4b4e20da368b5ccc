export { DEFAULT_LEASE_MS, openJournal, type JournalOptions, type JournalTarget } from './journal.js';
export { JournalTally, type JournalTimings } from './core/timings.js';
export {
  canReopen, type InstanceInfo, type InstanceRecord, type InstancesAndLeases, type JournalAddress, type JournalContract, type TickClaim, type TickRef, type Heartbeat,
} from './contract.js';
export { instanceStates, instanceTimeline, type InstanceBucket, type InstanceState, type InstanceView } from './leases/instance-states.js';
export type {
  ConsoleJournal, ExportConfirmations, ExportJournal, InboundJournal, Journal, JournalLifecycle, JournalTransactions,
  OperatorJournal, ResultReads,
} from './interfaces.js';
export { BUSY_TIMEOUT_MS } from './sqlite/db.js';
export { workingFolderOf } from './sqlite/file-guard.js';
export { packBatch, packOkOutcomes, type AllOkRequest, type BlockIndexOf, type PackedBatch, type PackedOkOutcomes } from './core/block-pack.js';
export type { PackedDoc } from './core/blocks.js';
export { decodeLines } from './core/rows.js';
export { freshState } from './core/resume-state.js';
export { SCHEMA_VERSION } from './sqlite/migrations.js';
export type * from './core/types.js';
export type { FileEvent, FileEventKind, JournalStats, NewFileEvent } from './admin/reads.js';
export { migrateJournal, type MigrationReport, type MigrationTarget } from './admin/copy.js';
export { checkJournalReachable } from './admin/reach.js';
export type { OperatorActions } from './contract.js';
export type { ActivityBucket } from './console/activity.js';
export type { FileOwnerChange, FileOwnerReason } from './leases/file-owners.js';
export { ALERT_SEVERITIES, alertSeverity, type AlertSeverity } from './console/alert-severity.js';
export type {
  FailedRowCounts, FileEventEntry, FileLine, FileLinePage, FileListEntry, NewAlert, OperatorAction, RowPage, RowView, StoredAlert, UncertainRequest,
} from './console/console-queries.js';
export type { SearchPage } from './console/search.js';
export { MAX_CONTROL_NUMBER, type ControlNumberAllocator, type ControlNumberKind, type ExportControls } from './outbound/control-numbers.js';
export type { ExportAck, ExportAckInput, ExportAckSegmentError, ExportAckState, ExportSetAck, X12ExportFilter, X12ExportState } from './outbound/received-acks.js';
