import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { fileRowsReport, formatFileRows } from '../../src/service/file-rows.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { writeInterchange } from '../../src/x12/index.js';
import { parseCsv } from '../pipeline/helpers.js';
import { baseConfig, tempConfig, until } from '../service/support.js';
import { useConsoleBrowser } from './browser-support.js';
import { CONSOLE_TOKEN, consoleClient } from './support.js';

/**
 * In Debian's chromium, against the emulator: a mailbox file of two interchanges — NWL's 945 sample (no partner
 * profile: two sets applied, one with a bad quantity, one its SE01 refuses) and one from partner ACME holding an 856
 * no route takes — processed by a running bridge, then its page: the interchanges, groups and sets with their
 * verdicts and reasons, each set's rows, the acknowledgement written for it; and its result file lists every line
 * of every set with its status.
 */
const { emu, shots, cleanups, newPage } = useConsoleBrowser();

const SAMPLE = readFileSync(join(import.meta.dirname, '../../samples/NWL_945_20261120.edi'), 'utf8');
const AT = new Date('2026-11-20T23:05:00Z');

function acmeInterchange(): string {
  return writeInterchange({ element: '|', component: ':', segment: '~', repetition: '^', lineBreak: '\n' },
    { senderQualifier: 'ZZ', sender: 'ACMEWMS', receiverQualifier: 'ZZ', receiver: 'WISBRIDGE', at: AT, control: 812, version: '00401', usage: 'T' },
    [{ header: { functionalId: 'SH', sender: 'ACMEWMS', receiver: 'WISBRIDGE', at: AT, control: 7, version: '004010' }, sets: [{ id: '856', control: 1, segments: [['BSN', '00', 'ASN-1', '20261120', '2305']] }] }]);
}

const config = (url: string) => `${baseConfig(url)}
inbound:
  - name: edi
    drop: wms
    service: main
    x12:
      - { transaction_set: "945", mapping: x12-945-customer-shipment-ship }
partners:
  ACME:
    them: { qualifier: ZZ, id: ACMEWMS }
    us: { qualifier: ZZ, id: WISBRIDGE }
    separators: { element: "|", component: ":", segment: "~", line_break: false }
metrics: { host: 127.0.0.1, port: 0 }
console:
  auth: { bearer_token: { file: console-token } }
`;

const text = (page: Page, selector: string) => page.$eval(selector, (e) => (e.textContent ?? '').replace(/\s+/g, ' ').trim());
const follow = (page: Page, selector: string) => Promise.all([page.waitForNavigation(), page.click(selector)]);

