import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform, Writable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TextDecoder } from 'node:util';
import { dropError, workFolderError, type Drop } from '../drops/index.js';
import { HELD_BYTES, type HeldBytes } from '../util/held-bytes.js';

export interface Fingerprint {
  checksum: string;
  size: number;
  /** Set when the bytes are not valid UTF-8 although the mapping expects UTF-8: the byte offset of the problem. */
  invalidUtf8At?: number;
  /** Only blanks (or nothing): there is no header row. */
  blank: boolean;
  /** Physical lines (line feeds, plus an unterminated last line): the total of the progress shown while mapping. */
  lines: number;
}

/**
 * The bytes of an inbox file as the bridge claimed them: read once from the inbox (a regular file, never through a
 * link) while its sha256 is computed, into memory (a file under HELD_BELOW) or a private copy. Everything after the
 * claim reads those bytes, so the rows applied are exactly the bytes whose checksum the journal holds, whatever
 * happens to the inbox file meanwhile.
 */
export interface Snapshot extends Fingerprint {
  /** The inbox file's identity when it was opened (Drop.openFile): its move checks it. */
  identity: string;
  /** A new stream of the bytes. */
  open(): Readable;
  /**
   * The bytes as a private file (a mapping thread, a decrypter, an unpacker reads one): written on the first call
   * when they are held in memory.
   */
  file(): Promise<string>;
  /** Removes the private copy, if any (idempotent). */
  remove(): Promise<void>;
}

/**
 * Files smaller than this are held in memory instead of copied to the private folder: a night of small files then
 * spares each file the copy's writes, its second read and its removal. Below the size from which any file maps on a
 * thread of its own (HOLDING_THREAD_FROM, stream.ts), so such a thread normally finds its copy on disk already; what
 * the process holds in all is bounded (HELD_BYTES).
 */
export const HELD_BELOW = 1 << 20;

/**
 * Reads `inbox/NAME` and fingerprints it on the way, into memory (within the process's `budget` of held bytes) or
 * `dir`. DROP_CHANGED when the file grew or shrank while it was read (still being written: it is read again once it
 * is stable). The inbox stream is closed on every path.
 */
export async function takeSnapshot(drop: Drop, name: string, dir: string, checkUtf8: boolean, budget: HeldBytes = HELD_BYTES): Promise<Snapshot> {
  const opened = await drop.openFile('inbox', name);
  const fingerprinter = new Fingerprinter(checkUtf8);
  const changed = (read: number) => dropError('DROP_CHANGED', { drop: drop.name }, `inbox/${name} changed while it was read (${opened.size} bytes when opened, ${read} read)`);
  const keeper = opened.size < HELD_BELOW && budget.take(opened.size)
    ? new HeldInMemory(opened.size, dir, budget)
    : new PrivateCopy(await privateFile(dir, 'snapshot'));
  try {
    await pipeline(opened.stream, fingerprinter, keeper.sink());
  } catch (error) {
    opened.stream.destroy();
    await keeper.remove();
    throw error instanceof GrewError ? changed(error.read) : workFolderError(error, dir, `the private copy of inbox/${name}`);
  }
  const fp = fingerprinter.result();
  if (fp.size !== opened.size) {
    await keeper.remove();
    throw changed(fp.size);
  }
  return { ...fp, identity: opened.identity, open: () => keeper.open(), file: () => keeper.file(), remove: () => keeper.remove() };
}

/** Where a snapshot's bytes are kept while its file is worked on. */
interface Keeper {
  /** Where the bytes go as they are read. */
  sink(): Writable;
  open(): Readable;
  file(): Promise<string>;
  /** Lets the bytes go (idempotent). */
  remove(): Promise<void>;
}

/** A copy in the private folder. */
class PrivateCopy implements Keeper {
  constructor(private readonly path: string) {}

  sink(): Writable {
    return createWriteStream(this.path, { flags: 'wx', mode: 0o600 });
  }

  open(): Readable {
    return createReadStream(this.path);
  }

  file(): Promise<string> {
    return Promise.resolve(this.path);
  }

  remove(): Promise<void> {
    return rm(this.path, { force: true });
  }
}

