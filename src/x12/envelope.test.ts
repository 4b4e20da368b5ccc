import { describe, expect, it } from 'vitest';
import { isAccepted, type InterchangeResult } from './envelope.js';
import type { Reason } from './reasons.js';
import { checkEnvelopes, envelopeErrors, readX12 } from './stream.js';
import { PIPE, STAR_CRLF, chunked, interchange945 } from './test-support.js';

/** Every set of the file by position, `interchange/group/set` (1-based), with whether it is accepted. */
function verdicts(interchanges: readonly InterchangeResult[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  interchanges.forEach((i, x) => i.groups.forEach((g, y) => g.sets.forEach((s, z) => { out[`${x + 1}/${y + 1}/${z + 1}`] = isAccepted(s, g, i); })));
  return out;
}

function reasons(interchanges: readonly InterchangeResult[]): Reason[] {
  return interchanges.flatMap((i) => [...i.refusals, ...i.groups.flatMap((g) => [...g.refusals, ...g.sets.flatMap((s) => s.refusals)])]).map((r) => r.reason);
}

/** A mailbox of three interchanges (two groups of two sets each); the second uses | > ~ with no line breaks. */
const mailbox = () => [interchange945(STAR_CRLF, 1, 2, 2), interchange945(PIPE, 2, 2, 2), interchange945(STAR_CRLF, 3, 2, 2)];

const ALL = Object.fromEntries(['1', '2', '3'].flatMap((i) => ['1', '2'].flatMap((g) => ['1', '2'].map((s) => [`${i}/${g}/${s}`, true]))));

/** Whether each set of the mailbox is accepted once `refused` (prefixes of `i/g/s`) are refused. */
function expected(...refused: string[]): Record<string, boolean> {
  return Object.fromEntries(Object.keys(ALL).map((key) => [key, !refused.some((prefix) => key.startsWith(prefix))]));
}

/** Breaks the second interchange (| separators) with `edit`, and checks the whole file. */
async function breakSecond(edit: (text: string) => string): Promise<InterchangeResult[]> {
  const [a, b, c] = mailbox();
  return checkEnvelopes(chunked(a + edit(b) + c, [333]));
}

/** Replaces the n-th (1-based) occurrence of `find`. */
function nth(text: string, find: string, n: number, replace: string): string {
  let at = -1;
  for (let i = 0; i < n; i++) at = text.indexOf(find, at + 1);
  if (at < 0) throw new Error(`no occurrence ${n} of ${find}`);
  return text.slice(0, at) + replace + text.slice(at + find.length);
}

describe('envelope rules', () => {
  it('accepts a well-formed mailbox whole', async () => {
    const interchanges = await checkEnvelopes(chunked(mailbox().join(''), [1000]));
    expect(verdicts(interchanges)).toEqual(ALL);
    expect(reasons(interchanges)).toEqual([]);
  });

  const cases: Array<[string, Reason, (t: string) => string, string[]]> = [
    // the set: only it
    ['SE01 miscounts the set\'s segments', 'set-segment-count', (t) => nth(t, '~SE|9|0002~', 1, '~SE|10|0002~'), ['2/1/2']],
    ['SE02 differs from ST02', 'set-control-mismatch', (t) => nth(t, '~SE|9|0002~', 2, '~SE|9|0003~'), ['2/2/2']],
    ['the SE is missing', 'set-trailer-missing', (t) => nth(t, '~SE|9|0001~', 1, '~'), ['2/1/1']],
    ['ST01 does not belong in the group (GS01/ST01)', 'set-id-mismatch', (t) => nth(t, 'ST|945|0001', 1, 'ST|940|0001'), ['2/1/1']],
    ['ST03 differs from GS08', 'set-convention-mismatch', (t) => nth(t, 'ST|945|0002', 1, 'ST|945|0002|005010'), ['2/1/2']],
    // the group: its sets
    ['GE02 differs from GS06', 'group-control-mismatch', (t) => nth(t, 'GE|2|1~', 1, 'GE|2|9~'), ['2/1/']],
    ['GE01 miscounts the group\'s sets', 'group-set-count', (t) => nth(t, 'GE|2|2~', 1, 'GE|3|2~'), ['2/2/']],
    ['the GE is missing', 'group-trailer-missing', (t) => nth(t, 'GE|2|1~', 1, ''), ['2/1/']],
    ['ST02 is not four to nine characters', 'set-control-invalid', (t) => nth(nth(t, 'ST|945|0002', 1, 'ST|945|002'), '~SE|9|0002~', 1, '~SE|9|002~'), ['2/1/2']],
    ['ST02 repeats within the group', 'set-duplicate', (t) => nth(nth(t, 'ST|945|0002', 1, 'ST|945|0001'), '~SE|9|0002~', 1, '~SE|9|0001~'), ['2/1/2']],
    ['GS06 is not digits', 'group-control-invalid', (t) => nth(nth(t, '|2|X|004010~', 1, '|B|X|004010~'), 'GE|2|2~', 1, 'GE|2|B~'), ['2/2/']],
    ['GS06 repeats within the interchange', 'group-duplicate', (t) => nth(nth(t, '|2|X|004010~', 1, '|1|X|004010~'), 'GE|2|2~', 1, 'GE|2|1~'), ['2/2/']],
    ['a segment stands between two sets', 'group-content', (t) => nth(t, 'ST|945|0002', 1, 'N9|XX|1~ST|945|0002'), ['2/1/']],
    // the interchange: its groups and sets
    ['IEA02 differs from ISA13', 'interchange-control-mismatch', (t) => t.replace('IEA|2|000000002', 'IEA|2|000000009'), ['2/']],
    ['IEA01 miscounts the groups', 'interchange-group-count', (t) => t.replace('IEA|2|', 'IEA|1|'), ['2/']],
    ['the ISA is not 106 characters', 'isa-length', (t) => t.replace('|NWLWMS         |', '|NWLWMS|'), ['2/']],
    ['ISA13 is not nine digits', 'interchange-control-invalid', (t) => t.replaceAll('000000002', '00000000X'), ['2/']],
    ['a segment stands outside any group', 'interchange-content', (t) => nth(t, '~GS|', 1, '~N9|XX|1~GS|'), ['2/']],
    ['the IEA is missing', 'interchange-trailer-missing', (t) => t.replace('IEA|2|000000002~', ''), ['2/']],
  ];

  for (const [what, reason, edit, refused] of cases) {
    it(`${what}: refuses ${refused.join(', ')} and nothing else (${reason})`, async () => {
      const interchanges = await breakSecond(edit);
      expect(reasons(interchanges)).toEqual([reason]);
      expect(verdicts(interchanges)).toEqual(expected(...refused));
    });
  }

  it('refuses a second interchange repeating a sender\'s ISA13, not the first', async () => {
    const [a] = mailbox();
    const interchanges = await checkEnvelopes([Buffer.from(a + interchange945(PIPE, 1, 1, 1))]);
    expect(interchanges.map((i) => i.refusals.map((r) => r.reason))).toEqual([[], ['interchange-duplicate']]);
  });

  it('yields each set\'s verdict right after its SE, and the interchange\'s after its IEA', async () => {
    const order: string[] = [];
    for await (const event of readX12([Buffer.from(interchange945(PIPE, 7, 1, 2))])) {
      order.push(event.kind === 'segment' ? event.segment.id : event.kind);
    }
    expect(order.filter((k) => !['W06', 'N1', 'LX', 'W12', 'W03'].includes(k))).toEqual([
      'ISA', 'GS', 'ST', 'SE', 'set', 'ST', 'SE', 'set', 'GE', 'group', 'IEA', 'interchange',
    ]);
  });

  it('names each refusal\'s place and acknowledgement code in an X12_ENVELOPE error', async () => {
    const [interchange] = await checkEnvelopes([Buffer.from(interchange945(PIPE, 4711, 1, 2).replace('SE|9|0002', 'SE|12|0002'))]);
    const [error] = envelopeErrors(interchange, 'NWL_4711.edi');
    expect(error.message).toBe('NWL_4711.edi, interchange 000004711, set 0002: SE01 says 12 segments, the set has 9; refused (set-segment-count, code 4)');
    expect(error.details).toEqual({ interchange: '000004711', group: '1', set: '0002', reason: 'set-segment-count', ackCode: '4' });
  });
});
