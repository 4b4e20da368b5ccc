import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_LISTED_SETS, X12Writer, checkEnvelopes, type InterchangeResult, type SetData } from '../x12/index.js';
import { AT, STAR_CRLF, header, large945Chunks, set945 } from '../x12/test-support.js';
import { formatProblem, parseMapping } from './load.js';
import { ITEMS_PER_BATCH, X12Batch, X12Rows, type X12Item } from './x12-rows.js';

const SHIP = `
document: customerShipments.ship
files: "*.edi"
dialect: { format: x12, transaction_set: "945" }
record_types:
  types:
    W06: {}
    N1: { skip: true }
    LX: {}
    W12: { emit: true }
request:
  key: W06-02
  fields:
    id: W06-02
  lists:
    lines:
      fields:
        product_code: W12-08
        quantity: { column: W12-03, type: number }
`;

function rowsOf(verdicts: readonly InterchangeResult[] | undefined): X12Rows {
  const { mapping, problems } = parseMapping(SHIP, 'test.yaml');
  expect(problems.map(formatProblem)).toEqual([]);
  return new X12Rows(mapping!.inbound!.x12!, 'BIG.edi', 'test', verdicts);
}

/** Streams the chunks through X12Rows, counting what it gives (every item kept only when `keep`). */
async function stream(chunks: () => Iterable<Buffer>, verdicts: readonly InterchangeResult[] | undefined, keep = false) {
  const rows = rowsOf(verdicts);
  const counts = { row: 0, reject: 0, skip: 0, end: 0 };
  const items: X12Item[] = [];
  let largestBatch = 0;
  await pipeline(Readable.from(chunks()), rows, new Writable({
    objectMode: true,
    write(batch: X12Batch, _enc, cb) {
      largestBatch = Math.max(largestBatch, batch.items.length);
      for (const item of batch.items) {
        counts[item.kind]++;
        if (keep) items.push(item);
      }
      cb();
    },
  }));
  return { counts, items, largestHeld: rows.largestHeld, largestBatch };
}

describe('X12Rows with the verdicts read before mapping', () => {
  it('holds no row of a large interchange: each set goes on as it is read', async () => {
    const chunks = () => large945Chunks(5_000, 64 * 1024, 10);
    const verdicts = await checkEnvelopes(chunks());
    const streamed = await stream(chunks, verdicts);
    expect(streamed.counts).toEqual({ row: 50_000, reject: 0, skip: 5_000, end: 5_000 });
    // Only a set's skipped N1 waits, for the set's first row.
    expect(streamed.largestHeld).toBe(1);
    // A chunk of 64 KB holds over a thousand rows: they go on in batches of about ITEMS_PER_BATCH (a set's last row and its end together).
    expect(streamed.largestBatch).toBeGreaterThanOrEqual(ITEMS_PER_BATCH);
    expect(streamed.largestBatch).toBeLessThanOrEqual(ITEMS_PER_BATCH + 2);
    // Without the verdicts, the interchange's rows wait for its IEA: what the verdicts spare.
    const held = await stream(chunks, undefined);
    expect(held.counts).toEqual(streamed.counts);
    expect(held.largestHeld).toBe(55_000);
  });

  it('holds no row of one set of 100,000 lines either', async () => {
    const chunks = () => large945Chunks(1, 64 * 1024, 100_000);
    const streamed = await stream(chunks, await checkEnvelopes(chunks()));
    expect(streamed.counts).toEqual({ row: 100_000, reject: 0, skip: 1, end: 1 });
    expect(streamed.largestHeld).toBe(1);
  });

  it('finds each refused set beyond the accepted ones a group lists, by its place in the group', async () => {
    const writer = new X12Writer(STAR_CRLF);
    const sets: SetData[] = [];
    for (let s = 1; s <= MAX_LISTED_SETS + 3; s++) sets.push(set945(s, 1));
    // Beyond the listed ones: a set repeating the ST02 of the set before it (the first of the two is accepted), and a set whose SE01 is wrong.
    sets[MAX_LISTED_SETS + 1] = { ...sets[MAX_LISTED_SETS + 1], control: MAX_LISTED_SETS + 1 };
    let text = writer.interchangeStart(header(4711));
    text += writer.groupStart({ functionalId: 'SW', sender: 'NWLWMS', receiver: 'WISBRIDGE', at: AT, control: 1, version: '004010' });
    for (const set of sets) text += writer.set(set);
    text = text.replace(`SE*7*${MAX_LISTED_SETS + 3}~`, `SE*8*${MAX_LISTED_SETS + 3}~`);
    text += writer.groupEnd() + writer.interchangeEnd();
    const chunks = () => [Buffer.from(text)];
    const verdicts = await checkEnvelopes(chunks());
    const listed = verdicts[0].groups[0].sets;
    expect(listed.length).toBe(MAX_LISTED_SETS + 2);
    const streamed = await stream(chunks, verdicts, true);
    const held = await stream(chunks, undefined, true);
    expect(streamed.items).toEqual(held.items);
    const rejects = streamed.items.filter((i) => i.kind === 'reject');
    expect(rejects.map((r) => r.errors.map((e) => e.message))).toEqual([
      [`BIG.edi, interchange 000004711, set ${MAX_LISTED_SETS + 1}: ST02 ${MAX_LISTED_SETS + 1} came before in group 1; refused (set-duplicate, code 23)`],
      [`BIG.edi, interchange 000004711, set ${MAX_LISTED_SETS + 3}: SE01 says 8 segments, the set has 7; refused (set-segment-count, code 4)`],
    ]);
    expect(streamed.counts.row).toBe(MAX_LISTED_SETS + 1);
  });
});
