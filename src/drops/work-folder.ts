import { WisbridgeError } from '../errors.js';

/** errno codes of a folder that cannot take a write: full, over quota, past a size limit, read-only, denied, failing. */
const UNWRITABLE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS', 'EACCES', 'EPERM', 'EIO']);
/** The calls that write (a read failing is the file's or the drop's matter, not the working folder's). */
const WRITING = new Set(['open', 'write', 'writev', 'mkdir', 'fsync', 'fdatasync', 'close', 'rename', 'ftruncate', 'copyfile', 'unlink']);

/**
 * A write in the bridge's working folder (private copies, expanded and decrypted members) that failed for the
 * folder's sake, as WORK_FOLDER naming it: the file being processed is not at fault, so it is neither refused nor
 * archived but stays in the inbox for the next run. Anything else is returned unchanged.
 */
export function workFolderError(error: unknown, folder: string, what: string): unknown {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (code === undefined || !UNWRITABLE.has(code) || (syscall !== undefined && !WRITING.has(syscall))) return error;
  return new WisbridgeError('WORK_FOLDER', `cannot write ${what} in ${folder}: ${(error as Error).message}. Free space there, or make it writable `
    + 'by the bridge\'s user; the file stays in the inbox and is taken again', { details: { folder }, cause: error });
}
