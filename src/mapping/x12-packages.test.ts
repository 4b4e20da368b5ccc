import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeInterchange, type SegmentData } from '../x12/index.js';
import { mapInbound, type InboundOutcome } from './inbound.js';
import { formatProblem, parseMapping } from './load.js';
import { TableReferenceIds } from './reference-ids.js';

// A 945 whose LX loops are packages, read the way docs/x12.md (Packages from MAN loops) tells: the SSCC from the MAN
// qualified GM, the tracking number from MAN-05 where MAN-04 is CP (a partner that sends both in one MAN segment).
const PACKAGES_945 = `
document: customerShipments.ship
files: "*.edi"
dialect: { format: x12, transaction_set: "945" }
record_types:
  types:
    W06: {}
    LX: {}
    MAN[GM]: {}
    W12: { emit: true }
    N9[LT]: {}
    N9[SE]: { join: "|" }
request:
  key: W06-02
  fields:
    id: { column: W06-02, id_of: customerShipment }
  lists:
    packages:
      key: LX-01
      fields:
        override_sscc: { column: "MAN[GM]-02", transforms: [{ regex: { pattern: "^(?:00)?(\\\\d{18})$" } }] }
        tracking_number:
          concat: ["MAN[GM]-04", "MAN[GM]-05"]
          separator: "="
          transforms: [{ regex: { pattern: "^(?:CP=(.+)|.*)$" } }]
      lists:
        items:
          fields:
            product_code: W12-08
            quantity: { column: W12-03, type: number }
            lot.number: "N9[LT]-02"
            serial_numbers: { column: "N9[SE]-02", split: "|" }
`;

const AT = new Date(Date.UTC(2026, 10, 20, 23, 5));
const w12 = (sku: string, qty: string): SegmentData => ['W12', 'CC', qty, qty, '', 'EA', '', 'VN', sku];

async function run(segments: SegmentData[]): Promise<InboundOutcome[]> {
  const { mapping, problems } = parseMapping(PACKAGES_945, 'packages.yaml');
  expect(problems.map(formatProblem)).toEqual([]);
  const text = writeInterchange({ element: '*', component: ':', segment: '~', lineBreak: '\n' },
    { senderQualifier: 'ZZ', sender: 'HLXWMS', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', at: AT, control: 7 },
    [{ header: { functionalId: 'SW', sender: 'HLXWMS', receiver: 'WISBRIDGE', at: AT, control: 1, version: '004010' }, sets: [{ id: '945', control: 1, segments }] }]);
  const out: InboundOutcome[] = [];
  const referenceIds = new TableReferenceIds({ customerShipment: { 'SO-1': 1 } });
  for await (const o of mapInbound(Readable.from([Buffer.from(text)]), mapping!, { fileName: 'HLX_7.edi', referenceIds })) out.push(o);
  return out;
}

const sent = (outcomes: InboundOutcome[]) => outcomes.flatMap((o) => (o.kind === 'batch' ? o.documents.map((d) => d.item) : []));
const rejected = (outcomes: InboundOutcome[]) => outcomes.flatMap((o) => (o.kind === 'rejected' ? o.errors.map((e) => e.message) : []));

describe('packages from the MAN loops of a 945', () => {
  it('makes each LX a package: the SSCC-18 from MAN GM (without the AI 00), its tracking number from MAN-05 only where MAN-04 is CP', async () => {
    const outcomes = await run([
      ['W06', 'F', 'SO-1', '20261120'],
      ['LX', '1'], ['MAN', 'GM', '00004012345000000012', '', 'CP', '1Z999AA10123456784'], w12('SKU-1', '2'), ['N9', 'LT', 'LOT-A'], w12('SKU-2', '1'), ['N9', 'SE', 'SN-1'],
      ['LX', '2'], ['MAN', 'GM', '004012345000000029', '', 'ZZ', 'not a tracking number'], w12('SKU-1', '1'),
      ['LX', '3'], ['MAN', 'GM', '004012345000000036'], w12('SKU-3', '4'),
    ]);
    expect(rejected(outcomes)).toEqual([]);
    expect(sent(outcomes)).toEqual([{
      id: 1,
      packages: [
        { override_sscc: '004012345000000012', tracking_number: '1Z999AA10123456784', items: [{ product_code: 'SKU-1', quantity: 2, lot: { number: 'LOT-A' } }, { product_code: 'SKU-2', quantity: 1, serial_numbers: ['SN-1'] }] },
        { override_sscc: '004012345000000029', items: [{ product_code: 'SKU-1', quantity: 1 }] },
        { override_sscc: '004012345000000036', items: [{ product_code: 'SKU-3', quantity: 4 }] },
      ],
    }]);
  });

  it('refuses an SSCC that is not 18 digits (with or without the AI 00), naming the MAN segment and element', async () => {
    const outcomes = await run([['W06', 'F', 'SO-1', '20261120'], ['LX', '1'], ['MAN', 'GM', '4012345000000012'], w12('SKU-1', '2')]);
    expect(sent(outcomes)).toEqual([]);
    expect(rejected(outcomes)).toEqual(['HLX_7.edi, interchange 000000007, set 0001, segment 4 (MAN), element 02: "4012345000000012" does not match /^(?:00)?(\\d{18})$/']);
  });
});
