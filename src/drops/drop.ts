import type { Readable } from 'node:stream';
import { fitName } from '../util/file-name.js';
import { isWisbridgeError, WisbridgeError, type AtDrop, type ErrorCode, type ErrorDetailsByCode } from '../errors.js';

/** The four folders of a drop; each maps to a configurable path (options `inbox`, `outbox`, `archive`, `error`). */
export type FolderRole = 'inbox' | 'outbox' | 'archive' | 'error';
export const FOLDER_ROLES: readonly FolderRole[] = ['inbox', 'outbox', 'archive', 'error'];

export interface DropEntry {
  name: string;
  size: number;
  /** Modification time in milliseconds since the epoch (SFTP servers report whole seconds). */
  mtimeMs: number;
}

export type WriteSource = Readable | AsyncIterable<Uint8Array | string> | string | Buffer;

/**
 * A file opened for one read. `identity` names the file that was opened (local: device and inode; SFTP: size and
 * modification time, the most SFTP v3 tells), so that a later move can check it still moves that file.
 */
export interface OpenedFile {
  stream: Readable;
  identity: string;
  size: number;
}

export interface MoveOptions {
  /** Name in the target folder (default: the same name). */
  toName?: string;
  /** Move only when the file still has this identity (from openFile): DROP_CHANGED when it was replaced. */
  expect?: string;
  /** Time of the collision suffix (default now): a fixed time makes a repeated move try the same names. */
  stampAt?: Date;
}

export interface WriteOptions {
  /** Replace an existing file of that name (default false: DROP_EXISTS). */
  overwrite?: boolean;
  /**
   * Called once the file is whole under its temporary name (`tempName`, in the same folder), right before the rename;
   * when it throws, the temporary file is removed and nothing is renamed (an export's fenced step, src/export/files.ts).
   */
  beforeRename?: (tempName: string) => Promise<void>;
}

export interface WriteResult {
  name: string;
  size: number;
}

/** Where files come from and go to. Implementations: LocalDrop (local.ts) and SftpDrop (sftp.ts). */
export interface Drop {
  readonly name: string;
  readonly type: 'local' | 'sftp';
  /** Regular files directly in the folder (no sub-folders), optionally filtered by name. DROP_NOT_FOUND when the folder is missing. */
  list(folder: FolderRole, filter?: (name: string) => boolean): Promise<DropEntry[]>;
  /** The entry, or undefined when there is no such file. */
  stat(folder: FolderRole, name: string): Promise<DropEntry | undefined>;
  /**
   * Opens a regular file directly in the folder, never following a symbolic link: DROP_NOT_REGULAR for anything
   * else (a link, a folder, a device), DROP_NOT_FOUND when missing.
   */
  openFile(folder: FolderRole, name: string): Promise<OpenedFile>;
  /** The stream of openFile. */
  openRead(folder: FolderRole, name: string): Promise<Readable>;
  /** Writes under a temporary name in the same folder, checks the size, then renames (see docs/drops.md). */
  writeAtomic(folder: FolderRole, name: string, source: WriteSource, options?: WriteOptions): Promise<WriteResult>;
  /**
   * Moves a file, creating the target folder; on a name collision a timestamp suffix is added. Returns the final
   * name. With `expect`, only the file of that identity is moved (DROP_CHANGED otherwise, nothing moved). A move
   * a crash interrupted half-way (local: linked, not yet unlinked) is finished, not copied again.
   */
  move(fromFolder: FolderRole, name: string, toFolder: FolderRole, options?: MoveOptions): Promise<string>;
  /** Removes a file; false when it was not there. */
  remove(folder: FolderRole, name: string): Promise<boolean>;
  /**
   * Drops with outbox companions (CompanionDrop): writes a sidecar or done marker a crash kept from following its
   * file (the file is there, whole: the rename is the commit point).
   */
  completeCompanions?(folder: FolderRole, name: string): Promise<void>;
  /** Optional change notification (local drops): calls onChange when something in the folder may have changed. */
  watchFolder?(folder: FolderRole, onChange: () => void): () => Promise<void>;
  close(): Promise<void>;
}

const TEMPORARY_SUFFIXES = ['.tmp', '.part', '.filepart'];

/** Names that are never picked up: dot-files and temporary upload names. */
export function isTemporaryName(name: string): boolean {
  if (name.startsWith('.')) return true;
  const lower = name.toLowerCase();
  return TEMPORARY_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}

/** Rejects names that would leave the folder (`a/b`, `..`) or are empty; any other byte is a file name's own. */
export function assertPlainName(drop: string, name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw new WisbridgeError('DROP_IO', `drop ${drop}: ${JSON.stringify(name)} is not a plain file name`, { details: { drop, name } });
  }
}

export { fitName, NAME_MAX_BYTES } from '../util/file-name.js';

/** The temporary name a write uses: a dot-file ending in .tmp, ignored by every watcher, never over the name limit. */
export function temporaryNameFor(name: string): string {
  return fitName(`.${name}`, `.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`);
}

/**
 * The name used when `name` collides in the target folder: `orders.csv` → `orders.20261122T032001123Z.csv`,
 * then `orders.20261122T032001123Z-1.csv`, ... for further attempts. With a `tag`, the tag follows the stamp
 * (`orders.20261122T032001123Z.replaced.csv`, see replacedVersionName).
 */
export function collisionName(name: string, now: Date, attempt: number, tag?: string): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  const suffix = (attempt <= 1 ? stamp : `${stamp}-${attempt - 1}`) + (tag === undefined ? '' : `.${tag}`);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return fitName(name, `.${suffix}`);
  return fitName(name.slice(0, dot), `.${suffix}${name.slice(dot)}`);
}

/**
 * The name under which the bytes read of a file replaced in the inbox meanwhile are kept in archive/ (or error/):
 * `orders.csv` read (claimed) at `at` → `orders.20261122T032001123Z.replaced.csv`, then `…Z-1.replaced.csv`, ...
 * The replacement itself, a file of its own, later goes there under its plain name.
 */
export function replacedVersionName(name: string, at: Date, attempt: number): string {
  return collisionName(name, at, attempt + 1, 'replaced');
}

/** Codes that say the drop itself could not be reached or listed (not that one file failed). */
const UNREACHABLE = new Set<ErrorCode>(['DROP_CONNECT', 'DROP_AUTH', 'DROP_HOST_KEY', 'DROP_NOT_FOUND', 'DROP_PERMISSION', 'DROP_IO']);

/** Whether a job's error means its drop could not be reached or listed: drop health, console alerts, webhook. */
export function isDropUnreachable(error: unknown): boolean {
  return isWisbridgeError(error) && UNREACHABLE.has(error.code);
}

/** Codes whose details name the drop (AtDrop): the drops' own, and TIMEOUT. */
export type DropErrorCode = { [C in ErrorCode]: [Extract<ErrorDetailsByCode[C], AtDrop>] extends [never] ? never : C }[ErrorCode];

/** An error of a drop: its message starts with the drop's name, its details are the code's (the drop's name first). */
export function dropError<C extends DropErrorCode>(code: C, details: ErrorDetailsByCode[C] & AtDrop, message: string, cause?: unknown): WisbridgeError<C> {
  return new WisbridgeError(code, `drop ${details.drop}: ${message}`, { cause, details });
}
