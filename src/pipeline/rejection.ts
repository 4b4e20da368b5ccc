import type { Drop } from '../drops/index.js';
import { isWisbridgeError } from '../errors.js';
import type { Journal } from '../journal/index.js';

/** What recording a rejection of a file nobody claimed uses of the journal. */
export type RejectionJournal = Pick<Journal, 'recordFileEvent' | 'fileEventsNamed'>;

/** Where a rejected file nobody claimed went: moved to error/ here, gone (another instance or pass moved it), or stayed. */
export type UnclaimedRejection = 'moved' | 'gone' | 'stayed';

/**
 * Moves a rejected file the journal never claimed (a bad name, no mapping, unreadable bytes) to error/ and records
 * the rejection once, not once per instance or pass that meets it: the move decides who records it (of several
 * instances reading one inbox, one moves it; the others find it gone). A file that cannot be moved and stays in the
 * inbox (a name the drop cannot address) is recorded the first time it is met. A crash between the move and the
 * record leaves the file in error/ unrecorded.
 */
export async function rejectUnclaimed(journal: RejectionJournal, drop: Drop, name: string, reason: string, move: () => Promise<void>): Promise<UnclaimedRejection> {
  const record = () => journal.recordFileEvent({ drop: drop.name, name, kind: 'rejected', reason });
  try {
    await move();
  } catch (error) {
    if (!isWisbridgeError(error, 'DROP_NOT_FOUND')) throw error;
    // Listed under the name it was met by: still there, unmovable; not listed, moved meanwhile by whoever records it.
    if ((await drop.list('inbox', (n) => n === name)).length === 0) return 'gone';
    const [last] = await journal.fileEventsNamed(name, 1);
    if (last?.kind !== 'rejected' || last.drop !== drop.name || last.reason !== reason) await record();
    return 'stayed';
  }
  await record();
  return 'moved';
}
