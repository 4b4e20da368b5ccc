import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { X12Writer, checkEnvelopes, segmentsOf, writeInterchange, type InterchangeResult, type SegmentData, type SetData } from '../x12/index.js';
import { mapInbound, type InboundOutcome } from './inbound.js';
import { checkMappings } from './folder.js';
import { formatProblem, parseMapping } from './load.js';
import type { Mapping } from './mapping.js';
import { TableReferenceIds } from './reference-ids.js';

const SEPARATORS = { element: '*', component: '>', segment: '~', lineBreak: '\n' };
const AT = new Date(Date.UTC(2026, 10, 20, 23, 5));

const SHIP_945 = `
document: customerShipments.ship
files: "*.edi"
dialect: { format: x12, transaction_set: "945" }
record_types:
  types:
    W06: {}
    N9[CN,2I]: {}
    W27: {}
    LX: {}
    W12: { emit: true }
    N9[LT]: {}
    N9[SE]: { join: "|" }
tables:
  scac: { UPSN: UPS, DHLC: DHL }
request:
  key: W06-02
  fields:
    id: { column: W06-02, id_of: customerShipment }
    carrier: { column: W27-02, transforms: [{ lookup: { table: scac } }] }
    tracking_number: "N9[CN,2I]-02"
  lists:
    lines:
      fields:
        product_code: W12-08
        quantity: { column: W12-03, type: number }
        lot.number: "N9[LT]-02"
        serial_numbers: { column: "N9[SE]-02", split: "|" }
`;

function mappingOf(yaml: string): Mapping {
  const { mapping, problems } = parseMapping(yaml, 'test.yaml');
  expect(problems.map(formatProblem)).toEqual([]);
  return mapping!;
}

/** One interchange: a group of the given sets, and a group of each other kind given. */
function interchange(control: number, sets: SetData[], others: { functionalId: string; sets: SetData[] }[] = []): string {
  const group = (functionalId: string, n: number) => ({ functionalId, sender: 'NWLWMS', receiver: 'WISBRIDGE', at: AT, control: n, version: '004010' });
  return writeInterchange(SEPARATORS, { senderQualifier: 'ZZ', sender: 'NWLWMS', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', at: AT, control }, [
    { header: group('SW', 1), sets },
    ...others.map((o, i) => ({ header: group(o.functionalId, i + 2), sets: o.sets })),
  ]);
}

const w12 = (sku: string, qty: string): SegmentData => ['W12', 'CC', qty, qty, '', 'EA', '', 'VN', sku];
const order = (control: number, so: string, body: SegmentData[], head: SegmentData[] = [['W27', 'M', 'UPSN', 'UPS GROUND']]): SetData => ({
  id: '945', control, segments: [['W06', 'F', so, '20261120'], ['N1', 'ST', 'ACME STORE 12'], ...head, ...body, ['W03', '1', '1', 'LB']],
});

const references = new TableReferenceIds({ customerShipment: { 'SO-1': 1, 'SO-2': 2, 'SO-3': 3 } });

/**
 * The outcomes of a file, mapped twice: with its envelope verdicts read before (rows go on as read, as the pipeline
 * maps) and without (rows held until each IEA); both must give the same.
 */
async function run(text: string, mapping = mappingOf(SHIP_945)): Promise<InboundOutcome[]> {
  const map = async (x12Verdicts?: InterchangeResult[]) => {
    const out: InboundOutcome[] = [];
    for await (const o of mapInbound(Readable.from([Buffer.from(text)]), mapping, { fileName: 'NWL_4711.edi', referenceIds: references, x12Verdicts })) out.push(o);
    return out;
  };
  const held = await map();
  expect(await map(await checkEnvelopes([Buffer.from(text)], { file: 'NWL_4711.edi' }))).toEqual(held);
  return held;
}

const sent = (outcomes: InboundOutcome[]) => outcomes.flatMap((o) => (o.kind === 'batch' ? o.documents.map((d) => d.item) : []));
const rejected = (outcomes: InboundOutcome[]) => outcomes.flatMap((o) => (o.kind === 'rejected' ? [{ lines: o.lines, errors: o.errors.map((e) => e.message) }] : []));

