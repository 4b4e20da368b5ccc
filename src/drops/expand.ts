import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createGunzip, createInflateRaw } from 'node:zlib';
import { WisbridgeError } from '../errors.js';
import { workFolderError } from './work-folder.js';

// Expansion of compressed inbox files (`.gz`, `.zip`) into private files, bounded in size and ratio so that a
// zip bomb is refused with a reason instead of filling the disk or the heap. Everything streams: memory stays at
// zlib's window and a few chunks, whatever the sizes. The ZIP central directory is read by hand (no dependency):
// only what the bridge needs — stored and deflated entries, no encryption, no ZIP64, no spanning.

export interface ExpansionLimits {
  /** Largest expanded size of a `.gz` file, or of all the entries of a `.zip` together. */
  maxBytes: number;
  /** Largest expanded / compressed ratio, checked once a member passed 1 MiB (small files compress oddly). */
  maxRatio: number;
  /** Most entries a `.zip` may hold. */
  maxEntries: number;
}

const RATIO_FLOOR = 1024 * 1024;

const refuse = (message: string) => new WisbridgeError('FILE_ARCHIVE', message);

export type ContainerKind = 'gz' | 'zip';

export function containerKind(name: string): ContainerKind | undefined {
  const lower = name.toLowerCase();
  return lower.endsWith('.gz') && lower.length > 3 ? 'gz' : lower.endsWith('.zip') && lower.length > 4 ? 'zip' : undefined;
}

/** Counts what flows through and stops at `max` bytes, or when the output outgrows `ratio` times `input()`. */
class Limit extends Transform {
  bytes = 0;
  constructor(private readonly what: string, private readonly max: number, private readonly ratio: number, private readonly input: () => number,
    private readonly maxWhy = "the drop's max_expanded_bytes") {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.max) return cb(refuse(`${this.what} expands to more than ${this.max} bytes (${this.maxWhy}): refused as a possible zip bomb`));
    const input = Math.max(1, this.input());
    if (this.bytes > RATIO_FLOOR && this.bytes / input > this.ratio) {
      return cb(refuse(`${this.what} expands more than ${this.ratio} times (the drop's max_expansion_ratio): refused as a possible zip bomb`));
    }
    cb(null, chunk);
  }
}

/** A pass-through that counts the compressed bytes read. */
class Counter extends Transform {
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    cb(null, chunk);
  }
}

/** FILE_ARCHIVE for what zlib refused, WORK_FOLDER when the member's folder could not take it; anything else as it is. */
function expansionProblem(what: string, target: string, error: unknown): unknown {
  const code = (error as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('Z_')) return refuse(`${what} is not a valid compressed file (${(error as Error).message})`);
  return workFolderError(error, dirname(target), what);
}

