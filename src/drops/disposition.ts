import { isWisbridgeError } from '../errors.js';
import { failpoint } from '../failpoints.js';
import type { Drop, FolderRole, MoveOptions } from './drop.js';
import type { ReadyFile } from './watcher.js';

export interface Disposition {
  /** Final name in the target folder (with a timestamp suffix when the name collided). */
  name: string;
  folder: FolderRole;
}

/**
 * Moves a processed file out of the inbox: to `archive`, or to `error` when the file as a whole failed.
 * Its marker file (marker mode) is removed afterwards, so that a later file of the same name must bring
 * its own marker. When the move fails (e.g. DROP_PERMISSION, DROP_CHANGED) the source and its marker stay in place.
 */
export async function disposeFile(
  drop: Drop,
  file: ReadyFile | string,
  outcome: 'archive' | 'error',
  options: Omit<MoveOptions, 'toName'> & { companions?: readonly string[] } = {},
  from: FolderRole = 'inbox',
): Promise<Disposition> {
  const name = typeof file === 'string' ? file : file.name;
  failpoint('drop.before-move');
  const { companions, ...move } = options;
  const finalName = await drop.move(from, name, outcome, move);
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
