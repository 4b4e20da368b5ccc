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

/** The request's answer, or `missing` when the server said there is no such file. */
async function unlessMissing<T, M>(answer: Promise<T>, missing: M): Promise<T | M> {
  try {
    return await answer;
  } catch (error) {
    if (codeOf(error) === NO_SUCH_FILE) return missing;
    throw error;
  }
}

const stat = (sftp: SFTPWrapper, path: string) => request<Stats>((done) => sftp.stat(path, done));
/** The name's own attributes (a link is not followed), or undefined when there is no such name. */
export const lstat = (sftp: SFTPWrapper, path: string) => unlessMissing(request<Stats>((done) => sftp.lstat(path, done)), undefined);
export const readdir = (sftp: SFTPWrapper, path: string) => request<FileEntryWithStats[]>((done) => sftp.readdir(path, done));
export const open = (sftp: SFTPWrapper, path: string, flags: OpenMode) => request<Buffer>((done) => sftp.open(path, flags, done));
export const fstat = (sftp: SFTPWrapper, handle: Buffer) => request<Stats>((done) => sftp.fstat(handle, done));
/** SFTP v3 rename: fails when the target exists (OpenSSH: link + unlink), never overwrites. */
export const rename = (sftp: SFTPWrapper, from: string, to: string) => request((done) => sftp.rename(from, to, done));
/** OpenSSH's posix-rename@openssh.com: replaces the target atomically. */
export const posixRename = (sftp: SFTPWrapper, from: string, to: string) => request((done) => sftp.ext_openssh_rename(from, to, done));
/** Removes a file; false when there was none. */
export const unlink = (sftp: SFTPWrapper, path: string) => unlessMissing(request((done) => sftp.unlink(path, done)).then(() => true), false);

/** What a path leads to, links followed: 'folder', 'other' (a file…), or undefined when nothing is there. */
export const kindOf = (sftp: SFTPWrapper, path: string) =>
  unlessMissing(stat(sftp, path).then((s): 'folder' | 'other' => (s.isDirectory() ? 'folder' : 'other')), undefined);

/** Makes a folder, and its parents when they are missing; one made meanwhile by someone else is fine. */
export async function mkdirs(sftp: SFTPWrapper, dir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await request((done) => sftp.mkdir(dir, done));
      return;
    } catch (error) {
      const parent = posix.dirname(dir);
      if (codeOf(error) === NO_SUCH_FILE && attempt === 0 && parent !== dir) {
        await mkdirs(sftp, parent);
        continue;
      }
      // SFTP v3 says FAILURE when the folder exists
      if (codeOf(error) === FAILURE && (await kindOf(sftp, dir)) === 'folder') return;
      throw error;
    }
  }
}
