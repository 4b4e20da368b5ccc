import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { localHeader, makeZip, type ZipInput } from './test-support.js';
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
    // 512 MiB of zeros, compressed ~1000 times: one compressed MiB repeated as concatenated gzip members, which
    // gunzip expands as one stream.
    const member = gzipSync(Buffer.alloc(1 << 20));
    writeFileSync(bomb, Buffer.concat(Array.from({ length: 512 }, () => member)));
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
  it('reads ZIP64 archives: sizes and offsets from the ZIP64 extra fields, the directory from the ZIP64 end record', async () => {
    const data = Buffer.from('sku;qty\n'.repeat(500));
    const zip = file(makeZip([{ name: 'b.csv', data }, { name: 'dir/a.csv', data: Buffer.from('A\n'), method: 0 }, { name: 'dir/', data: Buffer.alloc(0), method: 0 }], { zip64: true }));
    const entries = await readZipDirectory(zip, 'big.zip', limits);
    expect(entries.map((e) => [e.name, e.size])).toEqual([['a.csv', 2], ['b.csv', data.length]]);
    const out = target();
    await extractZipEntry(zip, entries[1], out, 'big.zip', limits);
    expect(readFileSync(out)).toEqual(data);
    expect(await refusal(readZipDirectory(zip, 'big.zip', { ...limits, maxEntries: 2 }))).toBe("big.zip holds 3 entries, more than 2 (the drop's max_zip_entries)");
    expect(await refusal(readZipDirectory(file(makeZip([{ name: 'a.csv', data: Buffer.alloc(100), declaredSize: 2 ** 33 }], { zip64: true })), 'huge.zip', limits)))
      .toMatch(/^huge\.zip expands to more than 67108864 bytes/);
  });
  it('refuses an entry whose local header lies inside the data of another (the overlapping zip bomb)', async () => {
    const inner = Buffer.from('x'.repeat(100));
    const quoted = Buffer.concat([Buffer.from('prefix'), localHeader('b.csv', inner, inner, 0), inner]);
    const zip = file(makeZip([{ name: 'a.csv', data: quoted, method: 0 }, { name: 'b.csv', data: inner, method: 0, inside: { entry: 0, at: 6 } }]));
    expect(await refusal(readZipDirectory(zip, 'quoted.zip', limits))).toBe('quoted.zip: entries a.csv and b.csv share their data: refused as a possible zip bomb');
  });
});

/** Reads the directory and extracts every entry; resolves to the entries or to the refusal's message, any other error fails. */
async function expandAll(bytes: Buffer, limits: ExpansionLimits): Promise<{ written: number[] } | { refused: string }> {
  const path = file(bytes);
  try {
    const entries = await readZipDirectory(path, 'f.zip', limits);
    const written: number[] = [];
    for (const entry of entries) {
      const out = target();
      try {
        await extractZipEntry(path, entry, out, 'f.zip', limits);
      } finally {
        written.push(statSync(out, { throwIfNoEntry: false })?.size ?? 0);
        expect(written.at(-1)).toBeLessThanOrEqual(Math.min(entry.size, limits.maxBytes));
      }
    }
    return { written };
  } catch (error) {
    expect(isWisbridgeError(error, 'FILE_ARCHIVE'), String(error)).toBe(true);
    return { refused: (error as Error).message };
  } finally {
    rmSync(path);
  }
}

const entryInput = (i: number) => fc.record({ data: fc.uint8Array({ maxLength: 300 }), method: fc.constantFrom(0 as const, 8 as const) })
  .map(({ data, method }): ZipInput => ({ name: `${i}.csv`, data: Buffer.from(data), method }));
const entryInputs = (min: number, max: number) => fc.integer({ min, max }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => entryInput(i))));

