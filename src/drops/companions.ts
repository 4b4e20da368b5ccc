import type { Readable } from 'node:stream';
import { newHash, SIDECAR_SUFFIXES, sidecarText, type ChecksumAlgorithm } from './checksum.js';
import type { Drop, DropEntry, FolderRole, MoveOptions, OpenedFile, WriteOptions, WriteResult, WriteSource } from './drop.js';
import { toReadable } from './streams.js';

/**
 * A drop whose outbox files get companions: a checksum sidecar (`NAME.sha256` / `NAME.md5`) and/or a done marker
 * (`NAME.ok`), for partners that read only what is marked complete. The order is what makes them trustworthy:
 * on a rewrite the marker and sidecar go first, then the file is replaced atomically, then the sidecar (its digest
 * computed from the bytes as they were written) and last the marker. A reader that waits for the marker, or checks
 * the sidecar, never takes a half-replaced pair. Other folders (error/ reasons, archive) are written as they are.
 */
export class CompanionDrop implements Drop {
  readonly watchFolder?: Drop['watchFolder'];
  private readonly sidecarSuffix?: string;

  constructor(private readonly inner: Drop, private readonly checksum: ChecksumAlgorithm | undefined, private readonly marker: string | undefined) {
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
    if (options.overwrite) {
      if (this.marker) await this.inner.remove(folder, name + this.marker);
      if (this.sidecarSuffix) await this.inner.remove(folder, name + this.sidecarSuffix);
    }
    const hash = this.checksum ? newHash(this.checksum) : undefined;
    const result = await this.inner.writeAtomic(folder, name, hash ? hashing(toReadable(source), hash) : source, options);
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
    if (this.checksum && !(await this.inner.stat(folder, name + this.sidecarSuffix!))) {
      const hash = newHash(this.checksum);
      for await (const chunk of await this.inner.openRead(folder, name)) hash.update(chunk as Buffer);
      await this.inner.writeAtomic(folder, name + this.sidecarSuffix!, sidecarText(hash.digest('hex'), name), { overwrite: true });
    }
    if (this.marker && !(await this.inner.stat(folder, name + this.marker))) await this.inner.writeAtomic(folder, name + this.marker, '', { overwrite: true });
  }

  list(folder: FolderRole, filter?: (name: string) => boolean): Promise<DropEntry[]> {
    return this.inner.list(folder, filter);
  }

  stat(folder: FolderRole, name: string): Promise<DropEntry | undefined> {
    return this.inner.stat(folder, name);
  }

  openFile(folder: FolderRole, name: string): Promise<OpenedFile> {
    return this.inner.openFile(folder, name);
  }

  openRead(folder: FolderRole, name: string): Promise<Readable> {
    return this.inner.openRead(folder, name);
  }

  move(fromFolder: FolderRole, name: string, toFolder: FolderRole, options?: MoveOptions): Promise<string> {
    return this.inner.move(fromFolder, name, toFolder, options);
  }

  remove(folder: FolderRole, name: string): Promise<boolean> {
    return this.inner.remove(folder, name);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

async function* hashing(source: Readable, hash: ReturnType<typeof newHash>): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    hash.update(bytes);
    yield bytes;
  }
}