/** Gunzips `source` (a local file) into `target`; FILE_ARCHIVE when it is damaged or breaks a limit. Returns the bytes written. */
export async function gunzipTo(source: string, target: string, what: string, limits: ExpansionLimits): Promise<number> {
  const counter = new Counter();
  const limit = new Limit(what, limits.maxBytes, limits.maxRatio, () => counter.bytes);
  try {
    await pipeline(createReadStream(source), counter, createGunzip(), limit, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    throw expansionProblem(what, target, error);
  }
  return limit.bytes;
}

export interface ZipEntry {
  /** The entry's file name (its path inside the archive without folders). */
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  /** Where its compressed data starts in the archive. */
  dataStart: number;
}

/** The file entries of a `.zip` (a local file), validated against the limits; FILE_ARCHIVE naming what is wrong. */
export async function readZipDirectory(path: string, what: string, limits: ExpansionLimits): Promise<ZipEntry[]> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = Buffer.alloc(tailLength);
    await file.read(tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) if (tail.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
    if (eocd < 0) throw refuse(`${what} is not a zip archive (no end of central directory)`);
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (tail.readUInt16LE(eocd + 4) !== 0 || tail.readUInt16LE(eocd + 6) !== 0) throw refuse(`${what} is a multi-part (spanned) zip archive: not supported`);
    if (count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) throw refuse(`${what} is a ZIP64 archive: not supported (split it, or send .gz files)`);
    if (count > limits.maxEntries) throw refuse(`${what} holds ${count} entries, more than ${limits.maxEntries} (the drop's max_zip_entries)`);
    if (cdOffset + cdSize > size - tailLength + eocd) throw refuse(`${what} is damaged (its central directory lies outside the file)`);
    const cd = Buffer.alloc(cdSize);
    await file.read(cd, 0, cdSize, cdOffset);
    const entries: ZipEntry[] = [];
    let total = 0;
    for (let at = 0, i = 0; i < count; i++) {
      if (at + 46 > cd.length || cd.readUInt32LE(at) !== 0x02014b50) throw refuse(`${what} is damaged (central directory entry ${i + 1})`);
      const flags = cd.readUInt16LE(at + 8);
      const method = cd.readUInt16LE(at + 10);
      const crc = cd.readUInt32LE(at + 16);
      const compressedSize = cd.readUInt32LE(at + 20);
      const entrySize = cd.readUInt32LE(at + 24);
      const nameLength = cd.readUInt16LE(at + 28);
      const next = at + 46 + nameLength + cd.readUInt16LE(at + 30) + cd.readUInt16LE(at + 32);
      const localOffset = cd.readUInt32LE(at + 42);
      const path = cd.subarray(at + 46, at + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
      at = next;
      const base = path.slice(path.lastIndexOf('/') + 1);
      // Folders, macOS resource forks and hidden files carry no data for the WMS.
      if (path.endsWith('/') || path.startsWith('__MACOSX/') || base.startsWith('.') || base === '') continue;
      if (flags & 0x1) throw refuse(`${what}: entry ${path} is encrypted: not supported`);
      if (method !== 0 && method !== 8) throw refuse(`${what}: entry ${path} uses compression method ${method}: only stored and deflated entries are supported`);
      if (compressedSize === 0xffffffff || entrySize === 0xffffffff || localOffset === 0xffffffff) throw refuse(`${what}: entry ${path} needs ZIP64: not supported`);
      total += entrySize;
      if (total > limits.maxBytes) throw refuse(`${what} expands to more than ${limits.maxBytes} bytes (the drop's max_expanded_bytes): refused as a possible zip bomb`);
      if (entrySize > RATIO_FLOOR && entrySize / Math.max(1, compressedSize) > limits.maxRatio) {
        throw refuse(`${what}: entry ${path} expands ${Math.round(entrySize / Math.max(1, compressedSize))} times, more than ${limits.maxRatio} (the drop's max_expansion_ratio): refused as a possible zip bomb`);
      }
      const local = Buffer.alloc(30);
      await file.read(local, 0, 30, localOffset);
      if (local.readUInt32LE(0) !== 0x04034b50) throw refuse(`${what}: entry ${path} is damaged (no local header)`);
      const dataStart = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      if (dataStart + compressedSize > cdOffset) throw refuse(`${what}: entry ${path} is damaged (its data runs past the entries)`);
      if (entries.some((e) => e.name === base)) throw refuse(`${what} holds two entries named ${base} (in different folders): their result files would collide`);
      entries.push({ name: base, method, crc, compressedSize, size: entrySize, dataStart });
    }
    // Entries whose data overlap are the trick of the non-recursive zip bombs: each is then counted once, not once per reference.
    const byOffset = [...entries].sort((a, b) => a.dataStart - b.dataStart);
    for (let i = 1; i < byOffset.length; i++) {
      const prev = byOffset[i - 1];
      if (byOffset[i].dataStart < prev.dataStart + prev.compressedSize) throw refuse(`${what}: entries ${prev.name} and ${byOffset[i].name} share their data: refused as a possible zip bomb`);
    }
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } finally {
    await file.close();
  }
}

/** Writes one entry's bytes to `target`, never more than its declared size, and checks its CRC-32. */
export async function extractZipEntry(path: string, entry: ZipEntry, target: string, what: string, limits: ExpansionLimits): Promise<void> {
  const label = `${what}: entry ${entry.name}`;
  const raw: Readable = createReadStream(path, { start: entry.dataStart, end: entry.dataStart + entry.compressedSize - 1 });
  const counter = new Counter();
  const limit = new Limit(label, Math.min(entry.size, limits.maxBytes), limits.maxRatio, () => counter.bytes, 'the size its directory declares');
  let crc = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      crc = crc32(chunk, crc);
      cb(null, chunk);
    },
  });
  const stages: Transform[] = entry.compressedSize === 0 ? [] : entry.method === 8 ? [counter, createInflateRaw(), limit, check] : [counter, limit, check];
  try {
    await pipeline([raw, ...stages, createWriteStream(target, { flags: 'wx', mode: 0o600 })]);
  } catch (error) {
    throw expansionProblem(label, target, error);
  }
  if (limit.bytes !== entry.size && entry.compressedSize > 0) throw refuse(`${label} is damaged: ${limit.bytes} bytes instead of the ${entry.size} its directory declares`);
  if (entry.compressedSize > 0 && (crc >>> 0) !== entry.crc) throw refuse(`${label} is damaged (CRC-32 mismatch)`);
}
