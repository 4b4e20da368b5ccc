import { describe, expect, it } from 'vitest';
import { acknowledgementInterchange, addSegmentErrors, functionalAck } from './ack.js';
import { segmentsOf } from './reader.js';
import { MAX_LISTED_SETS } from './envelope.js';
import { checkEnvelopes } from './stream.js';
import { AT, PIPE, STAR_CRLF, interchange945 } from './test-support.js';
import { X12Writer } from './writer.js';

const lines = (text: string) => segmentsOf(text).map((s) => s.fields.join('*'));

describe('997/999 and TA1', () => {
  it('answers a group with an errored set: AK3/AK4 name the segment and element, AK5 R, AK9 P with the counts', async () => {
    const [interchange] = await checkEnvelopes([Buffer.from(interchange945(STAR_CRLF, 4711, 1, 3))]);
    const group = interchange.groups[0];
    addSegmentErrors(group.sets[1], [{ segmentId: 'W12', index: 5, code: '8', elements: [{ element: 3, code: '6', reference: '382', copy: '3,250' }] }]);
    const ack = functionalAck(group, 17);
    const writer = new X12Writer(PIPE);
    writer.interchangeStart({ senderQualifier: 'ZZ', sender: 'WISBRIDGE', receiverQualifier: 'ZZ', receiver: 'NWLWMS', at: AT, control: 1 });
    writer.groupStart({ functionalId: 'FA', sender: 'WISBRIDGE', receiver: 'NWLWMS', at: AT, control: 1, version: '004010' });
    expect(lines(`${interchange945(PIPE, 9, 1, 1).slice(0, 106)}${writer.set(ack)}`).slice(1)).toEqual([
      'ST*997*0017',
      'AK1*SW*1',
      'AK2*945*0001', 'AK5*A',
      'AK2*945*0002', 'AK3*W12*5**8', 'AK4*3*382*6*3,250', 'AK5*R*5',
      'AK2*945*0003', 'AK5*A',
      'AK9*P*3*3*2',
      'SE*12*0017',
    ]);
  });

  it('names every refused set but only the first MAX_LISTED_SETS accepted ones of a large group, counting them all', async () => {
    const sets = MAX_LISTED_SETS + 50;
    const text = interchange945(PIPE, 8, 1, sets).replace(`SE|9|${sets}~`, `SE|8|${sets}~`);
    const [interchange] = await checkEnvelopes([Buffer.from(text)]);
    const group = interchange.groups[0];
    expect([group.received, group.sets.length]).toEqual([sets, MAX_LISTED_SETS + 1]);
    expect(group.sets.at(-1)?.refusals.map((r) => r.reason)).toEqual(['set-segment-count']);
    const ack = functionalAck(group, 1);
    expect(ack.segments.at(-1)).toEqual(['AK9', 'P', String(sets), String(sets), String(sets - 1)]);
    expect(ack.segments.at(-2)).toEqual(['AK5', 'R', '4']);
  });

  it('answers 005010 groups with a 999 (IK3/IK4/IK5), a component\'s position as a composite', async () => {
    const text = interchange945(PIPE, 5, 1, 1).replace('|004010~', '|005010~');
    const [interchange] = await checkEnvelopes([Buffer.from(text)]);
    addSegmentErrors(interchange.groups[0].sets[0], [{ segmentId: 'W27', index: 3, code: '8', elements: [{ element: 2, component: 1, code: '7' }] }]);
    const ack = functionalAck(interchange.groups[0], 1);
    expect(ack.id).toBe('999');
    expect(ack.convention).toBe('005010X231A1');
    expect(ack.segments).toEqual([
      ['AK1', 'SW', '1', '005010'], ['AK2', '945', '0001'], ['IK3', 'W27', '3', '', '8'], ['IK4', ['2', '1'], '', '7'], ['IK5', 'R', '5'], ['AK9', 'R', '1', '1', '0'],
    ]);
  });

  it('answers a refused group with AK9 R and its code, every set still named', async () => {
    const [interchange] = await checkEnvelopes([Buffer.from(interchange945(PIPE, 6, 1, 2).replace('GE|2|1~', 'GE|2|8~'))]);
    const ack = functionalAck(interchange.groups[0], 1);
    expect(ack.segments.at(-1)).toEqual(['AK9', 'R', '2', '2', '0', '4']);
    expect(ack.segments.filter((s) => s[0] === 'AK2')).toHaveLength(2);
  });

  it('answers a refused interchange with a TA1 R and no 997, addressed back to its sender', async () => {
    const received = interchange945(STAR_CRLF, 4711, 2, 1).replace('IEA*2*000004711', 'IEA*2*000004712');
    const [interchange] = await checkEnvelopes([Buffer.from(received)]);
    const reply = acknowledgementInterchange(interchange, PIPE, { interchange: 90, group: 3 }, AT);
    const segments = segmentsOf(reply);
    expect(segments.map((s) => s.id)).toEqual(['ISA', 'TA1', 'IEA']);
    expect([segments[0].element(6).trim(), segments[0].element(8).trim()]).toEqual(['WISBRIDGE', 'NWLWMS']);
    expect(segments[1].fields).toEqual(['TA1', '000004711', '261201', '2305', 'R', '001']);
    expect(segments[2].fields).toEqual(['IEA', '0', '000000090']);
  });

  it('answers an accepted interchange with one 997 per group in one FA group, and the reply passes its own envelope check', async () => {
    const [interchange] = await checkEnvelopes([Buffer.from(interchange945(STAR_CRLF, 4711, 2, 2))]);
    const reply = acknowledgementInterchange(interchange, STAR_CRLF, { interchange: 91, group: 4, firstSet: 10 }, AT);
    const [checked] = await checkEnvelopes([Buffer.from(reply)]);
    expect(checked.refusals).toEqual([]);
    expect(checked.groups.map((g) => [g.functionalId, g.control, g.sets.map((s) => [s.id, s.control, s.refusals])])).toEqual([
      ['FA', '4', [['997', '0010', []], ['997', '0011', []]]],
    ]);
    expect(lines(reply).filter((l) => l.startsWith('AK1') || l.startsWith('AK9'))).toEqual(['AK1*SW*1', 'AK9*A*2*2*2', 'AK1*SW*2', 'AK9*A*2*2*2']);
  });

  it('puts a TA1 A before the groups when the sender asked for one (ISA14 = 1)', async () => {
    const received = interchange945(PIPE, 12, 1, 1).replace(/\|0\|P\|>~/, '|1|P|>~');
    const [interchange] = await checkEnvelopes([Buffer.from(received)]);
    expect(interchange.acknowledgementRequested).toBe(true);
    const ids = segmentsOf(acknowledgementInterchange(interchange, PIPE, { interchange: 1, group: 1 }, AT)).map((s) => s.fields.slice(0, 5).join('*'));
    expect(ids.slice(1, 3)).toEqual(['TA1*000000012*261201*2305*A', 'GS*FA*WISBRIDGE*NWLWMS*20261201']);
  });
});
