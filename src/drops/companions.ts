import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { newHash, SIDECAR_SUFFIXES, sidecarText, type ChecksumAlgorithm } from './checksum.js';
import type { Drop, DropEntry, FolderRole, MoveOptions, OpenedFile, WriteOptions, WriteResult, WriteSource } from './drop.js';
import type { PgpOptions } from './options.js';
import { encryptStream, loadPgpKeys, type PgpKeys } from './pgp.js';
import { toReadable } from './streams.js';

export interface OutboxOptions {
  checksum?: ChecksumAlgorithm;
  /** Done marker suffix, e.g. `.ok`. */
  marker?: string;
  gzip?: boolean;
  /** Encrypt (and sign) to the partner's key when `encryptOutbound` is set. */
  pgp?: PgpOptions;
}

/**
 * A drop whose outbox files are transformed and/or get companions. Transformed: gzipped (`NAME.gz`) and/or encrypted
 * to the partner (`NAME.pgp`, after gzip); such a file is still found, read, listed and removed under its plain
 * name, so the bridge's own bookkeeping (an export found after a crash, a rewritten result file, retention) is
 * unchanged. Companions: a checksum file (`NAME.sha256` / `NAME.md5`, of the bytes stored) and a done marker
 * (`NAME.ok`), for partners that read only what is marked complete. The order makes them trustworthy: on a rewrite
 * the marker and checksum file go first, then the file is replaced atomically, then the checksum file (its digest
 * computed from the bytes as they were written) and last the marker. Other folders (error/ reasons, archive) are
 * written as they are.
 */
export class CompanionDrop implements Drop {
  readonly watchFolder?: Drop['watchFolder'];
  private readonly sidecarSuffix?: string;
  /** What the stored name adds to the plain one. */
  private readonly stored: string;
  private keys?: Promise<PgpKeys>;

  constructor(private readonly inner: Drop, private readonly options: OutboxOptions) {
    this.watchFolder = inner.watchFolder?.bind(inner);
    this.sidecarSuffix = options.checksum && SIDECAR_SUFFIXES.find(([, a]) => a === options.checksum)![0];
    this.stored = (options.gzip ? '.gz' : '') + (options.pgp?.encryptOutbound ? '.pgp' : '');
  }

  get name(): string {
    return this.inner.name;
  }

  get type(): Drop['type'] {
    return this.inner.type;
  }

  async writeAtomic(folder: FolderRole, name: string, source: WriteSource, options: WriteOptions = {}): Promise<WriteResult> {
    if (folder !== 'outbox') return this.inner.writeAtomic(folder, name, source, options);
    const stored = name + this.stored;
    const { marker, checksum } = this.options;
    if (options.overwrite) {
      if (marker) await this.inner.remove(folder, stored + marker);
      if (this.sidecarSuffix) await this.inner.remove(folder, stored + this.sidecarSuffix);
    }
    let bytes: WriteSource = this.options.gzip ? gzipped(source) : source;
    if (this.options.pgp?.encryptOutbound) bytes = await encryptStream(toReadable(bytes), await this.pgpKeys());
    const hash = checksum ? newHash(checksum) : undefined;
    const result = await this.inner.writeAtomic(folder, stored, hash ? hashing(toReadable(bytes), hash) : bytes, options);
    if (hash) await this.inner.writeAtomic(folder, stored + this.sidecarSuffix!, sidecarText(hash.digest('hex'), stored), { overwrite: true });
    if (marker) await this.inner.writeAtomic(folder, stored + marker, '', { overwrite: true });
    return result;
  }

  /**
   * After a crash between a file's rename and its companions (an export found in the outbox on restart): writes
   * the missing checksum file (from the stored bytes) and marker.
   */
  async completeCompanions(folder: FolderRole, name: string): Promise<void> {
    if (folder !== 'outbox') return;
    const stored = name + this.stored;
    const { marker, checksum } = this.options;
    if (checksum && !(await this.inner.stat(folder, stored + this.sidecarSuffix!))) {
      const hash = newHash(checksum);
      for await (const chunk of await this.inner.openRead(folder, stored)) hash.update(chunk as Buffer);
      await this.inner.writeAtomic(folder, stored + this.sidecarSuffix!, sidecarText(hash.digest('hex'), stored), { overwrite: true });
    }
    if (marker && !(await this.inner.stat(folder, stored + marker))) await this.inner.writeAtomic(folder, stored + marker, '', { overwrite: true });
  }

  private pgpKeys(): Promise<PgpKeys> {
    this.keys ??= loadPgpKeys(this.options.pgp!, this.inner.name);
    return this.keys;
  }

  private transformed(folder: FolderRole): boolean {
    return folder === 'outbox' && this.stored !== '';
  }

  async list(folder: FolderRole, filter?: (name: string) => boolean): Promise<DropEntry[]> {
    const entries = await this.inner.list(folder);
    const suffix = this.stored;
    const plain = this.transformed(folder) ? entries.map((e) => (e.name.endsWith(suffix) ? { ...e, name: e.name.slice(0, -suffix.length) } : e)) : entries;
    return filter ? plain.filter((e) => filter(e.name)) : plain;
  }

  async stat(folder: FolderRole, name: string): Promise<DropEntry | undefined> {
    const found = this.transformed(folder) ? await this.inner.stat(folder, name + this.stored) : undefined;
    return found ? { ...found, name } : this.inner.stat(folder, name);
  }

  openFile(folder: FolderRole, name: string): Promise<OpenedFile> {
    return this.inner.openFile(folder, name);
  }

  /** A gzipped outbox file is read gunzipped; an encrypted one as it is stored (only the partner can read it). */
  async openRead(folder: FolderRole, name: string): Promise<Readable> {
    if (this.transformed(folder) && (await this.inner.stat(folder, name + this.stored))) {
      const stream = await this.inner.openRead(folder, name + this.stored);
      return this.options.gzip && !this.options.pgp?.encryptOutbound ? stream.pipe(createGunzip()) : stream;
    }
    return this.inner.openRead(folder, name);
  }

  move(fromFolder: FolderRole, name: string, toFolder: FolderRole, options?: MoveOptions): Promise<string> {
    return this.inner.move(fromFolder, name, toFolder, options);
  }

  async remove(folder: FolderRole, name: string): Promise<boolean> {
    if (this.transformed(folder) && (await this.inner.remove(folder, name + this.stored))) return true;
    return this.inner.remove(folder, name);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The source gzipped; a failing source fails the gzip stream too (pipeline destroys every stage with the error). */
function gzipped(source: WriteSource): Readable {
  const gzip = createGzip();
  pipeline(toReadable(source), gzip).catch(() => undefined);
  return gzip;
}

async function* hashing(source: Readable, hash: ReturnType<typeof newHash>): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    hash.update(bytes);
    yield bytes;
  }
}
