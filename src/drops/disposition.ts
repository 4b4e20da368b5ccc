import { isWisbridgeError, type WisbridgeError } from '../errors.js';
import { failpoint } from '../failpoints.js';
import { dropError, replacedVersionName, type Drop, type FolderRole, type MoveOptions, type WriteSource } from './drop.js';
import type { ReadyFile } from './watcher.js';

export interface Disposition {
  /** Final name in the target folder (with a timestamp suffix when the name collided). */
  name: string;
  folder: FolderRole;
  /**
   * The inbox file was replaced after it was read (`expect` did not match): it stays in the inbox, a file of its own,
   * and `name` is the copy of the bytes that were read (replacedVersionName).
   */
  replaced?: WisbridgeError<'DROP_CHANGED'>;
}

/** Most names tried for the copy of a replaced file's bytes before giving up (as many as a move's collision names). */
const REPLACED_NAME_ATTEMPTS = 20;

/**
 * Moves a processed file out of the inbox: to `archive`, or to `error` when the file as a whole failed.
 * Its marker file (marker mode) is removed afterwards, so that a later file of the same name must bring
 * its own marker. When the move fails (e.g. DROP_PERMISSION, DROP_CHANGED) the source and its marker stay in place.
 * With `read` (the bytes that were read, as a new stream each call), a file replaced since it was read still has
 * those bytes reach the target folder, under a name that says so: the rows applied always have their bytes archived.
 */
export async function disposeFile(
  drop: Drop,
  file: ReadyFile | string,
  outcome: 'archive' | 'error',
  options: Omit<MoveOptions, 'toName'> & { companions?: readonly string[]; read?: () => WriteSource } = {},
  from: FolderRole = 'inbox',
): Promise<Disposition> {
  const name = typeof file === 'string' ? file : file.name;
  failpoint('drop.before-move');
  const { companions, read, ...move } = options;
  let finalName: string;
  try {
    finalName = await drop.move(from, name, outcome, move);
  } catch (error) {
    if (read === undefined || !isWisbridgeError(error, 'DROP_CHANGED')) throw error;
    // The replacement keeps the inbox name, its companions and its marker: they may be its own.
    return { name: await keepReplacedVersion(drop, outcome, name, read, options.stampAt ?? new Date()), folder: outcome, replaced: error };
  }
  // Companions (a checksum file `NAME.sha256`) follow the file under its final name, so error/ shows what was compared.
  for (const companion of companions ?? []) {
    if (!companion.startsWith(name)) continue;
    try {
      await drop.move(from, companion, outcome, { toName: finalName + companion.slice(name.length), stampAt: options.stampAt });
    } catch (error) {
      if (!isWisbridgeError(error, 'DROP_NOT_FOUND')) throw error;
    }
  }
  if (typeof file !== 'string' && file.marker !== undefined) await drop.remove(from, file.marker);
  return { name: finalName, folder: outcome };
}

/** Writes the bytes read of a replaced file to `folder` under replacedVersionName, never over another file. */
async function keepReplacedVersion(drop: Drop, folder: FolderRole, name: string, read: () => WriteSource, at: Date): Promise<string> {
  for (let attempt = 0; attempt < REPLACED_NAME_ATTEMPTS; attempt++) {
    const candidate = replacedVersionName(name, at, attempt);
    if ((await drop.stat(folder, candidate)) !== undefined) continue;
    try {
      await drop.writeAtomic(folder, candidate, read());
      return candidate;
    } catch (error) {
      if (!isWisbridgeError(error, 'DROP_EXISTS')) throw error;
    }
  }
  throw dropError('DROP_EXISTS', { drop: drop.name, folder, file: name }, `cannot find a free name in ${folder} for the bytes read of ${name}, replaced since`);
}
