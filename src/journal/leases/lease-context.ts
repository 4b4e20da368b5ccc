import { stateError } from '../core/rows.js';
import type { SqlPort } from '../core/sql.js';
import type { LeaseStatements } from './leases-sql.js';
import type { LeaseMode } from './leases.js';

/** What the instance, tick and re-drop functions work on: the port, the lease mode (none: tools), the clock, the statements. */
export interface LeaseContext {
  readonly sql: SqlPort;
  readonly mode: LeaseMode | undefined;
  readonly now: () => string;
  readonly q: LeaseStatements;
}

/** The lease mode, refused when this journal was opened without an instance. */
export function leasing(c: LeaseContext): LeaseMode {
  if (!c.mode) throw stateError('this journal was opened without an instance: it takes no leases (openJournal\'s instance option)');
  return c.mode;
}
