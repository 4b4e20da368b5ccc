import type { Readable } from 'node:stream';
import { WisbridgeError, type ErrorCode, type ErrorDetails } from '../errors.js';

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

export interface WriteOptions {
  /** Replace an existing file of that name (default false: DROP_EXISTS). */
  overwrite?: boolean;
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
  /** A stream of the file's bytes; DROP_NOT_FOUND when missing. */
  openRead(folder: FolderRole, name: string): Promise<Readable>;
  /** Writes under a temporary name in the same folder, checks the size, then renames (see docs/drops.md). */
  writeAtomic(folder: FolderRole, name: string, source: WriteSource, options?: WriteOptions): Promise<WriteResult>;
  /** Moves a file, creating the target folder; on a name collision a timestamp suffix is added. Returns the final name. */
  move(fromFolder: FolderRole, name: string, toFolder: FolderRole, toName?: string): Promise<string>;
  /** Removes a file; false when it was not there. */
  remove(folder: FolderRole, name: string): Promise<boolean>;
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

/** Rejects names that would leave the folder (`a/b`, `..`) or are empty. */
export function assertPlainName(drop: string, name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\\') || name.includes('\0')) {
    throw new WisbridgeError('DROP_IO', `drop ${drop}: "${name}" is not a plain file name`, { details: { drop, name } });
  }
}

/** The temporary name a write uses: a dot-file ending in .tmp, ignored by every watcher. */
export function temporaryNameFor(name: string): string {
  return `.${name}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`;
}

/**
 * The name used when `name` collides in the target folder: `orders.csv` → `orders.20261122T032001123Z.csv`,
 * then `orders.20261122T032001123Z-1.csv`, ... for further attempts.
 */
export function collisionName(name: string, now: Date, attempt: number): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  const suffix = attempt <= 1 ? stamp : `${stamp}-${attempt - 1}`;
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return `${name}.${suffix}`;
  return `${name.slice(0, dot)}.${suffix}${name.slice(dot)}`;
}

export function dropError(code: ErrorCode, drop: string, message: string, cause?: unknown, details?: ErrorDetails): WisbridgeError {
  return new WisbridgeError(code, `drop ${drop}: ${message}`, { cause, details: { drop, ...details } });
}
