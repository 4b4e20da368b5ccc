import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAccepted } from './envelope.js';
import { checkEnvelopes } from './stream.js';
import { header, shippingAdvice } from './test-support.js';
import { X12Writer, type WriterSeparators } from './writer.js';

const STYLES: WriterSeparators[] = [
  { element: '*', component: '>', segment: '~', lineBreak: '\r\n' },
  { element: '|', component: '>', segment: '~' },
  { element: '^', component: ':', segment: '\n' },
  { element: '*', component: ':', segment: '\'', lineBreak: '\n' },
];

const BREAKS = {
  set: ['se-count', 'se-control', 'se-missing'],
  group: ['ge-count', 'ge-control', 'ge-missing'],
  interchange: ['iea-count', 'iea-control', 'iea-missing', 'isa-length'],
} as const;
type Level = keyof typeof BREAKS;

interface Model {
  interchanges: Array<{ style: number; groups: Array<{ sets: number[] }> }>;
  /** The one broken rule: its level, kind and where (indexes wrap around what exists). */
  broken: { level: Level; kind: number; interchange: number; group: number; set: number } | undefined;
  chunks: number[];
}

const model: fc.Arbitrary<Model> = fc.record({
  interchanges: fc.array(fc.record({
    style: fc.nat({ max: STYLES.length - 1 }),
    groups: fc.array(fc.record({ sets: fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }) }), { minLength: 1, maxLength: 3 }),
  }), { minLength: 1, maxLength: 3 }),
  broken: fc.option(fc.record({
    level: fc.constantFrom<Level>('set', 'group', 'interchange'),
    kind: fc.nat({ max: 3 }), interchange: fc.nat(), group: fc.nat(), set: fc.nat(),
  }), { nil: undefined }),
  chunks: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 5 }),
});

/** The file the model describes, and which sets (`i/g/s`, by position) its broken rule refuses. */
function render(m: Model): { text: string; refused: Set<string> } {
  const target = m.broken && (() => {
    const i = m.broken.interchange % m.interchanges.length;
    const g = m.broken.group % m.interchanges[i].groups.length;
    const s = m.broken.set % m.interchanges[i].groups[g].sets.length;
    const kinds = BREAKS[m.broken.level];
    return { level: m.broken.level, kind: kinds[m.broken.kind % kinds.length], i, g, s };
  })();
  const hit = (level: Level, i: number, g = 0, s = 0) => target !== undefined && target.level === level && target.i === i
    && (level === 'interchange' || target.g === g) && (level !== 'set' || target.s === s);
  const refused = new Set<string>();
  let text = '';
  m.interchanges.forEach((interchange, i) => {
    const separators = STYLES[interchange.style];
    const writer = new X12Writer(separators);
    const line = (fields: string[]) => fields.join(separators.element) + separators.segment + (separators.lineBreak ?? '');
    const control = String(i + 1).padStart(9, '0');
    let isa = writer.interchangeStart(header(i + 1));
    if (hit('interchange', i) && target?.kind === 'isa-length') isa = isa.replace(`NWLWMS${' '.repeat(9)}`, 'NWLWMS');
    text += isa;
    interchange.groups.forEach((group, g) => {
      text += line(['GS', 'SW', 'NWLWMS', 'WISBRIDGE', '20261201', '2305', String(g + 1), 'X', '004010']);
      group.sets.forEach((lines, s) => {
        const setControl = String(s + 1).padStart(4, '0');
        const body = shippingAdvice(`SO${s}`, lines).map((segment) => line(segment.map((e) => (typeof e === 'string' ? e : e.join(separators.component)))));
        text += line(['ST', '945', setControl]) + body.join('');
        const broken = hit('set', i, g, s) ? target?.kind : undefined;
        if (broken !== 'se-missing') text += line(['SE', String(body.length + 2 + (broken === 'se-count' ? 1 : 0)), broken === 'se-control' ? '9999' : setControl]);
        if (broken !== undefined) refused.add(`${i}/${g}/${s}`);
      });
      const broken = hit('group', i, g) ? target?.kind : undefined;
      if (broken !== 'ge-missing') text += line(['GE', String(group.sets.length + (broken === 'ge-count' ? 1 : 0)), broken === 'ge-control' ? '999' : String(g + 1)]);
      if (broken !== undefined) group.sets.forEach((_, s) => refused.add(`${i}/${g}/${s}`));
    });
    const broken = hit('interchange', i) ? target?.kind : undefined;
    if (broken !== 'iea-missing') text += line(['IEA', String(interchange.groups.length + (broken === 'iea-count' ? 1 : 0)), broken === 'iea-control' ? '999999999' : control]);
    if (broken !== undefined) interchange.groups.forEach((group, g) => group.sets.forEach((_, s) => refused.add(`${i}/${g}/${s}`)));
  });
  return { text, refused };
}

function* cut(text: string, sizes: readonly number[]): Generator<Buffer> {
  const bytes = Buffer.from(text);
  for (let at = 0, i = 0; at < bytes.length; i++) {
    yield bytes.subarray(at, at + sizes[i % sizes.length]);
    at += sizes[i % sizes.length];
  }
}

describe('envelope rules (property)', () => {
  it('one broken rule anywhere in a mailbox refuses exactly the envelope holding it, however the bytes arrive', async () => {
    await fc.assert(fc.asyncProperty(model, async (m) => {
      const { text, refused } = render(m);
      const interchanges = await checkEnvelopes(cut(text, m.chunks));
      expect(interchanges).toHaveLength(m.interchanges.length);
      const actual: string[] = [];
      const expected: string[] = [];
      interchanges.forEach((interchange, i) => interchange.groups.forEach((group, g) => group.sets.forEach((set, s) => {
        actual.push(`${i}/${g}/${s}:${isAccepted(set, group, interchange) ? 'accepted' : 'refused'}`);
      })));
      m.interchanges.forEach((interchange, i) => interchange.groups.forEach((group, g) => group.sets.forEach((_, s) => {
        expected.push(`${i}/${g}/${s}:${refused.has(`${i}/${g}/${s}`) ? 'refused' : 'accepted'}`);
      })));
      expect(actual).toEqual(expected);
    }), { numRuns: 150 });
  });
});
