import { Readable } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InboundJob, X12Route } from '../config/schema.js';
import { loadMappings } from '../mapping/index.js';
import { MAX_LISTED_SETS } from '../x12/envelope.js';
import { interchange945, PIPE } from '../x12/test-support.js';
import { envelopeEntries, readEnvelope, SetRowsTally, type FileEnvelopes, type GroupEnvelope, type SetEnvelope } from './x12-structure.js';
import { routeX12 } from './x12-route.js';

const JOB = { name: 'edi', drop: 'wms', service: 'main', x12: [{ transaction_set: '945', mapping: 'x12-945-customer-shipment-ship' }] } as unknown as InboundJob & { x12: X12Route[] };

describe("an X12 file's envelopes as recorded for the console", () => {
  it('list every refused set and the first accepted ones of a large group, with their lines, and count the rest', async () => {
    const sets = MAX_LISTED_SETS + 50;
    // The last set's SE01 miscounts: it is refused, and listed although the accepted ones before it stopped being listed.
    const text = interchange945(PIPE, 8, 1, sets).replace(`SE|9|${sets}~`, `SE|8|${sets}~`);
    const reading = await routeX12(JOB, await loadMappings(join(import.meta.dirname, '../../mappings')), {}, () => Readable.from([Buffer.from(text)]), 'big.edi');
    const entries = envelopeEntries(reading);
    expect(entries.map((e) => e.ord)).toEqual(Array.from({ length: MAX_LISTED_SETS + 4 }, (_, i) => i));
    const [totals, interchange, group, first, ...rest] = entries.map(readEnvelope);
    expect(totals.detail as FileEnvelopes).toEqual({ interchanges: 1, groups: 1, sets, listed: MAX_LISTED_SETS + 1, refused: 1, rowsRead: false });
    expect(interchange.level).toBe('interchange');
    expect(group.detail as GroupEnvelope).toMatchObject({ received: sets, accepted: sets - 1, listed: MAX_LISTED_SETS + 1, verdict: 'P', index: 0, reply: 0 });
    // Segment 1 is the ISA, 2 the GS; each set is 9 segments.
    expect(first.detail as SetEnvelope).toMatchObject({ control: '0001', accepted: true, lines: { first: 3, last: 11 } });
    const last = rest.at(-1)!.detail as SetEnvelope;
    expect(last).toMatchObject({ control: String(sets), accepted: false, segments: 9, lines: { first: 3 + 9 * (sets - 1), last: 11 + 9 * (sets - 1) } });
    expect(last.refusals).toEqual([{ reason: 'set-segment-count', code: '4', detail: 'SE01 says 8 segments, the set has 9' }]);
  });
});

describe("an X12 file's sets' rows, tallied from its result file's rows", () => {
  const read = async (sets: number) => routeX12(JOB, await loadMappings(join(import.meta.dirname, '../../mappings')), {}, () => Readable.from([Buffer.from(interchange945(PIPE, 8, 1, sets))]), 'two.edi');

  it('counts a row of several lines once, by status per set, adds the data errors it names to their set, and starts again when reset', async () => {
    const reading = await read(2);
    const [first, second] = reading.interchanges[0].result.groups[0].sets;
    const tally = new SetRowsTally(reading);
    const feed = () => {
      // Set 0001 is lines 3–11, 0002 12–20: a row of lines 3–6 (seq 3) and one of 7–11 (seq 7); in 0002 an error naming W12's element 03.
      for (const line of [3, 4, 5, 6]) tally.row(line, 3, 'ok', []);
      for (const line of [7, 8, 9, 10, 11]) tally.row(line, 7, 'uncertain', []);
      tally.row(12, 12, 'error', ['two.edi, interchange 000000008, set 0002, segment 7 (W12), element 03: "3,250" is not a number']);
    };
    feed();
    tally.row(21, 21, 'ok', []);
    tally.reset();
    feed();
    const rows = tally.finish();
    expect(rows.get(first)).toEqual({ first: 3, last: 7, statuses: { ok: 1, uncertain: 1 } });
    expect(rows.get(second)).toEqual({ first: 12, last: 12, statuses: { error: 1 } });
    expect(second.refusals.map((r) => r.reason)).toEqual(['set-data']);
    expect(second.segmentErrors).toEqual([{ segmentId: 'W12', index: 7, code: '8', elements: [{ element: 3, component: undefined, code: '6', copy: '3,250' }] }]);
    expect(first.refusals).toEqual([]);
  });
});
