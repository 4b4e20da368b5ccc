import type { Journal } from '../journal/index.js';
import { createConsoleQueries, type ConsoleQueries } from '../journal/console-queries.js';

const queries = new WeakMap<Journal, ConsoleQueries>();

/** The console's read queries on the runtime's journal connection, prepared once per journal. */
export function consoleQueries(journal: Journal): ConsoleQueries {
  let found = queries.get(journal);
  if (!found) queries.set(journal, (found = createConsoleQueries(journal.db)));
  return found;
}
