export { openJournal, type Journal, type JournalOptions } from './journal.js';
export { BUSY_TIMEOUT_MS } from './db.js';
export { SCHEMA_VERSION } from './schema.js';
export type * from './types.js';
export type { FileEvent, FileEventKind, JournalStats, NewFileEvent } from './reads.js';
export type { PruneOptions, PruneReport } from './prune.js';
