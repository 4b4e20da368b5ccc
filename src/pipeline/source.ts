import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform, Writable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TextDecoder } from 'node:util';
import type { Drop } from '../drops/index.js';
import { dropError } from '../drops/index.js';
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
  if (opened.size < HELD_BELOW && budget.take(opened.size)) {
    const held = new Holder(opened.size);
    let given = false;
    const giveBack = () => {
      if (!given) budget.give(opened.size);
      given = true;
    };
    try {
      await pipeline(opened.stream, fingerprinter, held);
    } catch (error) {
      giveBack();
      opened.stream.destroy();
      throw error instanceof GrewError ? changed(error.read) : error;
    }
    const fp = fingerprinter.result();
    if (fp.size !== opened.size) {
      giveBack();
      throw changed(fp.size);
    }
    const bytes = held.bytes();
    let named: string | undefined;
    let written: Promise<string> | undefined;
    const file = () => (written ??= privateFile(dir, 'snapshot').then(async (path) => {
      named = path;
      await writeFile(path, bytes, { flag: 'wx', mode: 0o600 });
      return path;
    }));
    const remove = async () => {
      giveBack();
      await written?.catch(() => undefined);
      if (named !== undefined) await rm(named, { force: true });
    };
    return { ...fp, identity: opened.identity, open: () => Readable.from([bytes], { objectMode: false }), file, remove };
  }
  const path = await privateFile(dir, 'snapshot');
  try {
    await pipeline(opened.stream, fingerprinter, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    opened.stream.destroy();
    await rm(path, { force: true });
    throw error;
  }
  const fp = fingerprinter.result();
  const remove = () => rm(path, { force: true });
  if (fp.size !== opened.size) {
    await remove();
    throw changed(fp.size);
  }
  return { ...fp, identity: opened.identity, open: () => createReadStream(path), file: () => Promise.resolve(path), remove };
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
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.read);
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
  await mkdir(dir, { recursive: true, mode: 0o700 });
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
