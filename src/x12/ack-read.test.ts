import { describe, expect, it } from 'vitest';
import { functionalAck } from './ack.js';
import { describeGroupAck, describeSetAck } from './ack-codes.js';
import { groupState, readReceivedAcks, setState, startsWithAck } from './ack-read.js';
import type { GroupResult } from './envelope.js';
import { STAR_CRLF, header, AT } from './test-support.js';
import { writeInterchange, type SetData } from './writer.js';

const group = (version: string): GroupResult => ({
  interchange: '000000001', functionalId: 'OW', sender: 'WISBRIDGE', receiver: 'NWLWMS', control: '17', version, received: 2, declaredSets: 2, refusals: [],
  sets: [
    { interchange: '000000001', group: '17', id: '940', control: '0001', ordinal: 1, convention: undefined, segments: 9, refusals: [], segmentErrors: [] },
    {
      interchange: '000000001', group: '17', id: '940', control: '0002', ordinal: 2, convention: undefined, segments: 9, refusals: [{ reason: 'set-data', detail: '1 segment in error' }],
      segmentErrors: [{ segmentId: 'W01', index: 12, code: '8', elements: [{ element: 5, component: 2, code: '7', reference: '234', copy: 'SKU-X' }] }],
    },
  ],
});

/** An interchange from NWLWMS carrying the given 997/999s in one FA group. */
const carrying = (sets: SetData[], version = '004010') => writeInterchange(STAR_CRLF, header(42),
  [{ header: { functionalId: 'FA', sender: 'NWLAPP', receiver: 'WISBRIDGE', at: AT, control: 5, version }, sets }]);

describe('reading a received 997/999', () => {
  it('reads what the bridge\'s own 997 writer writes: group, sets, AK3/AK4 with a component, verdicts, and the sender', async () => {
    const text = carrying([functionalAck(group('004010'), 1)]);
    expect(await startsWithAck([text])).toBe(true);
    const { acks, others, envelopeRefusals } = await readReceivedAcks([text]);
    expect([others, envelopeRefusals]).toEqual([[], []]);
    expect(acks).toHaveLength(1);
    const [ack] = acks;
    expect(ack).toMatchObject({
      kind: '997', ackControl: '0001', functionalId: 'OW', group: '17', code: 'P', declared: 2, received: 2, accepted: 1, reasons: [], refusals: [],
      senderQualifier: 'ZZ', sender: 'NWLWMS         ', applicationSender: 'NWLAPP', interchange: '000000042',
    });
    expect(ack.sets).toEqual([
      { id: '940', control: '0001', code: 'A', reasons: [], errors: [], lines: [5, 6] },
      { id: '940', control: '0002', code: 'R', reasons: ['5'], lines: [7, 8, 9, 10], errors: [{ segmentId: 'W01', position: 12, code: '8', elements: [{ element: 5, component: 2, reference: '234', code: '7', copy: 'SKU-X' }] }] },
    ]);
    expect([groupState(ack.code), setState(ack.sets[0].code), setState(ack.sets[1].code)]).toEqual(['accepted-with-errors', 'accepted', 'rejected']);
    expect(describeSetAck(ack.sets[1])).toBe('AK5 R: rejected, one or more segments in error (5); segment 12 (W01), element 05, component 02: invalid code value (7) "SKU-X"');
    expect(describeGroupAck(ack)).toBe('AK9 P: partially accepted, 1 of 2 sets accepted');
  });

  it('reads a 999 (IK3/IK4/IK5, AK103), and reports other sets and a 997 its own envelope refuses', async () => {
    const v999 = carrying([functionalAck(group('005010'), 3, '999')], '005010X231A1');
    const [ack] = (await readReceivedAcks([v999])).acks;
    expect(ack).toMatchObject({ kind: '999', functionalId: 'OW', group: '17', version: '005010', code: 'P' });
    expect(ack.sets[1]).toMatchObject({ code: 'R', errors: [{ segmentId: 'W01', position: 12, elements: [{ element: 5, component: 2, code: '7' }] }] });

    const broken = carrying([functionalAck(group('004010'), 1), { id: '945', control: 2, segments: [['W06', 'F', 'SO-1']] }]).replace(/SE\*\d+\*0001/, 'SE*12*0001');
    const read = await readReceivedAcks([broken]);
    expect(read.acks[0].refusals).toEqual(['SE01 says 12 segments, the set has 10']);
    expect(read.others).toEqual([{ id: '945', control: '0002', interchange: '000000042', lines: [13, 14, 15] }]);
    expect(await startsWithAck([carrying([{ id: '945', control: 2, segments: [['W06', 'F', 'SO-1']] }])])).toBe(false);
  });
});