describe('zip archives, fuzzed', () => {
  it('random bytes, and archives with bytes changed or cut, are expanded or refused with FILE_ARCHIVE, never more than declared', async () => {
    await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), async (bytes) => {
      await expandAll(Buffer.from(bytes), limits);
    }), { numRuns: 100 });
    const mutated = fc.record({
      entries: entryInputs(1, 4), zip64: fc.boolean(), cut: fc.nat(),
      changes: fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 6 }),
    });
    await fc.assert(fc.asyncProperty(mutated, async ({ entries, zip64, cut, changes }) => {
      const bytes = makeZip(entries, { zip64 });
      for (const { at, byte } of changes) bytes[at % bytes.length] = byte;
      await expandAll(bytes, limits);
      await expandAll(bytes.subarray(0, cut % bytes.length), limits);
    }), { numRuns: 200 });
  });

  it('entries sharing a local header or data are refused, others never', async () => {
    const shared = fc.record({ entries: entryInputs(2, 5), zip64: fc.boolean(), from: fc.nat(), to: fc.nat() });
    await fc.assert(fc.asyncProperty(shared, async ({ entries, zip64, from, to }) => {
      const result = await expandAll(makeZip(entries, { zip64 }), limits);
      expect(result).toEqual({ written: entries.map((e) => e.data.length) });
      const later = 1 + (to % (entries.length - 1));
      // The bomb's form: a second directory entry for the same data, declaring what the shared data holds.
      const sharing = entries.map((e, i) => (i === later ? { ...entries[from % later], name: e.name, sameDataAs: from % later } : e));
      expect(await expandAll(makeZip(sharing, { zip64 }), limits)).toEqual({ refused: expect.stringMatching(/share their data: refused as a possible zip bomb$/) });
    }), { numRuns: 60 });
  });

  it('the entry count, the expanded bytes and the ratio hold, whatever the archive declares', async () => {
    const limited = fc.record({
      entries: entryInputs(0, 12), zip64: fc.boolean(), maxEntries: fc.integer({ min: 1, max: 10 }), maxBytes: fc.integer({ min: 0, max: 3000 }),
      lies: fc.array(fc.option(fc.integer({ min: 0, max: 2 ** 40 })), { maxLength: 12 }),
    });
    await fc.assert(fc.asyncProperty(limited, async ({ entries, zip64, maxEntries, maxBytes, lies }) => {
      const declared = entries.map((e, i) => ({ ...e, declaredSize: lies[i] ?? e.data.length }));
      const needs64 = zip64 || declared.some((e) => e.declaredSize >= 0xffffffff);
      const result = await expandAll(makeZip(declared, { zip64: needs64 }), { maxEntries, maxBytes, maxRatio: 250 });
      const total = declared.reduce((sum, e) => sum + e.declaredSize, 0);
      if (entries.length > maxEntries) expect(result).toEqual({ refused: `f.zip holds ${entries.length} entries, more than ${maxEntries} (the drop's max_zip_entries)` });
      else if (total > maxBytes) expect(result).toEqual({ refused: `f.zip expands to more than ${maxBytes} bytes (the drop's max_expanded_bytes): refused as a possible zip bomb` });
      else if (declared.every((e) => e.declaredSize === e.data.length)) expect(result).toEqual({ written: entries.map((e) => e.data.length) });
      else expect(result).toEqual({ refused: expect.stringMatching(/^f\.zip: entry \d+\.csv (expands to more than|is damaged)/) });
    }), { numRuns: 200 });
    const ratio = fc.record({ data: fc.uint8Array({ minLength: 1, maxLength: 200 }), declared: fc.integer({ min: 0, max: 2 ** 34 }), maxRatio: fc.integer({ min: 1, max: 5000 }) });
    await fc.assert(fc.asyncProperty(ratio, async ({ data, declared, maxRatio }) => {
      const zip = makeZip([{ name: 'r.csv', data: Buffer.from(data), method: 0, declaredSize: declared }], { zip64: declared > 0xfffffffe });
      const refused = await readZipDirectory(file(zip), 'r.zip', { maxEntries: 1, maxBytes: 2 ** 35, maxRatio }).then(() => false, (e: unknown) => isWisbridgeError(e, 'FILE_ARCHIVE'));
      expect(refused).toBe(declared > 1024 * 1024 && declared / data.length > maxRatio);
    }), { numRuns: 200 });
  });
});
