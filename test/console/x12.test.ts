import { describe, expect, it } from 'vitest';
import type { X12EnvelopeEntry } from '../../src/journal/index.js';
import { useCleanups } from '../service/support.js';
import { seededConsole } from './seeded.js';
import { consoleClient } from './support.js';

/**
 * The X12 section of a file's page over HTTP, from envelopes seeded in the journal as the pipeline records them: paged
 * 50 at a time, partner data escaped, a file with no X12 envelopes without the section, and an acknowledgement no
 * longer in the outbox answered 404.
 */
const cleanups = useCleanups();

const entry = (ord: number, level: X12EnvelopeEntry['level'], detail: object): X12EnvelopeEntry => ({ ord, level, detail: JSON.stringify(detail) });

const SETS = 70;

function mailboxEntries(): X12EnvelopeEntry[] {
  return [
    entry(0, 'file', { interchanges: 1, groups: 1, sets: SETS, listed: SETS, refused: 1, rowsRead: false }),
    entry(1, 'interchange', {
      index: 1, control: '000000042', senderQualifier: 'ZZ', sender: '<b>EVIL</b>', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', date: '261120',
      time: '2305', version: '00401', usage: 'P', acknowledgementRequested: false, reply: 0, replyKind: '997', groups: 1, refusals: [],
    }),
    entry(2, 'group', {
      interchange: '000000042', index: 0, reply: 0, functionalId: 'SW', control: '9', version: '004010', sender: 'X', receiver: 'Y',
      received: SETS, accepted: SETS - 1, listed: SETS, verdict: 'P', refusals: [],
    }),
    ...Array.from({ length: SETS }, (_, i) => entry(3 + i, 'set', {
      interchange: '000000042', group: '9', id: '945', control: String(i + 1).padStart(4, '0'), segments: 9, lines: { first: 3 + 9 * i, last: 11 + 9 * i },
      accepted: i !== SETS - 1, refusals: i === SETS - 1 ? [{ reason: 'set-segment-count', code: '4', detail: 'SE01 says <8> segments' }] : [],
    })),
  ];
}

describe('console: an X12 file', () => {
  it('pages its envelopes, escapes what partners sent, and has no section for another file', async () => {
    let x12 = 0;
    let csv = 0;
    const served = await seededConsole(async (journal) => {
      x12 = (await journal.claimFile({ drop: 'wms', name: 'mailbox.edi', checksum: 'e'.repeat(64), size: 100, mapping: 'x12-945-customer-shipment-ship' })).fileId;
      await journal.recordX12Envelopes(x12, mailboxEntries());
      await journal.recordX12Ack(x12, JSON.stringify({ name: 'mailbox.ack.edi', replies: [{ interchange: 17, group: 5, firstSet: 30 }] }));
      csv = (await journal.claimFile({ drop: 'wms', name: 'KORR_1.csv', checksum: 'c'.repeat(64), size: 100, mapping: 'inventory-adjustments' })).fileId;
    });
    cleanups.push(() => served.close());
    const client = consoleClient(served.url);

    const first = (await client.get(`/console/files/${x12}`)).text;
    const sets = (text: string) => [...text.matchAll(/data-level="set" data-control="(\d+)"/g)].map((m) => Number(m[1]));
    expect(first).toContain('1 interchange(s), 1 group(s), 70 set(s);\n<b>1 refused</b>');
    expect(first).toContain('each set\'s rows and data errors are shown once the file\'s rows are decided');
    expect(first).toContain('ZZ/&lt;b&gt;EVIL&lt;/b&gt; → ZZ/WISBRIDGE');
    expect(first).not.toContain('<b>EVIL</b>');
    expect(first).toContain('997 in reply ISA13 <code>000000017</code>');
    expect(first).toContain('GS06 <code>5</code> ST02 <code>0030</code>');
    expect(sets(first)).toEqual(Array.from({ length: 47 }, (_, i) => i + 1));
    const next = /id="x12-next" href="([^"]+)"/.exec(first)![1].replace(/&amp;/g, '&');
    expect(next).toBe(`/console/files/${x12}?x12_after=49#x12`);

    const second = (await client.get(next.replace('#x12', ''))).text;
    expect(sets(second)).toEqual(Array.from({ length: 23 }, (_, i) => i + 48));
    expect(second).toContain('from envelope 50 on');
    expect(second).toContain('70 set(s)');
    expect(second).toContain('SE01 says &lt;8&gt; segments <span class="muted">(set-segment-count, code 4)</span>');
    expect(second).toContain('end of the envelopes');

    // The acknowledgement was never written to the outbox here: nothing to download.
    expect((await client.get(`/console/files/${x12}/ack`)).status).toBe(404);
    const other = (await client.get(`/console/files/${csv}`)).text;
    expect(other).not.toContain('X12 envelopes');
    expect((await client.get(`/console/files/${csv}/ack`)).status).toBe(404);
  });
});
