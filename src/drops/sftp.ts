import { posix } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { SFTPWrapper, Stats } from 'ssh2';
import { isWisbridgeError, type WisbridgeError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import {
  assertPlainName, collisionName, dropError, temporaryNameFor,
  type Drop, type DropEntry, type FolderRole, type MoveOptions, type OpenedFile, type WriteOptions, type WriteResult, type WriteSource,
} from './drop.js';
import type { SftpDropOptions } from './options.js';
import { SftpConnection, isConnectionLost, withDeadline, type LiveConnection } from './sftp-connection.js';
import * as sftpRequest from './sftp-requests.js';
import { SftpReadStream, SftpWriteStream } from './sftp-streams.js';
import { ByteCounter, toReadable } from './streams.js';

const MAX_COLLISION_ATTEMPTS = 20;
const POSIX_RENAME = 'posix-rename@openssh.com';

type ErrorWithCode = Error & { code?: string | number };

/** A drop on an SFTP server: one SSH connection, its requests sent at once on the SFTP channel (sftp-connection.ts). */
export class SftpDrop implements Drop {
  readonly name: string;
  readonly type = 'sftp' as const;
  private readonly folders: Record<FolderRole, string>;
  private readonly connection: SftpConnection;
  /**
   * Folders this drop made sure of: not asked for again before each write and move (a round trip each). One removed
   * meanwhile is made again by the operation that finds it missing.
   */
  private readonly present = new Set<string>();

  constructor(private readonly options: SftpDropOptions, private readonly logger: Logger = silentLogger) {
    this.name = options.name ?? 'sftp';
    const at = (p: string) => (posix.isAbsolute(p) ? p : posix.join(options.root, p));
    this.folders = { inbox: at(options.inbox), outbox: at(options.outbox), archive: at(options.archive), error: at(options.error) };
    this.connection = new SftpConnection(options, this.name, logger);
  }

  /** Remote path of a folder role. */
  folderPath(folder: FolderRole): string {
    return this.folders[folder];
  }

  async list(folder: FolderRole, filter?: (name: string) => boolean): Promise<DropEntry[]> {
    const dir = this.folders[folder];
    const items = await this.connection.run(`list ${folder}`, (c) => sftpRequest.readdir(c, dir), true).catch((e) => { throw this.fail(e, `cannot list ${folder} folder ${dir}`); });
    return items
      .filter((item) => item.attrs.isFile() && (!filter || filter(item.filename)))
      .map((item) => entryOf(item.filename, item.attrs))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async stat(folder: FolderRole, name: string): Promise<DropEntry | undefined> {
    assertPlainName(this.name, name);
    const path = posix.join(this.folders[folder], name);
    return this.connection.run(`stat ${folder}/${name}`, (c) => this.statPath(c, path, name), true)
      .catch((e) => { throw this.fail(e, `cannot stat ${folder}/${name}`); });
  }

  /**
   * SFTP v3 has no O_NOFOLLOW: the name is lstat'ed (a regular file, not a link), opened, and the open handle
   * fstat'ed; a handle whose size, modification time, owner, group or mode differs from the name's was swapped in between
   * (DROP_CHANGED). The read goes through that handle.
   */
  async openFile(folder: FolderRole, name: string): Promise<OpenedFile> {
    assertPlainName(this.name, name);
    const path = posix.join(this.folders[folder], name);
    const release = this.connection.hold();
    try {
      const opened = await this.connection.run(`open ${folder}/${name}`, async (c, live) => {
        const before = await sftpRequest.lstat(c, path);
        if (!before) throw Object.assign(new Error(`no such file ${path}`), { code: 2 });
        if (!before.isFile()) throw notRegular(this.name, folder, name, before.isSymbolicLink() ? 'a symbolic link' : before.isDirectory() ? 'a folder' : 'not a plain file');
        const handle = await sftpRequest.open(c, path, 'r');
        const after = await sftpRequest.fstat(c, handle).catch((error: unknown) => { c.close(handle, () => undefined); throw error; });
        if (!after.isFile() || sftpIdentity(after) !== sftpIdentity(before)) {
          c.close(handle, () => undefined);
          throw dropError('DROP_CHANGED', { drop: this.name, folder, file: name }, `${folder}/${name} was replaced while it was being opened`);
        }
        const stream = live.track(new SftpReadStream(c, handle, after.size));
        return { stream, identity: sftpIdentity(after), size: after.size };
      }, true);
      const out = new PassThrough();
      opened.stream.on('error', (error) => out.destroy(this.fail(error, `cannot read ${folder}/${name}`)));
      out.on('close', () => { release(); if (!opened.stream.destroyed) opened.stream.destroy(); });
      opened.stream.pipe(out);
      return { ...opened, stream: out };
    } catch (error) {
      release();
      throw this.fail(error, `cannot open ${folder}/${name}`);
    }
  }

  async openRead(folder: FolderRole, name: string): Promise<Readable> {
    return (await this.openFile(folder, name)).stream;
  }

  async writeAtomic(folder: FolderRole, name: string, source: WriteSource, options: WriteOptions = {}): Promise<WriteResult> {
    assertPlainName(this.name, name);
    const dir = this.folders[folder];
    const temp = posix.join(dir, temporaryNameFor(name));
    const target = posix.join(dir, name);
    const release = this.connection.hold();
    let uploaded = false;
    try {
      if (!this.present.has(dir)) await this.connection.run(`mkdir ${folder}`, (c) => this.ensureFolder(c, dir), true);
      if (!options.overwrite && (await this.stat(folder, name))) throw this.exists(folder, name);
      const sink = await this.connection.run(`create ${folder}/${name}`, (c, live) => this.create(c, live, dir, temp));
      uploaded = true;
      const counter = new ByteCounter();
      const closed = new Promise<void>((resolve) => sink.once('close', () => resolve()));
      await pipeline(toReadable(source), counter, sink);
      await withDeadline(closed, this.options.operationTimeoutMs, () => dropError('TIMEOUT', { drop: this.name }, `closing ${folder}/${name} timed out`));
      const size = sink.remoteSize;
      if (size !== counter.bytes) {
        throw dropError('DROP_IO', { drop: this.name }, `size check failed for ${folder}/${name}: sent ${counter.bytes} bytes, the server has ${size}`);
      }
      await options.beforeRename?.(posix.basename(temp));
      await this.connection.run(`rename ${folder}/${name}`, (c, live) => this.commit(c, live.extensions, temp, target, folder, name, options.overwrite === true));
      uploaded = false;
      this.logger.debug({ drop: this.name, folder, file: name, size }, 'file written');
      return { name, size };
    } catch (error) {
      if (uploaded) await this.connection.run(`cleanup ${folder}/${name}`, (c) => sftpRequest.unlink(c, temp)).catch(() => undefined);
      throw this.fail(error, `cannot write ${folder}/${name}`);
    } finally {
      release();
    }
  }

  async move(fromFolder: FolderRole, name: string, toFolder: FolderRole, options: MoveOptions = {}): Promise<string> {
    const toName = options.toName ?? name;
    assertPlainName(this.name, name);
    assertPlainName(this.name, toName);
    const source = posix.join(this.folders[fromFolder], name);
    const targetDir = this.folders[toFolder];
    const finalName = await this.connection.run(`move ${fromFolder}/${name}`, async (c) => {
      // the source's check and the first name's are asked together: on a distant server each is a round trip
      const [now, taken] = await Promise.all([
        options.expect === undefined ? undefined : sftpRequest.lstat(c, source), sftpRequest.lstat(c, posix.join(targetDir, toName)), this.ensureFolder(c, targetDir),
      ]);
      if (options.expect !== undefined) {
        if (!now) throw Object.assign(new Error(`no such file ${source}`), { code: 2 });
        if (!now.isFile() || sftpIdentity(now) !== options.expect) {
          throw dropError('DROP_CHANGED', { drop: this.name }, `${fromFolder}/${name} was replaced or changed after it was read; it is left in place`);
        }
      }
      const stamp = options.stampAt ?? new Date();
      for (let attempt = 0; attempt <= MAX_COLLISION_ATTEMPTS; attempt += 1) {
        const candidate = attempt === 0 ? toName : collisionName(toName, stamp, attempt);
        const target = posix.join(targetDir, candidate);
        if (attempt === 0 ? taken : await sftpRequest.lstat(c, target)) continue;
        try {
          await this.renameInto(c, targetDir, source, target);
          return candidate;
        } catch (error) {
          if ((error as ErrorWithCode).code === 4 && (await sftpRequest.lstat(c, target))) continue;
          throw error;
        }
      }
      throw dropError('DROP_EXISTS', { drop: this.name }, `cannot find a free name for ${name} in ${toFolder}`);
    }).catch((e) => { throw this.fail(e, `cannot move ${fromFolder}/${name} to ${toFolder}`); });
    this.logger.info({ drop: this.name, file: name, from: fromFolder, to: toFolder, as: finalName }, 'file moved');
    return finalName;
  }

  async remove(folder: FolderRole, name: string): Promise<boolean> {
    assertPlainName(this.name, name);
    const path = posix.join(this.folders[folder], name);
    return this.connection.run(`remove ${folder}/${name}`, (c) => sftpRequest.unlink(c, path))
      .catch((e) => { throw this.fail(e, `cannot remove ${folder}/${name}`); });
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /**
   * Makes the uploaded temp file visible under its final name. Overwrite: posix-rename (atomic replace) when
   * advertised, otherwise remove + rename (not atomic: the name is briefly absent, never half-written).
   * No overwrite: plain rename, which fails when the target exists.
   */
  private async commit(c: SFTPWrapper, extensions: Record<string, string>, temp: string, target: string, folder: FolderRole, name: string, overwrite: boolean): Promise<void> {
    const log = (method: string) => this.logger.debug({ drop: this.name, folder, file: name, method }, 'renaming the uploaded file');
    if (overwrite) {
      if (this.options.posixRename === 'auto' && extensions[POSIX_RENAME] !== undefined) {
        log('posix-rename');
        await sftpRequest.posixRename(c, temp, target);
        return;
      }
      log('remove+rename');
      await sftpRequest.unlink(c, target);
      await sftpRequest.rename(c, temp, target);
      return;
    }
    log('rename');
    try {
      await sftpRequest.rename(c, temp, target);
    } catch (error) {
      if ((await sftpRequest.lstat(c, target)) !== undefined) throw this.exists(folder, name);
      throw error;
    }
  }

  /** The temp file of a write, opened: nothing of the source is read before, so a missing folder can be made again. */
  private async create(c: SFTPWrapper, live: LiveConnection, dir: string, temp: string): Promise<SftpWriteStream> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const handle = await sftpRequest.open(c, temp, 'wx');
        return live.track(new SftpWriteStream(c, handle, temp, 0o644));
      } catch (error) {
        if (attempt > 0 || !(await this.refoundFolder(c, dir, error))) throw error;
      }
    }
  }

  /** SFTP v3 rename (OpenSSH: link + unlink): fails when the target exists, never overwrites. */
  private async renameInto(c: SFTPWrapper, dir: string, source: string, target: string): Promise<void> {
    try {
      await sftpRequest.rename(c, source, target);
    } catch (error) {
      if (!(await this.refoundFolder(c, dir, error))) throw error;
      await sftpRequest.rename(c, source, target);
    }
  }

  /**
   * After an operation in a folder this drop had made sure of failed with "no such file": whether the folder was gone
   * and is there again (then the operation is worth one more try).
   */
  private async refoundFolder(c: SFTPWrapper, dir: string, error: unknown): Promise<boolean> {
    if ((error as ErrorWithCode).code !== 2 || !this.present.delete(dir)) return false;
    if ((await sftpRequest.kindOf(c, dir)) === 'folder') {
      this.present.add(dir);
      return false;
    }
    await this.ensureFolder(c, dir);
    return true;
  }

  private async statPath(c: SFTPWrapper, path: string, name: string): Promise<DropEntry | undefined> {
    const s = await sftpRequest.lstat(c, path);
    return s?.isFile() ? entryOf(name, s) : undefined;
  }

  private async ensureFolder(c: SFTPWrapper, dir: string): Promise<void> {
    if (this.present.has(dir)) return;
    const kind = await sftpRequest.kindOf(c, dir);
    if (kind === 'other') throw dropError('DROP_IO', { drop: this.name }, `${dir} exists but is not a folder`);
    if (kind === undefined) await sftpRequest.mkdirs(c, dir);
    this.present.add(dir);
  }

  private exists(folder: FolderRole, name: string): WisbridgeError {
    return dropError('DROP_EXISTS', { drop: this.name, folder, file: name }, `${folder}/${name} already exists and overwrite was not requested`);
  }

  private fail(error: unknown, message: string): WisbridgeError {
    if (isWisbridgeError(error)) return error;
    const e = error as ErrorWithCode;
    const reason = String(e?.message ?? error).replace(/^[\w>-]+: /, '');
    if (e?.code === 3 || e?.code === 'EACCES' || /permission denied/i.test(reason)) {
      return dropError('DROP_PERMISSION', { drop: this.name }, `${message}: permission denied`, error);
    }
    if (e?.code === 2 || e?.code === 'ENOENT') return dropError('DROP_NOT_FOUND', { drop: this.name }, `${message}: not found`, error);
    if (isConnectionLost(error)) return dropError('DROP_CONNECT', { drop: this.name, connectionLost: true }, `${message}: connection lost (${reason})`, error);
    return dropError('DROP_IO', { drop: this.name }, `${message}: ${reason}`, error);
  }
}

/** A listing's entry from the attributes SFTP gives (modification time in whole seconds). */
function entryOf(name: string, s: Stats): DropEntry {
  return { name, size: s.size, mtimeMs: s.mtime * 1000 };
}

/** What SFTP v3 tells of a file's identity (it has no inode): size, modification time (whole seconds), owner, group, mode. */
function sftpIdentity(s: Stats): string {
  return `${s.size}:${s.mtime}:${s.uid}:${s.gid}:${s.mode}`;
}

function notRegular(drop: string, folder: FolderRole, name: string, what: string): WisbridgeError {
  return dropError('DROP_NOT_REGULAR', { drop, folder, file: name }, `${folder}/${name} is ${what}, not a regular file: it is not read`);
}
