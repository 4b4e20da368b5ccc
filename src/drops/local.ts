import { constants, promises as fs } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { watch as chokidarWatch } from 'chokidar';
import { isWisbridgeError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import {
  assertPlainName, collisionName, dropError, temporaryNameFor,
  type Drop, type DropEntry, type FolderRole, type WriteOptions, type WriteResult, type WriteSource,
} from './drop.js';
import type { LocalDropOptions } from './options.js';
import { ByteCounter, toReadable } from './streams.js';

const MAX_COLLISION_ATTEMPTS = 20;

/** A drop on a local or mounted folder. Writes: temp file + fsync + link/rename; moves never overwrite. */
export class LocalDrop implements Drop {
  readonly name: string;
  readonly type = 'local' as const;
  private readonly folders: Record<FolderRole, string>;

  constructor(private readonly options: LocalDropOptions, private readonly logger: Logger = silentLogger) {
    this.name = options.name ?? 'local';
    const root = resolve(options.root);
    const at = (p: string) => (isAbsolute(p) ? p : join(root, p));
    this.folders = { inbox: at(options.inbox), outbox: at(options.outbox), archive: at(options.archive), error: at(options.error) };
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
      const s = await fs.stat(join(this.folders[folder], name));
      return s.isFile() ? { name, size: s.size, mtimeMs: s.mtimeMs } : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.fail(error, `cannot stat ${folder}/${name}`);
    }
  }

  async openRead(folder: FolderRole, name: string): Promise<Readable> {
    assertPlainName(this.name, name);
    const path = join(this.folders[folder], name);
    try {
      const handle = await fs.open(path, constants.O_RDONLY);
      return handle.createReadStream({ autoClose: true });
    } catch (error) {
      throw this.fail(error, `cannot open ${folder}/${name}`);
    }
  }

  async writeAtomic(folder: FolderRole, name: string, source: WriteSource, options: WriteOptions = {}): Promise<WriteResult> {
    assertPlainName(this.name, name);
    const dir = this.folders[folder];
    await this.ensureFolder(dir);
    const tempPath = join(dir, temporaryNameFor(name));
    const finalPath = join(dir, name);
    const counter = new ByteCounter();
    let handle: fs.FileHandle | undefined;
    try {
      handle = await fs.open(tempPath, 'wx', 0o644);
      const file = handle;
      await pipeline(toReadable(source), counter, async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) await file.write(chunk);
      });
      if (this.options.fsync) await handle.sync();
      await handle.close();
      handle = undefined;
      const written = (await fs.stat(tempPath)).size;
      if (written !== counter.bytes) {
        throw dropError('DROP_IO', this.name, `size check failed for ${folder}/${name}: wrote ${counter.bytes} bytes, found ${written}`);
      }
      if (options.overwrite) await fs.rename(tempPath, finalPath);
      else await this.linkNoClobber(tempPath, finalPath);
      if (this.options.fsync) await this.syncFolder(dir);
      this.logger.debug({ drop: this.name, folder, file: name, size: written }, 'file written');
      return { name, size: written };
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await fs.rm(tempPath, { force: true }).catch(() => undefined);
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw dropError('DROP_EXISTS', this.name, `${folder}/${name} already exists and overwrite was not requested`, error, { folder, file: name });
      }
      throw this.fail(error, `cannot write ${folder}/${name}`);
    }
  }

  async move(fromFolder: FolderRole, name: string, toFolder: FolderRole, toName: string = name): Promise<string> {
    assertPlainName(this.name, name);
    assertPlainName(this.name, toName);
    const source = join(this.folders[fromFolder], name);
    const targetDir = this.folders[toFolder];
    await this.ensureFolder(targetDir);
    const now = new Date();
    for (let attempt = 0; attempt <= MAX_COLLISION_ATTEMPTS; attempt += 1) {
      const candidate = attempt === 0 ? toName : collisionName(toName, now, attempt);
      try {
        await this.linkNoClobber(source, join(targetDir, candidate));
        this.logger.info({ drop: this.name, file: name, from: fromFolder, to: toFolder, as: candidate }, 'file moved');
        return candidate;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw this.fail(error, `cannot move ${fromFolder}/${name} to ${toFolder}/${candidate}`);
      }
    }
    throw dropError('DROP_EXISTS', this.name, `cannot find a free name for ${name} in ${toFolder}`);
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
   * Moves without ever replacing: link() fails with EEXIST when the target exists, atomically. File systems
   * without hard links (some network shares) get a check-then-rename, which has a small race.
   */
  private async linkNoClobber(from: string, to: string): Promise<void> {
    try {
      await fs.link(from, to);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw error;
      const exists = await fs.stat(to).then(() => true, () => false);
      if (exists) throw Object.assign(new Error(`${to} exists`), { code: 'EEXIST' });
      await fs.rename(from, to);
      return;
    }
    await fs.unlink(from);
  }

  private async ensureFolder(dir: string): Promise<void> {
    try {
      await fs.mkdir(dir, { recursive: true });
    } catch (error) {
      throw this.fail(error, `cannot create folder ${dir}`);
    }
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
    if (code === 'EACCES' || code === 'EPERM') return dropError('DROP_PERMISSION', this.name, `${message}: permission denied`, error);
    if (code === 'ENOENT') return dropError('DROP_NOT_FOUND', this.name, `${message}: not found`, error);
    if (code === 'EEXIST') return dropError('DROP_EXISTS', this.name, `${message}: already exists`, error);
    return dropError('DROP_IO', this.name, `${message}: ${reason}`, error);
  }
}
