import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { makeZip } from './test-support.js';
import { isWisbridgeError } from '../errors.js';
import { containerKind, extractZipEntry, gunzipTo, readZipDirectory, type ExpansionLimits } from './expand.js';

const dir = mkdtempSync(join(tmpdir(), 'wb-expand-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const limits: ExpansionLimits = { maxBytes: 64 * 1024 * 1024, maxRatio: 250, maxEntries: 10 };
let n = 0;
const file = (bytes: Buffer) => { const p = join(dir, `f${n++}`); writeFileSync(p, bytes); return p; };
const target = () => join(dir, `t${n++}`);
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(isWisbridgeError(error, 'FILE_ARCHIVE'), String(error)).toBe(true);
  return (error as Error).message;
}

describe('compressed inbox files', () => {
  it('names .gz and .zip', () => {
    expect([containerKind('a.csv.gz'), containerKind('B.ZIP'), containerKind('a.csv'), containerKind('.gz')]).toEqual(['gz', 'zip', undefined, undefined]);
  });
  it('gunzips, also concatenated members; refuses damaged files', async () => {
    const out = target();
    expect(await gunzipTo(file(Buffer.concat([gzipSync('a;b\n'), gzipSync('1;2\n')])), out, 'x.csv.gz', limits)).toBe(8);
    expect(readFileSync(out, 'utf8')).toBe('a;b\n1;2\n');
    expect(await refusal(gunzipTo(file(Buffer.from('not gzip at all')), target(), 'x.csv.gz', limits))).toMatch(/^x\.csv\.gz is not a valid compressed file/);
    expect(await refusal(gunzipTo(file(gzipSync('a'.repeat(10_000)).subarray(0, 20)), target(), 'cut.gz', limits))).toMatch(/^cut\.gz is not a valid compressed file/);
  });
  it('a gzip bomb is refused by its ratio, and by the size limit, with memory bounded', async () => {
    const bomb = join(dir, 'bomb.gz');
    // 512 MiB of zeros, compressed ~1000 times: streamed, never held.
    await pipeline(Readable.from((function* () { const z = Buffer.alloc(1 << 20); for (let i = 0; i < 512; i++) yield z; })()), createGzip(), createWriteStream(bomb));
    expect(await refusal(gunzipTo(bomb, target(), 'bomb.gz', limits))).toBe("bomb.gz expands more than 250 times (the drop's max_expansion_ratio): refused as a possible zip bomb");
    const before = process.memoryUsage().rss;
    expect(await refusal(gunzipTo(bomb, target(), 'bomb.gz', { ...limits, maxRatio: 1e9 })))
      .toBe("bomb.gz expands to more than 67108864 bytes (the drop's max_expanded_bytes): refused as a possible zip bomb");
    expect(process.memoryUsage().rss - before).toBeLessThan(48 * 1024 * 1024);
  });
  it('reads a zip directory: entries in name order, folders and hidden files skipped, stored and deflated data checked', async () => {
    const zip = file(makeZip([
      { name: 'b.csv', data: Buffer.from('B\n') }, { name: 'dir/', data: Buffer.alloc(0), method: 0 }, { name: '__MACOSX/._a.csv', data: Buffer.from('x') },
      { name: 'dir/a.csv', data: Buffer.from('A\n'.repeat(1000)), method: 0 }, { name: '.hidden', data: Buffer.from('h') },
    ]));
    const entries = await readZipDirectory(zip, 'in.zip', limits);
    expect(entries.map((e) => e.name)).toEqual(['a.csv', 'b.csv']);
    const out = target();
    await extractZipEntry(zip, entries[0], out, 'in.zip', limits);
    expect(readFileSync(out, 'utf8')).toBe('A\n'.repeat(1000));
  });
  it('refuses zip bombs and damaged or unsupported archives with a reason', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024);
    expect(await refusal(readZipDirectory(file(makeZip([{ name: 'z.csv', data: big }])), 'bomb.zip', limits))).toMatch(/^bomb\.zip: entry z\.csv expands \d+ times, more than 250/);
    expect(await refusal(readZipDirectory(file(makeZip([{ name: 'a.csv', data: Buffer.from('a') }, { name: 'b.csv', data: Buffer.from('a'), sameDataAs: 0 }])), 'overlap.zip', limits)))
      .toBe('overlap.zip: entries a.csv and b.csv share their data: refused as a possible zip bomb');
    expect(await refusal(readZipDirectory(file(makeZip(Array.from({ length: 11 }, (_, i) => ({ name: `${i}.csv`, data: Buffer.from('x') })))), 'many.zip', limits)))
      .toBe("many.zip holds 11 entries, more than 10 (the drop's max_zip_entries)");
    expect(await refusal(readZipDirectory(file(makeZip([{ name: 'a.csv', data: Buffer.alloc(100), declaredSize: 100 * 1024 * 1024 }])), 'total.zip', limits))).toMatch(/max_expanded_bytes/);
    expect(await refusal(readZipDirectory(file(Buffer.from('PK nothing here')), 'junk.zip', limits))).toBe('junk.zip is not a zip archive (no end of central directory)');
    // An entry whose directory understates its size is cut at the declared size.
    const liar = file(makeZip([{ name: 'l.csv', data: Buffer.alloc(4096, 0x41), declaredSize: 100 }]));
    const [entry] = await readZipDirectory(liar, 'liar.zip', limits);
    expect(await refusal(extractZipEntry(liar, entry, target(), 'liar.zip', limits))).toBe('liar.zip: entry l.csv expands to more than 100 bytes (the size its directory declares): refused as a possible zip bomb');
  });
});
