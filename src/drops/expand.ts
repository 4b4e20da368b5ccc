import { createReadStream, createWriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createGunzip, createInflateRaw } from 'node:zlib';
import { WisbridgeError } from '../errors.js';
import { workFolderError } from './work-folder.js';

// Expansion of compressed inbox files (`.gz`, `.zip`) into private files, bounded in size and ratio so that a
// zip bomb is refused with a reason instead of filling the disk or the heap. Everything streams: memory stays at
// zlib's window and a few chunks, whatever the sizes. The ZIP central directory is read by hand (no dependency):
// only what the bridge needs — stored and deflated entries, ZIP64 sizes and offsets, no encryption, no spanning.

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
  /** Where its local header starts in the archive. */
  headerStart: number;
  /** Where its compressed data starts in the archive. */
  dataStart: number;
}

/** The ZIP records the reader meets: their signature and fixed length. */
const RECORD = {
  end: { signature: 0x06054b50, length: 22 },
  zip64Locator: { signature: 0x07064b50, length: 20 },
  zip64End: { signature: 0x06064b50, length: 56 },
  central: { signature: 0x02014b50, length: 46 },
  local: { signature: 0x04034b50, length: 30 },
} as const;
/** The extra field that carries an entry's 64-bit sizes and offset when its 32-bit fields hold 0xffffffff. */
const ZIP64_EXTRA_ID = 0x0001;
const U16_MAX = 0xffff;
const U32_MAX = 0xffffffff;