describe('an X12 file on its page', () => {
  it('shows its interchanges, groups and sets with their verdicts, each set\'s rows, and the acknowledgement written', async () => {
    const env = await tempConfig(config(emu.url), { load: false });
    writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN + '\n');
    const { loadConfig } = await import('../../src/config/load.js');
    const bridge = new BridgeService(await loadConfig(env.file), { runners: flowRunners });
    await bridge.start();
    cleanups.push(async () => {
      await bridge.stop('test');
      env.cleanup();
    });
    writeFileSync(join(env.dir, 'drop', 'inbox', 'NWL_mailbox.edi'), SAMPLE + acmeInterchange());
    const journal = await bridge.runtime.journal();
    const file = await until(async () => (await journal.listFiles({ limit: 5 })).find((f) => f.status !== 'processing' && f.x12Ack !== null && f.disposedTo !== null), 'the mailbox to be processed');
    expect(file.status).toBe('failed');

    const page = await newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${bridge.url!}/console/login`);
    await page.type('input[name=token]', CONSOLE_TOKEN);
    await follow(page, '#login button');
    await page.goto(`${bridge.url!}/console/files/${file.fileId}`);

    expect(await text(page, '#x12-summary')).toBe('2 interchange(s), 2 group(s), 5 set(s); 3 refused · acknowledgement NWL_mailbox.ack.edi');
    const lines = await page.$$eval('#x12-envelopes tbody tr', (trs) => trs.map((tr) => [tr.getAttribute('data-level'), tr.getAttribute('data-control'),
      ...Array.from(tr.querySelectorAll('td')).map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())]));
    expect(lines.map(([level, control, , , , , , , verdict]) => [level, control, verdict])).toEqual([
      ['interchange', '000004711', 'accepted'],
      ['group', '1', 'partly accepted AK9 P'],
      ['set', '0001', 'accepted'], ['set', '0002', 'accepted'], ['set', '0003', 'refused'], ['set', '0004', 'refused'],
      ['interchange', '000000812', 'accepted'],
      ['group', '7', 'no set accepted AK9 R'],
      ['set', '0001', 'refused'],
    ]);
    const [nwl, nwlGroup, , , bad, counted, acme, acmeGroup, unsupported] = lines;
    expect(nwl.slice(2, 8)).toEqual(['interchange 1', 'ISA13 000004711', 'ZZ/NWLWMS → ZZ/WISBRIDGE (no partner profile)', '2026-11-20 23:05', '00401 · P (production)', '1 group(s)']);
    expect(nwl[10]).toBe('997 in reply ISA13 000000001');
    expect(nwlGroup.slice(2, 8)).toEqual(['group SW', 'GS06 1', 'NWLWMS → WISBRIDGE', '', '004010', '4 set(s) received, 2 accepted']);
    expect(nwlGroup[10]).toBe('GS06 1 ST02 0001');
    // A bad quantity refuses its set (AK5 R 5) once the rows are decided; the set SE01 miscounts is refused by its envelope.
    expect(bad[9]).toBe('1 segments in error (set-data, code 5)');
    expect(bad[10]).toBe('1 row(s) → 1 error');
    expect(counted[7]).toBe('8 segment(s), lines 40–47');
    expect(counted[9]).toBe('SE01 says 9 segments, the set has 8 (set-segment-count, code 4)');
    expect(acme.slice(4, 7)).toEqual(['ZZ/ACMEWMS → ZZ/WISBRIDGE (partner ACME)', '2026-11-20 23:05', '00401 · T (test)']);
    expect(acme[10]).toBe('997 in reply ISA13 000000001');
    expect(acmeGroup[10]).toBe('GS06 1 ST02 0001');
    expect(unsupported.slice(2, 4)).toEqual(['set 856', 'ST02 0001']);
    expect(unsupported[9]).toBe('no mapping of job edi reads a 856 set from ACME (set-unsupported, code 1)');
    await page.screenshot({ path: join(shots, 'console-x12.png') as `${string}.png`, fullPage: true });

    // A set's rows: the rows table holds those of its lines only, each with its status.
    await follow(page, '#x12-envelopes tr[data-level=set][data-control="0002"] a.set-rows');
    expect(await text(page, '#set-rows')).toBe('the rows of one X12 set · all rows');
    const rows = await page.$$eval('#rows tbody tr', (trs) => trs.map((tr) => [tr.querySelector('td')?.textContent, tr.getAttribute('data-status'), tr.querySelector('td:nth-child(2)')?.textContent]));
    expect(rows).toEqual([['18–30 (13)', 'ok', 'SO-1127']]);
    await page.goto(`${bridge.url!}/console/files/${file.fileId}`);
    await follow(page, '#x12-envelopes tr[data-level=set][data-control="0003"] a.set-rows');
    expect(await page.$$eval('#rows tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-status')))).toEqual(['error']);
    expect(await text(page, '#rows tbody tr')).toContain('set 0003, segment 7 (W12), element 03: "3,250" is not a number');

    // `status --file` says the same in short.
    const status = formatFileRows(await fileRowsReport(journal, 'NWL_mailbox.edi', { limit: 0 }));
    expect(status).toContain('X12: 2 interchange(s), 2 group(s), 5 set(s), 3 refused; acknowledgement NWL_mailbox.ack.edi');
    expect(status).toContain('  refused: interchange 000004711, group 1, set 0004 (945): SE01 says 9 segments, the set has 8 (set-segment-count, code 4)');
    expect(status).toContain('  refused: interchange 000000812, group 7, set 0001 (856): no mapping of job edi reads a 856 set from ACME (set-unsupported, code 1)');

    // The acknowledgement downloads from the outbox, as written.
    const client = consoleClient(bridge.url!);
    const ack = await client.get(`/console/files/${file.fileId}/ack`);
    expect(ack.status).toBe(200);
    expect(ack.headers.get('content-disposition')).toContain('NWL_mailbox.ack.edi');
    expect(ack.text).toBe(readFileSync(join(env.dir, 'drop', 'outbox', 'NWL_mailbox.ack.edi'), 'utf8'));
    expect(ack.text).toContain('AK2*945*0003~\nAK3*W12*7**8~');

    // The result file lists every line of every set with its status: each set's lines as the page gives them.
    const result = parseCsv((await client.get(`/console/files/${file.fileId}/result`)).text);
    const statusOf = new Map(result.map((r) => [Number(r.line), r.status]));
    const sets: Array<[string, number, number, string]> = [['0001', 3, 17, 'ok'], ['0002', 18, 30, 'ok'], ['0003', 31, 39, 'error'], ['0004', 40, 47, 'error']];
    for (const [control, first, last, status] of sets) {
      for (let line = first; line <= last; line++) expect(statusOf.get(line), `set ${control}, line ${line}`).toBe(status);
    }
    const acmeSet = /lines (\d+)–(\d+)/.exec(String(unsupported[7]))!.slice(1).map(Number);
    for (let line = acmeSet[0]; line <= acmeSet[1]; line++) expect(statusOf.get(line), `the 856, line ${line}`).toBe('error');
    // Nothing else: the ISA, GS, GE and IEA of an accepted interchange belong to no set.
    const setLines = [...sets.flatMap(([, first, last]) => Array.from({ length: last - first + 1 }, (_, i) => first + i)), acmeSet[0], acmeSet[0] + 1, acmeSet[1]];
    expect([...statusOf.keys()].sort((a, b) => a - b)).toEqual(setLines);
    await page.close();
  });
});
