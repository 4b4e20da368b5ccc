import { crc32, deflateRawSync } from 'node:zlib';

/** One entry of a test archive; `declaredSize` lies about its size, `sameDataAs` points it at another entry's data. */
export interface ZipInput {
  name: string;
  data: Buffer;
  method?: 0 | 8;
  declaredSize?: number;
  sameDataAs?: number;
}

/** A minimal ZIP writer for tests (stored or deflated entries, UTF-8 names), able to build malformed archives on purpose. */
export function makeZip(entries: readonly ZipInput[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  entries.forEach((e) => {
    const method = e.method ?? 8;
    const body = method === 8 ? deflateRawSync(e.data) : e.data;
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(e.data);
    const size = e.declaredSize ?? e.data.length;
    let at = offset;
    if (e.sameDataAs === undefined) {
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(0x800, 6);
      local.writeUInt16LE(method, 8);
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(body.length, 18);
      local.writeUInt32LE(size, 22);
      local.writeUInt16LE(name.length, 26);
      parts.push(local, name, body);
      offset += 30 + name.length + body.length;
    } else at = offsets[e.sameDataAs];
    offsets.push(at);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x800, 8);
    c.writeUInt16LE(method, 10);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(body.length, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(at, 42);
    central.push(c, name);
  });
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}
