import { constants, promises as fs } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { watch as chokidarWatch } from 'chokidar';
import { isWisbridgeError } from '../errors.js';
import { failpoint } from '../failpoints.js';
import { silentLogger, type Logger } from '../log.js';
import {
  assertPlainName, collisionName, dropError, temporaryNameFor,
  type Drop, type DropEntry, type FolderRole, type MoveOptions, type OpenedFile, type WriteOptions, type WriteResult, type WriteSource,
} from './drop.js';
import type { LocalDropOptions } from './options.js';
import { ByteCounter, toReadable } from './streams.js';

const MAX_COLLISION_ATTEMPTS = 20;

/** A local drop's four folders as absolute paths: each option relative to `root` unless absolute. */
export function localFolders(options: Pick<LocalDropOptions, 'root' | 'inbox' | 'outbox' | 'archive' | 'error'>): Record<FolderRole, string> {
  const root = resolve(options.root);
  const at = (p: string) => (isAbsolute(p) ? p : join(root, p));
  return { inbox: at(options.inbox), outbox: at(options.outbox), archive: at(options.archive), error: at(options.error) };
}

/** A drop on a local or mounted folder. Writes: temp file + fsync + link/rename; moves never overwrite. */
export class LocalDrop implements Drop {
  readonly name: string;
  readonly type = 'local' as const;
  private readonly folders: Record<FolderRole, string>;
  /**
   * Folders this drop has made sure of: a write or a move into one skips its `mkdir -p`, a share of a small file's
   * file operations (docs/performance.md, "Settings chosen by measurement"). One removed meanwhile is made again when
   * an operation in it finds it missing (inFolder).
   */
  private readonly present = new Set<string>();

  constructor(private readonly options: LocalDropOptions, private readonly logger: Logger = silentLogger) {
    this.name = options.name ?? 'local';
    this.folders = localFolders(options);
  }

  /** Absolute path of a folder role (for diagnostics and tests). */
  folderPath(folder: FolderRole): string {
    return this.folders[folder];
  }

  async list(folder: FolderRole, filter?: (name: string) => boolean): Promise<DropEntry[]> {
    const dir = this.folders[folder];
    let names: string[];
    try {
      const dirents = await fs.readdir(dir, { withFileTypes: true });
      names = dirents.filter((d) => d.isFile()).map((d) => d.name);
    } catch (error) {
      throw this.fail(error, `cannot list ${folder} folder ${dir}`);
    }
    const entries: DropEntry[] = [];
    for (const name of names) {
      if (filter && !filter(name)) continue;
      const entry = await this.stat(folder, name);
      if (entry) entries.push(entry);
    }
    return entries.sort((a, b) => a.name.localeCompare(b.name));
  }

  async stat(folder: FolderRole, name: string): Promise<DropEntry | undefined> {
    assertPlainName(this.name, name);
    try {
      const s = await fs.lstat(join(this.folders[folder], name));
      return s.isFile() ? { name, size: s.size, mtimeMs: s.mtimeMs } : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.fail(error, `cannot stat ${folder}/${name}`);
    }
  }

  async openFile(folder: FolderRole, name: string): Promise<OpenedFile> {
    assertPlainName(this.name, name);
    const path = join(this.folders[folder], name);
    let handle: fs.FileHandle;
    try {
      // O_NOFOLLOW: a symbolic link is never followed out of the folder; O_NONBLOCK: a FIFO never blocks the open.
      handle = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw notRegular(this.name, folder, name, 'a symbolic link');
      throw this.fail(error, `cannot open ${folder}/${name}`);
    }
    try {
      const s = await handle.stat();
      if (!s.isFile()) throw notRegular(this.name, folder, name, s.isDirectory() ? 'a folder' : 'a device, socket or pipe');
      return { stream: handle.createReadStream({ autoClose: true }), identity: localIdentity(s), size: s.size };
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw this.fail(error, `cannot open ${folder}/${name}`);
    }
  }

  async openRead(folder: FolderRole, name: string): Promise<Readable> {
    return (await this.openFile(folder, name)).stream;
  }

