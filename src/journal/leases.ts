import { WisbridgeError } from '../errors.js';
import type { SqlPort } from './sql.js';

/*
 * STAND-IN (issue 25 worktree): the commit this branch starts from (8c40fd4) imports './leases.js' from operator.ts,
 * but the file itself is the multi-instance leases work landing on main separately and was never committed, so
 * nothing built. This file only declares what operator.ts uses; nothing passes a fence here (single instance).
 * On merge, main's leases.ts replaces it.
 */

/** A file's lease in lease mode: who else holds it. */
export interface Fence {
  /** Takes the file's lease in `t`; resolves the other owner's name when another instance holds it. */
  take(t: SqlPort, fileId: number): Promise<string | undefined>;
  /** Waits until no other instance holds the file's lease. */
  unheld(t: SqlPort, fileId: number): Promise<void>;
}

export function fileBusy(fileId: number, owner: string): WisbridgeError {
  return new WisbridgeError('JOURNAL_STATE', `file ${fileId} is being worked on by ${owner}: try again once it is done`);
}

/** Who holds a file's lease (operator.ts reads it from the files row; this journal's schema has no lease columns yet). */
export interface FileLease {
  owner: string | null;
  token: number;
  until: string | null;
}

// Stand-in as well: main's types.ts declares the field on FileRecord itself.
declare module './types.js' {
  interface FileRecord {
    lease?: FileLease | null;
  }
}
