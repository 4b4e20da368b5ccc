import type { Db } from './db.js';
import type { Journal } from '../interfaces.js';

/*
 * The SQLite connection behind a journal, for tests and benchmarks only (assertions on tables, pragmas, query
 * plans). No Journal interface exposes it: the bridge's code reaches the journal through its methods, so that a
 * second storage engine can stand behind the same interfaces.
 */

const handles = new WeakMap<Journal, Db>();

export function registerRawDatabase(journal: Journal, db: Db): void {
  handles.set(journal, db);
}

/** The connection of a journal opened by openJournal (tests and bench/ only). */
export function rawDatabase(journal: Journal): Db {
  const db = handles.get(journal);
  if (!db) throw new Error('not a journal opened by openJournal');
  return db;
}
