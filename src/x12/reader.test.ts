import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../errors.js';
import { SegmentReader, segmentsOf } from './reader.js';
import type { Segment } from './segment.js';
import { isX12 } from './syntax.js';
import { PIPE, STAR_CRLF, chunked, header, interchange945, large945Chunks, set945 } from './test-support.js';
import { writeInterchange } from './writer.js';

const ids = (segments: readonly Segment[]) => segments.map((s) => s.id);

async function readAll(source: Iterable<Buffer> | AsyncIterable<Buffer>, file?: string): Promise<Segment[]> {
  const segments: Segment[] = [];
  for await (const segment of new SegmentReader(source, { file })) segments.push(segment);
  return segments;
}

describe('X12 detection', () => {
  it('takes a file that starts with ISA, a UTF-8 BOM before it tolerated, whatever it is called', () => {
    const text = interchange945(STAR_CRLF, 1);
    expect(isX12(Buffer.from(text))).toBe(true);
    expect(isX12(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text.slice(0, 8))]))).toBe(true);
    expect(isX12(Buffer.from('ISA|00|'))).toBe(true);
  });

  it('does not take a CSV file, a file with ISA further in, or one too short to tell', () => {
    expect(isX12(Buffer.from('sku,quantity\nISA*00*'))).toBe(false);
    expect(isX12(Buffer.from('ISAAC,12\n'))).toBe(false);
    expect(isX12(Buffer.from(' ISA*00*'))).toBe(false);
    expect(isX12(Buffer.from('ISA'))).toBe(false);
  });
});