  async writeAtomic(folder: FolderRole, name: string, source: WriteSource, options: WriteOptions = {}): Promise<WriteResult> {
    assertPlainName(this.name, name);
    const dir = this.folders[folder];
    const tempPath = join(dir, temporaryNameFor(name));
    const finalPath = join(dir, name);
    let handle: fs.FileHandle | undefined;
    try {
      handle = await this.inFolder(dir, () => fs.open(tempPath, 'wx', 0o644));
      const sent = await writeAll(handle, source);
      if (this.options.fsync) await handle.sync();
      await handle.close();
      handle = undefined;
      const written = (await fs.stat(tempPath)).size;
      if (written !== sent) {
        throw dropError('DROP_IO', { drop: this.name }, `size check failed for ${folder}/${name}: wrote ${sent} bytes, found ${written}`);
      }
      await options.beforeRename?.(basename(tempPath));
      if (options.overwrite) await fs.rename(tempPath, finalPath);
      else await this.linkNoClobber(tempPath, finalPath);
      if (this.options.fsync) await this.syncFolder(dir);
      this.logger.debug({ drop: this.name, folder, file: name, size: written }, 'file written');
      return { name, size: written };
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await fs.rm(tempPath, { force: true }).catch(() => undefined);
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw dropError('DROP_EXISTS', { drop: this.name, folder, file: name }, `${folder}/${name} already exists and overwrite was not requested`, error);
      }
      throw this.fail(error, `cannot write ${folder}/${name}`);
    }
  }

  async move(fromFolder: FolderRole, name: string, toFolder: FolderRole, options: MoveOptions = {}): Promise<string> {
    const toName = options.toName ?? name;
    assertPlainName(this.name, name);
    assertPlainName(this.name, toName);
    const source = join(this.folders[fromFolder], name);
    const targetDir = this.folders[toFolder];
    if (options.expect !== undefined) await this.expectIdentity(source, options.expect, `${fromFolder}/${name}`);
    const now = options.stampAt ?? new Date();
    for (let attempt = 0; attempt <= MAX_COLLISION_ATTEMPTS; attempt += 1) {
      const candidate = attempt === 0 ? toName : collisionName(toName, now, attempt);
      const target = join(targetDir, candidate);
      try {
        await this.inFolder(targetDir, () => this.linkNoClobber(source, target, options.expect));
        this.logger.info({ file: name, from: fromFolder, to: toFolder, as: candidate }, 'file moved');
        return candidate;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw this.fail(error, `cannot move ${fromFolder}/${name} to ${toFolder}/${candidate}`);
      }
    }
    throw dropError('DROP_EXISTS', { drop: this.name }, `cannot find a free name for ${name} in ${toFolder}`);
  }

  async remove(folder: FolderRole, name: string): Promise<boolean> {
    assertPlainName(this.name, name);
    try {
      await fs.unlink(join(this.folders[folder], name));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw this.fail(error, `cannot remove ${folder}/${name}`);
    }
  }

  watchFolder(folder: FolderRole, onChange: () => void): () => Promise<void> {
    if (!this.options.watchEvents) return async () => undefined;
    const watcher = chokidarWatch(this.folders[folder], { depth: 0, ignoreInitial: true, persistent: true });
    watcher.on('all', () => onChange());
    watcher.on('error', (error) => this.logger.warn({ drop: this.name, folder, err: String(error) }, 'file watcher error; the rescan continues'));
    return () => watcher.close();
  }

  async close(): Promise<void> {
    // Nothing held open: watchers are closed by whoever started them.
  }

  /**
   * Moves without ever replacing: link() fails with EEXIST when the target exists, atomically. A target that is
   * the source itself (a crash came between link and unlink) finishes the move. With `expect`, a target that is
   * not the expected file (swapped in the instant between the check and the link) is unlinked again: DROP_CHANGED.
   * File systems without hard links (some network shares) get a check-then-rename, which has a small race.
   */
  private async linkNoClobber(from: string, to: string, expect?: string): Promise<void> {
    try {
      await fs.link(from, to);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && (await sameFile(from, to))) {
        await fs.unlink(from);
        return;
      }
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error;
      const exists = await fs.lstat(to).then(() => true, () => false);
      if (exists) throw Object.assign(new Error(`${to} exists`), { code: 'EEXIST' });
      await fs.rename(from, to);
      return;
    }
    if (expect !== undefined && localIdentity(await fs.lstat(to)) !== expect) {
      await fs.unlink(to);
      throw dropError('DROP_CHANGED', { drop: this.name }, `${from} was replaced while it was being moved; the replacement stays`);
    }
    failpoint('drop.after-link');
    await fs.unlink(from);
  }

  private async expectIdentity(path: string, expect: string, label: string): Promise<void> {
    let s;
    try {
      s = await fs.lstat(path);
    } catch (error) {
      throw this.fail(error, `cannot move ${label}`);
    }
    if (localIdentity(s) !== expect) {
      throw dropError('DROP_CHANGED', { drop: this.name }, `${label} was replaced or changed after it was read; it is left in place`);
    }
  }

  /**
   * Runs `op`, which creates an entry in `dir`, after making sure of the folder once; when it was made sure of
   * before and `op` finds nothing there (ENOENT: removed meanwhile), the folder is made again and `op` runs once more.
   * `op` failing with ENOENT for another reason (a move's source gone) fails the same way the second time.
   */
  private async inFolder<T>(dir: string, op: () => Promise<T>): Promise<T> {
    const known = this.present.has(dir);
    if (!known) await this.ensureFolder(dir);
    try {
      return await op();
    } catch (error) {
      if (!known || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.present.delete(dir);
      await this.ensureFolder(dir);
      return op();
    }
  }

  private async ensureFolder(dir: string): Promise<void> {
    try {
      await fs.mkdir(dir, { recursive: true });
    } catch (error) {
      throw this.fail(error, `cannot create folder ${dir}`);
    }
    this.present.add(dir);
  }

  private async syncFolder(dir: string): Promise<void> {
    const handle = await fs.open(dir, constants.O_RDONLY).catch(() => undefined);
    if (!handle) return;
    await handle.sync().catch(() => undefined);
    await handle.close().catch(() => undefined);
  }

  private fail(error: unknown, message: string) {
    if (isWisbridgeError(error)) return error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = (error as Error).message ?? String(error);
    if (code === 'EACCES' || code === 'EPERM') return dropError('DROP_PERMISSION', { drop: this.name }, `${message}: permission denied`, error);
    if (code === 'ENOENT') return dropError('DROP_NOT_FOUND', { drop: this.name }, `${message}: not found`, error);
    if (code === 'EEXIST') return dropError('DROP_EXISTS', { drop: this.name }, `${message}: already exists`, error);
    return dropError('DROP_IO', { drop: this.name }, `${message}: ${reason}`, error);
  }
}