describe('the x12 dialect', () => {
  it('makes a row of each W12, carries W06 and W27 into it, and takes the N9s after it by their qualifier', async () => {
    const text = interchange(4711, [
      order(1, 'SO-1', [['LX', '1'], w12('SKU-1', '2'), ['N9', 'LT', 'LOT-A'], ['LX', '2'], w12('SKU-2', '4'), ['N9', 'SE', 'SN-1'], ['N9', 'ZZ', 'not mapped'], ['N9', 'SE', 'SN-2']],
        [['N9', 'CN', '1Z999'], ['W27', 'M', 'UPSN', 'UPS GROUND']]),
      order(2, 'SO-2', [['LX', '1'], w12('SKU-3', '1')], [['N9', '2I', 'JD0146'], ['W27', 'M', 'DHLC', 'DHL EXPRESS']]),
    ]);
    const outcomes = await run(text);
    expect(rejected(outcomes)).toEqual([]);
    expect(sent(outcomes)).toEqual([
      {
        id: 1, carrier: 'UPS', tracking_number: '1Z999',
        // The lot of the first LX loop is not carried into the second: LX clears what is listed after it.
        lines: [{ product_code: 'SKU-1', quantity: 2, lot: { number: 'LOT-A' } }, { product_code: 'SKU-2', quantity: 4, serial_numbers: ['SN-1', 'SN-2'] }],
      },
      { id: 2, carrier: 'DHL', tracking_number: 'JD0146', lines: [{ product_code: 'SKU-3', quantity: 1 }] },
    ]);
  });

  it('keeps a head segment sent out of the listed order, and clears only what a row took', async () => {
    const text = interchange(4711, [order(1, 'SO-1', [['LX', '1'], w12('SKU-1', '2'), ['N9', 'LT', 'LOT-A'], ['LX', '2'], w12('SKU-2', '4')], [['W27', 'M', 'UPSN'], ['N9', 'CN', '1Z999']])]);
    expect(sent(await run(text))).toEqual([{
      id: 1, carrier: 'UPS', tracking_number: '1Z999',
      lines: [{ product_code: 'SKU-1', quantity: 2, lot: { number: 'LOT-A' } }, { product_code: 'SKU-2', quantity: 4 }],
    }]);
  });

  it('accounts for every segment of a set in its document, a segment\'s number in the file standing for its line', async () => {
    const text = interchange(4711, [order(1, 'SO-1', [['LX', '1'], w12('SKU-1', '2'), ['LX', '2'], w12('SKU-2', '4')])]);
    const outcomes = await run(text);
    const batch = outcomes.find((o) => o.kind === 'batch');
    // ISA 1, GS 2, ST 3 … SE 12, GE 13, IEA 14: the envelope of an accepted interchange is not reported.
    expect(batch?.kind === 'batch' && batch.documents[0].lines).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('names the file, interchange, set, segment and element of a value that does not parse', async () => {
    const outcomes = await run(interchange(4711, [order(1, 'SO-1', [['LX', '1'], w12('SKU-1', '1'), ['LX', '2'], w12('SKU-2', '3,250')]), order(2, 'SO-2', [w12('SKU-3', '1')])]));
    expect(rejected(outcomes)).toEqual([{
      lines: [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
      errors: ['NWL_4711.edi, interchange 000004711, set 0001, segment 8 (W12), element 03: "3,250" is not a number'],
    }]);
    expect(sent(outcomes).map((s) => s.id)).toEqual([2]);
  });

  it('gives no row of a set its envelope refuses, and names why; the other sets go on', async () => {
    const text = interchange(4711, [order(1, 'SO-1', [w12('SKU-1', '1')]), order(2, 'SO-2', [w12('SKU-2', '1')]), order(3, 'SO-3', [w12('SKU-3', '1')])])
      .replace('SE*7*0002~', 'SE*6*0002~');
    const outcomes = await run(text);
    expect(sent(outcomes).map((s) => s.id)).toEqual([1, 3]);
    expect(rejected(outcomes)).toEqual([{
      lines: [10, 11, 12, 13, 14, 15, 16],
      errors: ['NWL_4711.edi, interchange 000004711, set 0002: SE01 says 6 segments, the set has 7; refused (set-segment-count, code 4)'],
    }]);
  });

  it('gives no row at all when the interchange is refused: each set and the envelope say why', async () => {
    const text = interchange(4711, [order(1, 'SO-1', [w12('SKU-1', '1')]), order(2, 'SO-2', [w12('SKU-2', '1')])]).replace('IEA*1*000004711~', 'IEA*1*000004712~');
    const outcomes = await run(text);
    expect(sent(outcomes)).toEqual([]);
    const why = 'NWL_4711.edi, interchange 000004711: IEA02 "000004712" is not ISA13 "000004711"; refused (interchange-control-mismatch, code 001)';
    expect(rejected(outcomes)).toEqual([
      { lines: [3, 4, 5, 6, 7, 8, 9], errors: [why] },
      { lines: [10, 11, 12, 13, 14, 15, 16], errors: [why] },
      { lines: [1, 2, 17, 18], errors: [why] },
    ]);
  });

  it('refuses a repeated segment without join, a set with no row and a set of another kind, naming each place', async () => {
    const text = interchange(4711, [
      order(1, 'SO-1', [w12('SKU-1', '1'), ['N9', 'LT', 'A'], ['N9', 'LT', 'B']]),
      order(2, 'SO-2', [['LX', '1']]),
    ], [{ functionalId: 'AW', sets: [{ id: '947', control: 3, segments: [['W15', '20261119', 'ADJ-1']] }] }]);
    expect(rejected(await run(text)).map((r) => r.errors)).toEqual([
      ['NWL_4711.edi, interchange 000004711, set 0002: the set has no W12 segment, so nothing of it would be sent'],
      ['NWL_4711.edi, interchange 000004711, set 0003: a 947 transaction set; mapping test reads 945'],
      ['NWL_4711.edi, interchange 000004711, set 0001, segment 7 (N9): a second N9[LT] in one W12 row; to take several, set record_types.types.N9[LT].join'],
    ]);
  });
  it('refuses an ST outside any group with its interchange; the interchange before it goes on', async () => {
    const good = interchange(4711, [order(1, 'SO-1', [w12('SKU-1', '1')])]);
    const writer = new X12Writer(SEPARATORS);
    const group = (control: number) => ({ functionalId: 'SW', sender: 'NWLWMS', receiver: 'WISBRIDGE', at: AT, control, version: '004010' });
    const loose = order(3, 'SO-3', [w12('SKU-3', '1')]);
    const strayText = [['ST', '945', '0003'] as SegmentData, ...loose.segments, ['SE', String(loose.segments.length + 2), '0003'] as SegmentData].map((d) => writer.segment(d)).join('');
    const broken = writer.interchangeStart({ senderQualifier: 'ZZ', sender: 'NWLWMS', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', at: AT, control: 4712 })
      + writer.groupStart(group(1)) + writer.set(order(2, 'SO-2', [w12('SKU-2', '1')])) + writer.groupEnd()
      + strayText
      + writer.groupStart(group(2)) + writer.set(order(4, 'SO-3', [w12('SKU-4', '1')])) + writer.groupEnd() + writer.interchangeEnd();
    const outcomes = await run(good + broken);
    expect(sent(outcomes).map((s) => s.id)).toEqual([1]);
    const errors = rejected(outcomes).map((r) => r.errors);
    expect(errors).toHaveLength(4); // three sets and the envelope of the refused interchange
    for (const e of errors) expect(e).toEqual([expect.stringMatching(/^NWL_4711\.edi, interchange 000004712: segment ST at offset \d+ stands outside any group; refused \(interchange-content, code 024\)$/)]);
  });

  it('puts every segment of every set of the shipped samples in exactly one outcome', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const { mappings } = await checkMappings(resolve(root, 'mappings'));
    const x12 = mappings.filter((m) => m.dialect.format === 'x12');
    expect(x12.map((m) => m.document).sort()).toEqual(['customerShipments.ship', 'customerShipments.ship', 'inboundTransfers.receive', 'inventory.adjustments', 'inventory.counts', 'outboundTransfers.ship', 'supplierShipments.receive']);
    for (const m of x12) {
      const file = resolve(root, 'mappings', m.definition.samples![0]);
      const bytes = await readFile(file);
      const inSets = segmentsOf(bytes).flatMap((segment, i) => (segment.position.set === undefined ? [] : [i + 1]));
      const lines: number[] = [];
      for await (const o of mapInbound(Readable.from([bytes]), m, { fileName: 'sample.edi', referenceIds: new TableReferenceIds(JSON.parse(await readFile(resolve(root, 'samples/references.json'), 'utf8'))) })) {
        if (o.kind === 'batch') for (const d of o.documents) lines.push(...d.lines);
        else if (o.kind === 'rejected') lines.push(...o.lines);
        else lines.push(o.line);
      }
      expect(lines.sort((a, b) => a - b), m.name).toEqual(inSets);
    }
  });
});

describe('mappings check on an x12 mapping', () => {
  it('reports each mistake at file:line:col with a did-you-mean', () => {
    const broken = SHIP_945
      .replace('product_code: W12-08', 'product_code: W21-08')
      .replace('    N9[SE]: { join: "|" }', '    N9[SE]: { join: "|", emitt: true }');
    const { problems } = parseMapping(broken, 'x12-945.yaml');
    expect(problems.map(formatProblem)).toEqual([
      'x12-945.yaml:13:26: record_types.types.N9[SE].emitt: unknown option; did you mean `emit`?',
    ]);
    const { problems: columns } = parseMapping(SHIP_945.replace('product_code: W12-08', 'product_code: W21-08'), 'x12-945.yaml');
    expect(columns.map(formatProblem)).toEqual([
      'x12-945.yaml:25:23: request.lists.lines.fields.product_code.column: column "W21-08" is not an element of a listed segment (write SEGMENT-NN, SEGMENT one of W06, N9[CN,2I], W27, LX, W12, N9[LT], N9[SE]); did you mean W12-08?',
    ]);
  });

  it('asks for the row start and refuses a segment name it cannot read', () => {
    expect(parseMapping(SHIP_945.replace('W12: { emit: true }', 'W12: {}'), 'm.yaml').problems.map(formatProblem)).toEqual([
      expect.stringMatching(/^m\.yaml:\d+:\d+: record_types\.types\.W06: mark the segment that starts a row with emit: true/),
    ]);
    expect(parseMapping(SHIP_945.replace('N9[LT]: {}', 'N9[LT: {}'), 'm.yaml').problems.map(formatProblem)).toEqual([
      expect.stringMatching(/^m\.yaml:12:12: record_types\.types\.N9\[LT: "N9\[LT" is not a segment: write its id/),
    ]);
  });
});
