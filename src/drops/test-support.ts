import { crc32, deflateRawSync } from 'node:zlib';

/**
 * One entry of a test archive; `declaredSize` lies about its size, `sameDataAs` points it at another entry's local
 * header, `inside` at a byte of another entry's data (where a test put a local header of its own: the overlapping
 * zip bomb's trick).
 */
export interface ZipInput {
  name: string;
  data: Buffer;
  method?: 0 | 8;
  declaredSize?: number;
  sameDataAs?: number;
  inside?: { entry: number; at: number };
}

export interface ZipOptions {
  /** Writes the ZIP64 structures: 0xffffffff in the 32-bit fields, the sizes and offsets in ZIP64 extra fields, the ZIP64 end records. */
  zip64?: boolean;
}

const U32_MAX = 0xffffffff;

/** The ZIP64 extra field (id 0x0001) holding these 64-bit values in order. */
function zip64Extra(values: number[]): Buffer {
  const extra = Buffer.alloc(4 + 8 * values.length);
  extra.writeUInt16LE(0x0001, 0);
  extra.writeUInt16LE(8 * values.length, 2);
  values.forEach((v, i) => extra.writeBigUInt64LE(BigInt(v), 4 + 8 * i));
  return extra;
}

/** A local file header and its name (and ZIP64 extra field), as a writer puts it before an entry's data. */
export function localHeader(name: string, data: Buffer, body: Buffer, method: 0 | 8, size = data.length, zip64 = false): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  const extra = zip64 ? zip64Extra([size, body.length]) : Buffer.alloc(0);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(zip64 ? 45 : 20, 4);
  local.writeUInt16LE(0x800, 6);
  local.writeUInt16LE(method, 8);
  local.writeUInt32LE(crc32(data), 14);
  local.writeUInt32LE(zip64 ? U32_MAX : body.length, 18);
  local.writeUInt32LE(zip64 ? U32_MAX : size, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  local.writeUInt16LE(extra.length, 28);
  return Buffer.concat([local, nameBytes, extra]);
}

function centralHeader(name: Buffer, method: number, crc: number, compressedSize: number, size: number, at: number, zip64: boolean): Buffer {
  const extra = zip64 ? zip64Extra([size, compressedSize, at]) : Buffer.alloc(0);
  const c = Buffer.alloc(46);
  c.writeUInt32LE(0x02014b50, 0);
  c.writeUInt16LE(zip64 ? 45 : 20, 4);
  c.writeUInt16LE(zip64 ? 45 : 20, 6);
  c.writeUInt16LE(0x800, 8);
  c.writeUInt16LE(method, 10);
  c.writeUInt32LE(crc, 16);
  c.writeUInt32LE(zip64 ? U32_MAX : compressedSize, 20);
  c.writeUInt32LE(zip64 ? U32_MAX : size, 24);
  c.writeUInt16LE(name.length, 28);
  c.writeUInt16LE(extra.length, 30);
  c.writeUInt32LE(zip64 ? U32_MAX : at, 42);
  return Buffer.concat([c, name, extra]);
}

/** The end records: the classic one, preceded by the ZIP64 record and its locator for a ZIP64 archive. */
function endRecords(count: number, cdSize: number, cdOffset: number, zip64: boolean): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : count, 8);
  end.writeUInt16LE(zip64 ? 0xffff : count, 10);
  end.writeUInt32LE(zip64 ? U32_MAX : cdSize, 12);
  end.writeUInt32LE(zip64 ? U32_MAX : cdOffset, 16);
  if (!zip64) return end;
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(cdSize), 40);
  record.writeBigUInt64LE(BigInt(cdOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(cdOffset + cdSize), 8);
  locator.writeUInt32LE(1, 16);
  return Buffer.concat([record, locator, end]);
}

/** A minimal ZIP writer for tests (stored or deflated entries, UTF-8 names, ZIP64 on demand), able to build malformed archives on purpose. */
export function makeZip(entries: readonly ZipInput[], options: ZipOptions = {}): Buffer {
  const zip64 = options.zip64 ?? false;
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  const headers: number[] = [];
  const dataStarts: number[] = [];
  let offset = 0;
  for (const e of entries) {
    const method = e.method ?? 8;
    const body = method === 8 ? deflateRawSync(e.data) : e.data;
    const size = e.declaredSize ?? e.data.length;
    let at = offset;
    let dataStart: number;
    if (e.sameDataAs !== undefined) {
      at = headers[e.sameDataAs];
      dataStart = dataStarts[e.sameDataAs];
    } else if (e.inside !== undefined) {
      at = dataStarts[e.inside.entry] + e.inside.at;
      dataStart = at + localHeader(e.name, e.data, body, method, size, zip64).length;
    } else {
      const local = localHeader(e.name, e.data, body, method, size, zip64);
      parts.push(local, body);
      dataStart = offset + local.length;
      offset += local.length + body.length;
    }
    headers.push(at);
    dataStarts.push(dataStart);
    central.push(centralHeader(Buffer.from(e.name, 'utf8'), method, crc32(e.data), body.length, size, at, zip64));
  }
  const cd = Buffer.concat(central);
  return Buffer.concat([...parts, cd, endRecords(entries.length, cd.length, offset, zip64)]);
}