/** Device, inode, size and modification time: another file, or the same one changed in place, differs. */
function localIdentity(s: { dev: number; ino: number; size: number; mtimeMs: number }): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
}

async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([fs.lstat(a).catch(() => undefined), fs.lstat(b).catch(() => undefined)]);
  return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino;
}

function notRegular(drop: string, folder: FolderRole, name: string, what: string) {
  return dropError('DROP_NOT_REGULAR', { drop, folder, file: name }, `${folder}/${name} is ${what}, not a regular file: it is not read`);
}

/**
 * Writes `source` to `handle`, returning the bytes written: bytes in hand in one write (a small result file, a reason
 * file: no stream to set up for them), a stream chunk by chunk.
 */
async function writeAll(handle: fs.FileHandle, source: WriteSource): Promise<number> {
  if (typeof source === 'string' || Buffer.isBuffer(source)) {
    const bytes = typeof source === 'string' ? Buffer.from(source, 'utf8') : source;
    for (let at = 0; at < bytes.length; ) at += (await handle.write(bytes, at)).bytesWritten;
    return bytes.length;
  }
  const counter = new ByteCounter();
  await pipeline(toReadable(source), counter, async (chunks: AsyncIterable<Buffer>) => {
    for await (const chunk of chunks) await handle.write(chunk);
  });
  return counter.bytes;
}