/** A 64-bit field as a number; one past 2^53 cannot be a real size or offset. */
function readU64(buffer: Buffer, at: number, what: string): number {
  const value = buffer.readBigUInt64LE(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw refuse(`${what} is damaged (a 64-bit size or offset beyond any file)`);
  return Number(value);
}

interface CentralDirectory {
  count: number;
  offset: number;
  size: number;
  /** Where what follows the directory (the ZIP64 or classic end record) starts: the directory must end before it. */
  end: number;
}

/** Finds the end of central directory record, and the ZIP64 one when its locator precedes it. */
async function readCentralDirectoryEnd(file: FileHandle, fileSize: number, what: string): Promise<CentralDirectory> {
  const tailLength = Math.min(fileSize, RECORD.end.length + U16_MAX);
  const tail = Buffer.alloc(tailLength);
  await file.read(tail, 0, tailLength, fileSize - tailLength);
  let eocd = -1;
  for (let i = tailLength - RECORD.end.length; i >= 0; i--) if (tail.readUInt32LE(i) === RECORD.end.signature) { eocd = i; break; }
  if (eocd < 0) throw refuse(`${what} is not a zip archive (no end of central directory)`);
  if (tail.readUInt16LE(eocd + 4) !== 0 || tail.readUInt16LE(eocd + 6) !== 0) throw refuse(`${what} is a multi-part (spanned) zip archive: not supported`);
  const eocdStart = fileSize - tailLength + eocd;
  const locator = eocdStart - RECORD.zip64Locator.length;
  if (eocd >= RECORD.zip64Locator.length && tail.readUInt32LE(eocd - RECORD.zip64Locator.length) === RECORD.zip64Locator.signature) {
    const recordStart = readU64(tail, eocd - RECORD.zip64Locator.length + 8, what);
    if (tail.readUInt32LE(eocd - RECORD.zip64Locator.length + 16) > 1) throw refuse(`${what} is a multi-part (spanned) zip archive: not supported`);
    if (recordStart + RECORD.zip64End.length > locator) throw refuse(`${what} is damaged (its ZIP64 end of central directory lies outside the file)`);
    const record = Buffer.alloc(RECORD.zip64End.length);
    await file.read(record, 0, RECORD.zip64End.length, recordStart);
    if (record.readUInt32LE(0) !== RECORD.zip64End.signature) throw refuse(`${what} is damaged (no ZIP64 end of central directory where its locator points)`);
    if (record.readUInt32LE(16) !== 0 || record.readUInt32LE(20) !== 0) throw refuse(`${what} is a multi-part (spanned) zip archive: not supported`);
    return { count: readU64(record, 32, what), size: readU64(record, 40, what), offset: readU64(record, 48, what), end: recordStart };
  }
  const count = tail.readUInt16LE(eocd + 10);
  const size = tail.readUInt32LE(eocd + 12);
  const offset = tail.readUInt32LE(eocd + 16);
  if (count === U16_MAX || size === U32_MAX || offset === U32_MAX) throw refuse(`${what} is damaged (ZIP64 values without a ZIP64 end of central directory)`);
  return { count, size, offset, end: eocdStart };
}

/** The entry's 64-bit sizes and offset from its ZIP64 extra field, for those its 32-bit fields mark with 0xffffffff. */
function zip64Fields(extra: Buffer, fields: { size: number; compressedSize: number; localOffset: number }, label: string): void {
  for (let p = 0; p + 4 <= extra.length; p += 4 + extra.readUInt16LE(p + 2)) {
    if (extra.readUInt16LE(p) !== ZIP64_EXTRA_ID) continue;
    const body = extra.subarray(p + 4, p + 4 + extra.readUInt16LE(p + 2));
    let at = 0;
    for (const key of ['size', 'compressedSize', 'localOffset'] as const) {
      if (fields[key] !== U32_MAX) continue;
      if (at + 8 > body.length) throw refuse(`${label} is damaged (its ZIP64 extra field is too short)`);
      fields[key] = readU64(body, at, label);
      at += 8;
    }
    return;
  }
  if (fields.size === U32_MAX || fields.compressedSize === U32_MAX || fields.localOffset === U32_MAX) {
    throw refuse(`${label} is damaged (its sizes need a ZIP64 extra field it lacks)`);
  }
}

/** The file entries of a `.zip` (a local file), validated against the limits; FILE_ARCHIVE naming what is wrong. */
export async function readZipDirectory(path: string, what: string, limits: ExpansionLimits): Promise<ZipEntry[]> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const directory = await readCentralDirectoryEnd(file, size, what);
    if (directory.count > limits.maxEntries) throw refuse(`${what} holds ${directory.count} entries, more than ${limits.maxEntries} (the drop's max_zip_entries)`);
    if (directory.offset + directory.size > directory.end) throw refuse(`${what} is damaged (its central directory lies outside the file)`);
    if (directory.size > directory.count * (RECORD.central.length + 3 * U16_MAX)) throw refuse(`${what} is damaged (its central directory is larger than its entries)`);
    const cd = Buffer.alloc(directory.size);
    await file.read(cd, 0, directory.size, directory.offset);
    const entries: ZipEntry[] = [];
    let total = 0;
    for (let at = 0, i = 0; i < directory.count; i++) {
      if (at + RECORD.central.length > cd.length || cd.readUInt32LE(at) !== RECORD.central.signature) throw refuse(`${what} is damaged (central directory entry ${i + 1})`);
      const flags = cd.readUInt16LE(at + 8);
      const method = cd.readUInt16LE(at + 10);
      const nameLength = cd.readUInt16LE(at + 28);
      const extraStart = at + RECORD.central.length + nameLength;
      const fields = { compressedSize: cd.readUInt32LE(at + 20), size: cd.readUInt32LE(at + 24), localOffset: cd.readUInt32LE(at + 42) };
      const entry = { crc: cd.readUInt32LE(at + 16), extra: cd.subarray(extraStart, extraStart + cd.readUInt16LE(at + 30)) };
      const path = cd.subarray(at + RECORD.central.length, extraStart).toString(flags & 0x800 ? 'utf8' : 'latin1');
      at = extraStart + cd.readUInt16LE(at + 30) + cd.readUInt16LE(at + 32);
      const base = path.slice(path.lastIndexOf('/') + 1);
      // Folders, macOS resource forks and hidden files carry no data for the WMS.
      if (path.endsWith('/') || path.startsWith('__MACOSX/') || base.startsWith('.') || base === '') continue;
      const label = `${what}: entry ${path}`;
      if (flags & 0x1) throw refuse(`${label} is encrypted: not supported`);
      if (method !== 0 && method !== 8) throw refuse(`${label} uses compression method ${method}: only stored and deflated entries are supported`);
      zip64Fields(entry.extra, fields, label);
      total += fields.size;
      if (total > limits.maxBytes) throw refuse(`${what} expands to more than ${limits.maxBytes} bytes (the drop's max_expanded_bytes): refused as a possible zip bomb`);
      const ratio = fields.size / Math.max(1, fields.compressedSize);
      if (fields.size > RATIO_FLOOR && ratio > limits.maxRatio) {
        throw refuse(`${label} expands ${Math.round(ratio)} times, more than ${limits.maxRatio} (the drop's max_expansion_ratio): refused as a possible zip bomb`);
      }
      const local = Buffer.alloc(RECORD.local.length);
      await file.read(local, 0, RECORD.local.length, fields.localOffset);
      if (local.readUInt32LE(0) !== RECORD.local.signature) throw refuse(`${label} is damaged (no local header)`);
      const dataStart = fields.localOffset + RECORD.local.length + local.readUInt16LE(26) + local.readUInt16LE(28);
      if (dataStart + fields.compressedSize > directory.offset) throw refuse(`${label} is damaged (its data runs past the entries)`);
      if (entries.some((e) => e.name === base)) throw refuse(`${what} holds two entries named ${base} (in different folders): their result files would collide`);
      entries.push({ name: base, method, crc: entry.crc, compressedSize: fields.compressedSize, size: fields.size, headerStart: fields.localOffset, dataStart });
    }
    refuseOverlaps(entries, what);
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } finally {
    await file.close();
  }
}

