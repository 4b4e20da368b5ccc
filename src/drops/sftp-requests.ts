import { posix } from 'node:path';
import type { FileEntryWithStats, OpenMode, SFTPWrapper, Stats } from 'ssh2';

/**
 * SFTP requests as promises, on ssh2's channel itself. The protocol numbers its requests and a server answers each
 * by its number, so many go out at once on one connection: a drop's operations on several files overlap instead of
 * waiting a round trip each behind the others (ssh2-sftp-client's methods must not be called that way, its listeners
 * are per client). Failures keep ssh2's numeric status code (2: no such file, 3: permission denied, 4: failure).
 */
type Done<T> = (error: Error | null | undefined, value?: T) => void;

function request<T = void>(start: (done: Done<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));
}

const NO_SUCH_FILE = 2;
const FAILURE = 4;
const codeOf = (error: unknown) => (error as { code?: unknown }).code;

/** The name's own attributes (a link is not followed), or undefined when there is no such name. */
export async function lstat(sftp: SFTPWrapper, path: string): Promise<Stats | undefined> {
  try {
    return await request<Stats>((done) => sftp.lstat(path, done));
  } catch (error) {
    if (codeOf(error) === NO_SUCH_FILE) return undefined;
    throw error;
  }
}

export const stat = (sftp: SFTPWrapper, path: string) => request<Stats>((done) => sftp.stat(path, done));
export const readdir = (sftp: SFTPWrapper, path: string) => request<FileEntryWithStats[]>((done) => sftp.readdir(path, done));
export const open = (sftp: SFTPWrapper, path: string, flags: OpenMode) => request<Buffer>((done) => sftp.open(path, flags, done));
export const fstat = (sftp: SFTPWrapper, handle: Buffer) => request<Stats>((done) => sftp.fstat(handle, done));
/** SFTP v3 rename: fails when the target exists (OpenSSH: link + unlink), never overwrites. */
export const rename = (sftp: SFTPWrapper, from: string, to: string) => request((done) => sftp.rename(from, to, done));
/** OpenSSH's posix-rename@openssh.com: replaces the target atomically. */
export const posixRename = (sftp: SFTPWrapper, from: string, to: string) => request((done) => sftp.ext_openssh_rename(from, to, done));

/** Removes a file; false when there was none. */
export async function unlink(sftp: SFTPWrapper, path: string): Promise<boolean> {
  try {
    await request((done) => sftp.unlink(path, done));
    return true;
  } catch (error) {
    if (codeOf(error) === NO_SUCH_FILE) return false;
    throw error;
  }
}

/** What a path leads to, links followed: 'folder', 'other' (a file…), or undefined when nothing is there. */
export async function kindOf(sftp: SFTPWrapper, path: string): Promise<'folder' | 'other' | undefined> {
  try {
    return (await stat(sftp, path)).isDirectory() ? 'folder' : 'other';
  } catch (error) {
    if (codeOf(error) === NO_SUCH_FILE) return undefined;
    throw error;
  }
}

/** Makes a folder and its missing parents; a folder made meanwhile by someone else is fine. */
export async function mkdirs(sftp: SFTPWrapper, dir: string): Promise<void> {
  if ((await kindOf(sftp, dir)) === 'folder') return;
  const parent = posix.dirname(dir);
  if (parent !== dir) await mkdirs(sftp, parent);
  try {
    await request((done) => sftp.mkdir(dir, done));
  } catch (error) {
    if (codeOf(error) !== FAILURE || (await kindOf(sftp, dir)) !== 'folder') throw error;
  }
}
