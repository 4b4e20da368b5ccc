export { openJournal, type Journal, type JournalOptions } from './journal.js';
export { BUSY_TIMEOUT_MS } from './db.js';
export { SCHEMA_VERSION } from './schema.js';
export type * from './types.js';