/** A small file's bytes in memory, within the process's budget; a private file only when one is asked for. */
class HeldInMemory implements Keeper {
  private readonly holder: Holder;
  private written: Promise<string> | undefined;
  private named: string | undefined;
  private given = false;

  constructor(private readonly size: number, private readonly dir: string, private readonly budget: HeldBytes) {
    this.holder = new Holder(size);
  }

  sink(): Writable {
    return this.holder;
  }

  open(): Readable {
    return Readable.from([this.holder.bytes()], { objectMode: false });
  }

  file(): Promise<string> {
    return (this.written ??= privateFile(this.dir, 'snapshot').then(async (path) => {
      this.named = path;
      try {
        await writeFile(path, this.holder.bytes(), { flag: 'wx', mode: 0o600 });
      } catch (error) {
        throw workFolderError(error, this.dir, 'a private copy');
      }
      return path;
    }));
  }

  async remove(): Promise<void> {
    if (!this.given) this.budget.give(this.size);
    this.given = true;
    await this.written?.catch(() => undefined);
    if (this.named !== undefined) await rm(this.named, { force: true });
  }
}

/** More bytes came than the file had when it was opened: it is still being written. */
class GrewError extends Error {
  constructor(readonly read: number) {
    super('the file grew while it was read');
  }
}

/** Collects a small file's bytes, never more than it had when opened. */
class Holder extends Writable {
  private readonly chunks: Buffer[] = [];
  private read = 0;
  constructor(private readonly size: number) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (error?: Error | null) => void): void {
    this.read += chunk.length;
    if (this.read > this.size) return cb(new GrewError(this.read));
    this.chunks.push(chunk);
    cb();
  }

  bytes(): Buffer {
    if (this.chunks.length > 1) this.chunks.splice(0, this.chunks.length, Buffer.concat(this.chunks, this.read));
    return this.chunks[0] ?? Buffer.alloc(0);
  }
}

/** sha256, size, a strict UTF-8 check (when the mapping reads UTF-8) and blankness of the bytes flowing through. */
class Fingerprinter extends Transform {
  private readonly hash = createHash('sha256');
  private readonly decoder: TextDecoder | undefined;
  private size = 0;
  private invalidUtf8At: number | undefined;
  private blank = true;
  private lines = 0;
  private last = 10;

  constructor(checkUtf8: boolean) {
    super();
    this.decoder = checkUtf8 ? new TextDecoder('utf-8', { fatal: true }) : undefined;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) this.lines++;
    if (chunk.length > 0) this.last = chunk[chunk.length - 1]!;
    if (this.blank && /\S/.test(chunk.toString('latin1'))) this.blank = false;
    if (this.decoder && this.invalidUtf8At === undefined) {
      try {
        this.decoder.decode(chunk, { stream: true });
      } catch {
        this.invalidUtf8At = this.size;
      }
    }
    this.size += chunk.length;
    cb(null, chunk);
  }

  result(): Fingerprint {
    if (this.decoder && this.invalidUtf8At === undefined) {
      try {
        this.decoder.decode();
      } catch {
        this.invalidUtf8At = this.size;
      }
    }
    const lines = this.lines + (this.last === 10 ? 0 : 1);
    return { checksum: this.hash.digest('hex'), size: this.size, invalidUtf8At: this.invalidUtf8At, blank: this.blank, lines };
  }
}

const prepared = new Set<string>();

/**
 * A new file name in the private folder `dir` (created 0700 when missing), owned by this process: what a crash
 * leaves there is removed by the next process that prepares the folder.
 */
export async function privateFile(dir: string, extension: string): Promise<string> {
  await prepareFolder(dir);
  return join(dir, `${process.pid}-${randomBytes(6).toString('hex')}.${extension}`);
}

/** Creates the private folder once per process and removes copies left by processes that are gone (a crash). */
async function prepareFolder(dir: string): Promise<void> {
  if (prepared.has(dir)) return;
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw workFolderError(error, dir, 'the folder itself');
  });
  for (const entry of await readdir(dir)) {
    const pid = Number(/^(\d+)-/.exec(entry)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) await rm(join(dir, entry), { force: true });
  }
  prepared.add(dir);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
