import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TextDecoder } from 'node:util';
import type { Drop } from '../drops/index.js';
import { dropError } from '../drops/index.js';

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
 * link) into a private copy while its sha256 is computed. Everything after the claim reads the copy, so the rows
 * applied are exactly the bytes whose checksum the journal holds, whatever happens to the inbox file meanwhile.
 */
export interface Snapshot extends Fingerprint {
  /** The inbox file's identity when it was opened (Drop.openFile): its move checks it. */
  identity: string;
  /** A new stream of the copy's bytes. */
  open(): Readable;
  /** Where the copy is. */
  path: string;
  /** Removes the copy (idempotent). */
  remove(): Promise<void>;
}

/**
 * Copies `inbox/NAME` into `dir` and fingerprints it on the way. DROP_CHANGED when the file grew or shrank while it
 * was read (still being written: it is read again once it is stable). The inbox stream is closed on every path.
 */
export async function takeSnapshot(drop: Drop, name: string, dir: string, checkUtf8: boolean): Promise<Snapshot> {
  const path = await privateFile(dir, 'snapshot');
  const opened = await drop.openFile('inbox', name);
  const fingerprinter = new Fingerprinter(checkUtf8);
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
    throw dropError('DROP_CHANGED', { drop: drop.name }, `inbox/${name} changed while it was read (${opened.size} bytes when opened, ${fp.size} read)`);
  }
  return { ...fp, identity: opened.identity, open: () => createReadStream(path), path, remove };
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
