import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { newHash, SIDECAR_SUFFIXES, sidecarText, type ChecksumAlgorithm } from './checksum.js';
import type { Drop, DropEntry, FolderRole, MoveOptions, OpenedFile, WriteOptions, WriteResult, WriteSource } from './drop.js';
import { toReadable } from './streams.js';

/**
 * A drop whose outbox files are gzipped (`outbound_gzip`: `NAME` is written as `NAME.gz`, and read, listed, found and
 * removed under its plain name, so the bridge's own bookkeeping is unchanged) and/or get companions: a checksum sidecar (`NAME.sha256` / `NAME.md5`) and/or a done marker
 * (`NAME.ok`), for partners that read only what is marked complete. The order is what makes them trustworthy:
 * on a rewrite the marker and sidecar go first, then the file is replaced atomically, then the sidecar (its digest
 * computed from the bytes as they were written) and last the marker. A reader that waits for the marker, or checks
 * the sidecar, never takes a half-replaced pair. Other folders (error/ reasons, archive) are written as they are.
 */
export class CompanionDrop implements Drop {
  readonly watchFolder?: Drop['watchFolder'];
  private readonly sidecarSuffix?: string;

  constructor(
    private readonly inner: Drop, private readonly checksum: ChecksumAlgorithm | undefined, private readonly marker: string | undefined, private readonly gzip = false,
  ) {
    this.watchFolder = inner.watchFolder?.bind(inner);
    this.sidecarSuffix = checksum && SIDECAR_SUFFIXES.find(([, a]) => a === checksum)![0];
  }

  get name(): string {
    return this.inner.name;
  }

  get type(): Drop['type'] {
    return this.inner.type;
  }

  async writeAtomic(folder: FolderRole, name: string, source: WriteSource, options: WriteOptions = {}): Promise<WriteResult> {
    if (folder !== 'outbox') return this.inner.writeAtomic(folder, name, source, options);
    if (this.gzip) name = `${name}.gz`;
    if (options.overwrite) {
      if (this.marker) await this.inner.remove(folder, name + this.marker);
      if (this.sidecarSuffix) await this.inner.remove(folder, name + this.sidecarSuffix);
    }
    const hash = this.checksum ? newHash(this.checksum) : undefined;
    const bytes = this.gzip ? gzipped(source) : source;
    const result = await this.inner.writeAtomic(folder, name, hash ? hashing(toReadable(bytes), hash) : bytes, options);
    if (hash) await this.inner.writeAtomic(folder, name + this.sidecarSuffix!, sidecarText(hash.digest('hex'), name), { overwrite: true });
    if (this.marker) await this.inner.writeAtomic(folder, name + this.marker, '', { overwrite: true });
    return result;
  }

  /**
   * After a crash between a file's rename and its companions (an export found in the outbox on restart): writes
   * the missing sidecar (from the file's bytes) and marker.
   */
  async completeCompanions(folder: FolderRole, name: string): Promise<void> {
    if (folder !== 'outbox') return;
    if (this.gzip) name = `${name}.gz`;
    if (this.checksum && !(await this.inner.stat(folder, name + this.sidecarSuffix!))) {
      const hash = newHash(this.checksum);
      for await (const chunk of await this.inner.openRead(folder, name)) hash.update(chunk as Buffer);
      await this.inner.writeAtomic(folder, name + this.sidecarSuffix!, sidecarText(hash.digest('hex'), name), { overwrite: true });
    }
    if (this.marker && !(await this.inner.stat(folder, name + this.marker))) await this.inner.writeAtomic(folder, name + this.marker, '', { overwrite: true });
  }

  async list(folder: FolderRole, filter?: (name: string) => boolean): Promise<DropEntry[]> {
    const entries = await this.inner.list(folder);
    const plain = folder === 'outbox' && this.gzip ? entries.map((e) => (e.name.endsWith('.gz') ? { ...e, name: e.name.slice(0, -3) } : e)) : entries;
    return filter ? plain.filter((e) => filter(e.name)) : plain;
  }

  async stat(folder: FolderRole, name: string): Promise<DropEntry | undefined> {
    const zipped = folder === 'outbox' && this.gzip ? await this.inner.stat(folder, `${name}.gz`) : undefined;
    return zipped ? { ...zipped, name } : this.inner.stat(folder, name);
  }

  openFile(folder: FolderRole, name: string): Promise<OpenedFile> {
    return this.inner.openFile(folder, name);
  }

  async openRead(folder: FolderRole, name: string): Promise<Readable> {
    if (folder === 'outbox' && this.gzip && (await this.inner.stat(folder, `${name}.gz`))) return (await this.inner.openRead(folder, `${name}.gz`)).pipe(createGunzip());
    return this.inner.openRead(folder, name);
  }

  move(fromFolder: FolderRole, name: string, toFolder: FolderRole, options?: MoveOptions): Promise<string> {
    return this.inner.move(fromFolder, name, toFolder, options);
  }

  async remove(folder: FolderRole, name: string): Promise<boolean> {
    if (folder === 'outbox' && this.gzip && (await this.inner.remove(folder, `${name}.gz`))) return true;
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