describe('segment reader', () => {
  it('reads wanted elements and components in one walk as one by one, past the last element too', () => {
    const [w12] = segmentsOf(interchange945(STAR_CRLF, 1)).filter((s) => s.id === 'W12');
    const wanted = [0, 1, 2, 3, 5, 8, 9, 14, 20].map((element, slot) => ({ element, component: 0, slot }));
    const row: string[] = [];
    w12.readElements(wanted, row);
    expect(row).toEqual(wanted.map((e) => w12.element(e.element)));
    const [isa] = segmentsOf(interchange945(STAR_CRLF, 1));
    const components = [{ element: 16, component: 1, slot: 0 }, { element: 16, component: 2, slot: 1 }];
    const parts: string[] = [];
    isa.readElements(components, parts);
    expect(parts).toEqual([isa.component(16, 1), isa.component(16, 2)]);
  });

  it('reads UTF-8 text and ASCII alike, whole or in chunks cut anywhere (inside a character too): the same texts, places and byte offsets', async () => {
    const text = interchange945(STAR_CRLF, 1).replace('ACME STORE 12', 'Müller Straße 12 – Köln');
    const whole = segmentsOf(text);
    expect(whole.find((s) => s.id === 'N1')?.element(2)).toBe('Müller Straße 12 – Köln');
    const bytes = Buffer.from(text);
    const at = (s: Segment) => [s.id, s.fields, s.position, s.length];
    for (const sizes of [[1], [7], [64, 3], [1000]]) expect((await readAll(chunked(bytes, sizes))).map(at)).toEqual(whole.map(at));
    // Each offset is where the segment's bytes start, past the multi-byte characters before it.
    for (const s of whole) expect(bytes.subarray(s.offset, s.offset + s.id.length).toString()).toBe(s.id);
    expect(whole.at(-1)!.offset).toBe(bytes.lastIndexOf('IEA'));
  });

  it('reads the separators from the ISA: * and ~ with CR/LF, | > ~ without line breaks, the same segments', () => {
    const star = segmentsOf(interchange945(STAR_CRLF, 1));
    const pipe = segmentsOf(interchange945(PIPE, 1));
    expect(ids(star)).toEqual(ids(pipe));
    expect(ids(star).slice(0, 5)).toEqual(['ISA', 'GS', 'ST', 'W06', 'N1']);
    expect(star.map((s) => s.fields)).toEqual(pipe.map((s) => s.fields));
    const w12 = star.find((s) => s.id === 'W12') as Segment;
    expect([w12.element(1), w12.element(2), w12.element(8), w12.element(20)]).toEqual(['CC', '10', 'SKU-1', '']);
    expect(String.fromCharCode(star[0].delimiters.element, star[0].delimiters.segment)).toBe('*~');
    expect(String.fromCharCode(pipe[0].delimiters.element, pipe[0].delimiters.component)).toBe('|>');
  });

  it('ignores CR, LF or CR LF after a terminator, and a CR before an LF terminator', () => {
    const text = interchange945(PIPE, 1);
    const variants = [text.replaceAll('~', '~\n'), text.replaceAll('~', '~\r\n'), text.replaceAll('~', '~\r')];
    for (const variant of variants) expect(segmentsOf(variant).map((s) => s.fields)).toEqual(segmentsOf(text).map((s) => s.fields));
    const lfTerminated = text.replaceAll('~', '\r\n');
    expect(segmentsOf(lfTerminated).map((s) => s.fields)).toEqual(segmentsOf(text).map((s) => s.fields));
  });

  it('splits components on ISA16 and keeps the ISA 106 characters long', () => {
    const text = writeInterchange(PIPE, header(5), [{
      header: { functionalId: 'SW', sender: 'A', receiver: 'B', at: new Date(0), control: 1, version: '004010' },
      sets: [{ id: '945', control: 1, segments: [['W27', 'M', ['UPSN', 'GROUND', 'X']]] }],
    }]);
    const [isa, , , w27] = segmentsOf(text);
    expect(isa.length).toBe(106);
    expect(w27.components(2)).toEqual(['UPSN', 'GROUND', 'X']);
    expect(w27.component(2, 2)).toBe('GROUND');
    expect(w27.component(2, 9)).toBe('');
  });

  it('skips a UTF-8 BOM before the first ISA', () => {
    const text = interchange945(STAR_CRLF, 1);
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    expect(segmentsOf(withBom).map((s) => s.fields)).toEqual(segmentsOf(text).map((s) => s.fields));
  });

  it('reads a mailbox of two interchanges with different separators, naming every segment\'s place', async () => {
    const file = interchange945(STAR_CRLF, 4711, 1, 2) + interchange945(PIPE, 4712, 2, 1);
    const segments = await readAll(chunked(file, [7, 300, 1, 4096]), 'NWL_4711.edi');
    const isas = segments.filter((s) => s.id === 'ISA');
    expect(isas.map((s) => [s.position.interchangeIndex, s.position.interchange, String.fromCharCode(s.delimiters.element)])).toEqual([
      [1, '000004711', '*'], [2, '000004712', '|'],
    ]);
    const w06s = segments.filter((s) => s.id === 'W06').map((s) => [s.position.interchange, s.position.group, s.position.set, s.position.index]);
    expect(w06s).toEqual([['000004711', '1', '0001', 2], ['000004711', '1', '0002', 2], ['000004712', '1', '0001', 2], ['000004712', '2', '0001', 2]]);
    const se = segments.find((s) => s.id === 'SE') as Segment;
    expect(se.position.index).toBe(Number(se.element(1)));
    const ge = segments.find((s) => s.id === 'GE') as Segment;
    expect([ge.position.group, ge.position.set, ge.position.index]).toEqual(['1', undefined, 0]);
    expect(segments[segments.length - 1].id).toBe('IEA');
  });

  it('names an element\'s place as file, interchange, set, segment and element', () => {
    const body = set945(2, 6);
    const text = writeInterchange(STAR_CRLF, header(4711), [{
      header: { functionalId: 'SW', sender: 'A', receiver: 'B', at: new Date(0), control: 1, version: '004010' },
      sets: [set945(1), { ...body, segments: [['N9', 'PO', '4500012'], ...body.segments] }],
    }]);
    const w12 = segmentsOf(text, { file: 'NWL_4711.edi' }).find((s) => s.position.set === '0002' && s.position.index === 14) as Segment;
    expect(w12.place(3)).toBe('NWL_4711.edi, interchange 000004711, set 0002, segment 14 (W12), element 03');
  });

  it('reads from a Node Readable, cut anywhere, the same as held whole', async () => {
    const text = interchange945(STAR_CRLF, 1, 2, 3);
    const whole = segmentsOf(text).map((s) => s.fields);
    for (const size of [1, 2, 3, 105, 106, 107, 1000]) {
      const segments = await readAll(Readable.from(chunked(text, [size])));
      expect(segments.map((s) => s.fields)).toEqual(whole);
    }
  });

  it('takes a last segment without its terminator', () => {
    const text = interchange945(PIPE, 1).replace(/~$/, '\r\n');
    expect(ids(segmentsOf(text)).at(-1)).toBe('IEA');
  });

  it('refuses bytes between interchanges that are not an ISA, with the offset (X12_SYNTAX)', () => {
    const first = interchange945(PIPE, 1);
    const error = (() => { try { segmentsOf(`${first}\r\nUNB+UNOA:1`, { file: 'x.edi' }); } catch (e) { return e; } })();
    expect(isWisbridgeError(error, 'X12_SYNTAX') ? error.details : undefined).toEqual({ file: 'x.edi', offset: first.length + 2 });
  });

  it('refuses a segment with no terminator within the limit instead of holding the rest of the file', async () => {
    const text = `${interchange945(PIPE, 1).slice(0, 300)}${'X'.repeat(5000)}`;
    const reader = new SegmentReader(chunked(text, [512]), { maxSegmentBytes: 1024 });
    const read = async () => { for await (const segment of reader) void segment; };
    await expect(read()).rejects.toMatchObject({ code: 'X12_SYNTAX' });
    expect(reader.largestHeld).toBeLessThanOrEqual(1024);
  });

  it('refuses an ISA without its 16 elements', () => {
    expect(() => segmentsOf(`ISA*00*${' '.repeat(300)}~`)).toThrow(/fewer than 16 elements/);
  });

  it('streams a large interchange holding no more than one segment between chunks', async () => {
    const sets = 4_000;
    let bytes = 0;
    const counted = function* () {
      for (const chunk of large945Chunks(sets, 16 * 1024, 10)) {
        bytes += chunk.length;
        yield chunk;
      }
    };
    const reader = new SegmentReader(counted());
    let count = 0;
    for await (const segment of reader) if (segment.id !== '') count++;
    // Per set: ST, W06, N1, 10 × (LX, W12), W03, SE; plus ISA, GS, GE, IEA.
    expect(count).toBe(sets * 25 + 4);
    expect(bytes).toBeGreaterThan(1.5 * 1024 * 1024);
    // The longest segment is the ISA (106 characters and its CR/LF): nothing more is ever kept between chunks.
    expect(reader.largestHeld).toBeLessThanOrEqual(108);
  });
});
