export { openJournal, type JournalOptions } from './journal.js';
export type {
  ConsoleJournal, ExportConfirmations, ExportJournal, InboundJournal, Journal, JournalLifecycle, JournalTransactions,
  OperatorJournal, ResultReads,
} from './interfaces.js';
export { BUSY_TIMEOUT_MS } from './db.js';
export { packBatch, packOkOutcomes, type PackedBatch, type PackedDoc, type PackedOkOutcomes } from './blocks.js';
export { decodeLines } from './rows.js';
export { SCHEMA_VERSION } from './schema.js';
export type * from './types.js';
export type { FileEvent, FileEventKind, JournalStats, NewFileEvent } from './reads.js';
export type { PruneOptions, PruneReport } from './prune.js';
