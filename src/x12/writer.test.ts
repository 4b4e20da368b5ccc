import { describe, expect, it } from 'vitest';
import { isWisbridgeError } from '../errors.js';
import { segmentsOf } from './reader.js';
import { checkEnvelopes } from './stream.js';
import { AT, PIPE, STAR_CRLF, header } from './test-support.js';
import { X12Writer, writeInterchange, type SetData } from './writer.js';

const GROUP = { functionalId: 'OW', sender: 'WISBRIDGE', receiver: 'NWLWMS', at: AT, version: '004010' };

const order = (control: number, lines: number): SetData => ({
  id: '940',
  control,
  segments: [
    ['W05', 'N', `SO-${control}`, `PO-${control}`],
    ['N1', 'ST', 'Acme Store 12', '92', '0012'],
    ...Array.from({ length: lines }, (_, i) => [['LX', String(i + 1)] as const, ['W01', '4', 'EA', '', 'VN', `SKU-${i + 1}`] as const]).flat(),
    ['W76', String(lines * 4)],
  ],
});

function errorOf(run: () => unknown): unknown {
  try { run(); } catch (error) { return error; }
  return undefined;
}

describe('X12 writer', () => {
  it('writes an interchange the reader reads back as written, in both separator styles', async () => {
    for (const separators of [STAR_CRLF, PIPE]) {
      const text = writeInterchange(separators, header(4711), [
        { header: { ...GROUP, control: 31 }, sets: [order(1, 2), order(2, 3)] },
        { header: { ...GROUP, control: 32 }, sets: [order(3, 1)] },
      ]);
      const segments = segmentsOf(text);
      const w01s = segments.filter((s) => s.id === 'W01').map((s) => [s.position.group, s.position.set, s.fields.slice(1)]);
      expect(w01s[0]).toEqual(['31', '0001', ['4', 'EA', '', 'VN', 'SKU-1']]);
      expect(w01s).toHaveLength(6);
      expect(segments.filter((s) => s.id === 'SE').map((s) => s.element(1))).toEqual(['9', '11', '7']);
      expect(segments.filter((s) => s.id === 'GE').map((s) => s.fields.slice(1))).toEqual([['2', '31'], ['1', '32']]);
      expect(segments.at(-1)?.fields).toEqual(['IEA', '2', '000004711']);
      const [checked] = await checkEnvelopes([Buffer.from(text)]);
      expect([checked.refusals, ...checked.groups.flatMap((g) => [g.refusals, ...g.sets.map((s) => s.refusals)])].flat()).toEqual([]);
    }
  });

  it('pads the ISA\'s fields to their widths (qualifier and id to 15), ISA13 to nine digits, 106 characters', () => {
    const isa = new X12Writer(PIPE).interchangeStart(header(42, { sender: 'NWL', receiver: 'WIS', usage: 'T' }));
    expect(isa).toBe('ISA|00|          |00|          |ZZ|NWL            |ZZ|WIS            |261201|2305|U|00401|000000042|0|T|>~');
    expect(isa).toHaveLength(106);
  });

  it('writes the repetition separator in ISA11 from version 00402 on', () => {
    const isa = new X12Writer({ ...PIPE, repetition: '^' }).interchangeStart(header(1, { version: '00501' }));
    expect(isa.split('|')[11]).toBe('^');
    expect(isWisbridgeError(errorOf(() => new X12Writer(PIPE).interchangeStart(header(1, { version: '00501' }))), 'X12_WRITE')).toBe(true);
  });

  it('refuses a value holding a separator, an ISA field too long, a bad control number (X12_WRITE)', () => {
    const writer = new X12Writer(STAR_CRLF);
    writer.interchangeStart(header(1));
    writer.groupStart({ ...GROUP, control: 1 });
    const refused = errorOf(() => writer.set({ id: '940', control: 1, segments: [['N1', 'ST', 'Smith~Sons']] }));
    expect(isWisbridgeError(refused, 'X12_WRITE') ? refused.details : undefined).toEqual({ segment: 'N1', element: 2 });
    expect(errorOf(() => writer.segment(['N3', 'Line 1\nLine 2']))).toMatchObject({ code: 'X12_WRITE' });
    expect(errorOf(() => new X12Writer(PIPE).interchangeStart(header(1, { sender: 'A-VERY-LONG-SENDER-ID' })))).toMatchObject({ code: 'X12_WRITE', details: { segment: 'ISA', element: 6 } });
    expect(errorOf(() => new X12Writer(PIPE).interchangeStart(header(1_000_000_000)))).toMatchObject({ code: 'X12_WRITE', details: { segment: 'ISA', element: 13 } });
    expect(errorOf(() => new X12Writer({ element: '*', component: '*', segment: '~' }))).toMatchObject({ code: 'X12_WRITE' });
  });

  it('joins components with the component separator and drops trailing empty elements', () => {
    const writer = new X12Writer(PIPE);
    expect(writer.segment(['W27', 'M', ['UPSN', 'GROUND'], '', ''])).toBe('W27|M|UPSN>GROUND~');
    expect(writer.segment(['AK4', ['3', '1'], '', '6'])).toBe('AK4|3>1||6~');
  });
});