/**
 * Entries whose local header or data overlap are the trick of the non-recursive zip bombs: each is then counted once,
 * not once per reference. Every entry spans at least its header, so two entries sharing one header overlap too. Sorted
 * by start, any overlap shows between neighbours.
 */
function refuseOverlaps(entries: readonly ZipEntry[], what: string): void {
  const byStart = [...entries].sort((a, b) => a.headerStart - b.headerStart);
  for (let i = 1; i < byStart.length; i++) {
    const prev = byStart[i - 1];
    if (byStart[i].headerStart < prev.dataStart + prev.compressedSize) {
      throw refuse(`${what}: entries ${prev.name} and ${byStart[i].name} share their data: refused as a possible zip bomb`);
    }
  }
}

/** Writes one entry's bytes to `target`, never more than its declared size, and checks its CRC-32. */
export async function extractZipEntry(path: string, entry: ZipEntry, target: string, what: string, limits: ExpansionLimits): Promise<void> {
  const label = `${what}: entry ${entry.name}`;
  // An empty entry has no byte to read (a read stream's range cannot be empty); deflated or stored, it expands to nothing.
  const raw: Readable = entry.compressedSize === 0 ? Readable.from([]) : createReadStream(path, { start: entry.dataStart, end: entry.dataStart + entry.compressedSize - 1 });
  const counter = new Counter();
  const limit = new Limit(label, Math.min(entry.size, limits.maxBytes), limits.maxRatio, () => counter.bytes, 'the size its directory declares');
  let crc = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      crc = crc32(chunk, crc);
      cb(null, chunk);
    },
  });
  const stages: Transform[] = entry.method === 8 && entry.compressedSize > 0 ? [counter, createInflateRaw(), limit, check] : [counter, limit, check];
  try {
    await pipeline([raw, ...stages, createWriteStream(target, { flags: 'wx', mode: 0o600 })]);
  } catch (error) {
    throw expansionProblem(label, target, error);
  }
  if (limit.bytes !== entry.size) throw refuse(`${label} is damaged: ${limit.bytes} bytes instead of the ${entry.size} its directory declares`);
  if ((crc >>> 0) !== entry.crc) throw refuse(`${label} is damaged (CRC-32 mismatch)`);
}
