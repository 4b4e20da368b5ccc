import { Readable } from 'node:stream';
import { parse as parseSync } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvRecords, RecordBatch } from './csv-records.js';

const base = { delimiter: ',', quote: '"', escape: '"', bom: true, comment_no_infix: true, relax_column_count: true, relax_quotes: true, max_record_size: 1024, from_line: 1 };

/** Feeds the bytes in pieces of pseudo-random sizes (so characters and lines are cut everywhere). */
async function read(text: string, options: Partial<typeof base> = {}, seed = 1, fastPath = true): Promise<string[][]> {
  const bytes = Buffer.from(text);
  const pieces: Buffer[] = [];
  let x = seed;
  for (let i = 0; i < bytes.length;) {
    x = (x * 48271) % 2147483647;
    const n = 1 + (x % (x % 3 === 0 ? 4000 : 9));
    pieces.push(bytes.subarray(i, i + n));
    i += n;
  }
  const out: string[][] = [];
  for await (const r of Readable.from(pieces, { objectMode: false }).pipe(csvRecords({ fastPath, parse: { ...base, ...options } }))) {
    if (r instanceof RecordBatch) out.push(...r.records);
    else out.push(r as string[]);
  }
  return out;
}

const expected = (text: string, options: Partial<typeof base> = {}) => parseSync(text, { ...base, ...options }) as string[][];
const plain = (n: number) => Array.from({ length: n }, (_, i) => `SKU-${i},${i % 7},näme 😀 ${i}`).join('\n');

describe('csvRecords: the same records as csv-parse, cut anywhere', () => {
  const cases: [string, string, Partial<typeof base>?][] = [
    ['plain lines', `${plain(500)}\n`],
    ['no final line break', plain(300)],
    ['empty and blank lines, several at the end', `a,b\n\n  \nc,d\n\n\n`],
    ['a byte order mark', `\ufeffSKU,QTY\n${plain(50)}\n`],
    ['skip_lines', `junk\nmore junk\nSKU,QTY\n${plain(50)}\n`, { from_line: 3 }],
    ['a quoted line break late in the file', `${plain(3000)}\nB,1,"two\nlines"\n${plain(20)}\n`],
    ['CRLF from the middle on', `${plain(800)}\n${plain(30).replace(/\n/g, '\r\n')}\r\n`],
    ['a quote in the first line', `"SKU",QTY\n${plain(40)}\n`],
    ['a quote before the skipped lines end', `"x\ny"\nskip\nSKU\n${plain(40)}\n`, { from_line: 3 }],
    ['a delimiter of two characters', `a||b||c\n${plain(20).replace(/,/g, '||')}\n`, { delimiter: '||' }],
    ['an escape character that is not the quote', `a,b\\c\n"q\\"x",y\n`, { escape: '\\' }],
  ];
  for (const [name, text, options] of cases) {
    it(name, async () => {
      const want = expected(text, options);
      for (const seed of [1, 7, 12345]) expect(await read(text, options, seed)).toEqual(want);
      expect(want.length).toBeGreaterThan(1);
    });
  }

  it('reports csv-parse errors with line numbers of the whole file', async () => {
    const longLine = `${plain(2000)}\n${'x'.repeat(1100)}\n${plain(5)}\n`;
    const unclosed = `${plain(2500)}\nA,1,"open\n${plain(3)}\n`;
    for (const text of [longLine, unclosed]) {
      let want: { code?: string; lines?: number } = {};
      try {
        expected(text);
      } catch (error) {
        want = error as typeof want;
      }
      expect(want.code).toMatch(/^CSV_/);
      for (const seed of [1, 3]) {
        await expect(read(text, {}, seed)).rejects.toMatchObject({ code: want.code, lines: want.lines });
      }
    }
  });

  it('leaves the whole file to csv-parse when the fast path is off', async () => {
    const text = `a,b\n"c\nd",e\n`;
    expect(await read(text, {}, 1, false)).toEqual([['a', 'b'], ['c\nd', 'e']]);
  });
});
