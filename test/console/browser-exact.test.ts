import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { until } from '../service/support.js';
import { bridgeWithFailures, CONSOLE_TOKEN } from './support.js';
import { useConsoleBrowser } from './browser-support.js';

/**
 * In Debian's chromium: what the console offers and says is exactly what it does (re-drive counts, results
 * after a POST, durations, every file event, one alert inbox, labelled counts).
 */
const { emu, cleanups, newPage } = useConsoleBrowser();

async function signedIn(url: string): Promise<Page> {
  const page = await newPage();
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(`${url}/console`);
  await page.type('input[name=token]', CONSOLE_TOKEN);
  await follow(page, '#login button');
  return page;
}

async function follow(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

/** KORR rows as written (quantities as text, so that the mapping can reject one). */
const korrLines = (rows: Array<[string, string, string]>) =>
  ['Artikel;Menge;Grund;Beleg;Datum;Charge;Mandant', ...rows.map(([sku, q, ref]) => `${sku};${q};Korrektur;${ref};19.11.2026;;`)].join('\r\n') + '\r\n';

/** Drops a file into the bridge's inbox and waits until the journal has it finished. */
async function processed(b: Awaited<ReturnType<typeof bridgeWithFailures>>, name: string, content: string) {
  const journal = await b.bridge.runtime.journal();
  writeFileSync(join(b.env.dir, 'drop', 'inbox', name), content);
  const file = await until(async () => (await journal.listFiles({ limit: 20 })).find((f) => f.name === name && f.disposedTo !== null), name);
  await until(() => !b.bridge.jobViews()[0].running, 'the run to end');
  return file;
}

describe('console in a real browser: exact actions', () => {
  it('re-drive counts and offers only rows it can send; for rows the mapping rejected it says what to do', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    // One row ok, one rejected by the mapping (no number), one refused by the service (too little stock).
    const file = await processed(b, 'KORR_map.csv', korrLines([['SKU-00001', '1', 'M-1'], ['SKU-00002', 'viele', 'M-2'], ['SKU-00004', '-500', 'M-3']]));
    expect(file.status).toBe('failed');
    expect(file.summary?.error).toBe(2);
    const page = await signedIn(b.url);
    await page.goto(`${b.url}/console/files/${file.fileId}`);
    expect(await text(page, '#redrive')).toBe('Re-drive 1 failed row(s)…');
    expect(await text(page, '#rejected-rows')).toMatch(/1 row\(s\) were rejected by the mapping.*a re-drive cannot send them\. Fix them in the file and drop the corrected rows/s);
    await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    await follow(page, '#redrive');
    expect(await text(page, '#confirm')).toContain('Send the 1 failed row(s) of KORR_map.csv');
    await page.type('input[name=by]', 'Maria');
    await follow(page, '#confirm-button');
    expect(await text(page, '#message')).toMatch(/1 row\(s\) sent again, 1 ok, 0 error/);

    // Only the rejected row is left: no re-drive is offered, and asking for one says why and what to do.
    await page.goto(`${b.url}/console/files/${file.fileId}`);
    const journal = await b.bridge.runtime.journal();
    expect(await page.$('#redrive')).toBeNull();
    expect(await text(page, '#rejected-rows')).toContain('1 row(s) were rejected by the mapping');
    // Point 3: the processing time is the first pass's (the journal keeps it), the re-drive is shown apart.
    const after = await journal.getFile(file.fileId);
    expect(after.processedAt).toBe(file.finishedAt);
    expect(after.finishedAt).not.toBe(file.finishedAt);
    expect(await text(page, '#processing-time')).toMatch(/^in \d+(\.\d)? m?s$/);
    expect(await text(page, '#last-action')).toMatch(/^re-drive 1 \d{4}-\d\d-\d\d /);
    const asked = await page.goto(`${b.url}/console/files/${file.fileId}/redrive`);
    expect(asked?.status()).toBe(409);
    expect(await page.$('#confirm')).toBeNull();
    expect(await text(page, '#message')).toContain('Nothing to re-drive: no row of KORR_map.csv');
    expect(await text(page, '#rejected-rows')).toContain('Fix them in the file');
    await page.close();
  });

  it('an action answers with a redirect to its result: a reload shows the result again, a replayed form is refused; audited once', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const journal = await b.bridge.runtime.journal();
    const a = (await journal.listFiles({ limit: 10 })).find((f) => f.name === 'KORR_a.csv')!;
    await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    const page = await signedIn(b.url);
    await page.goto(`${b.url}/console/files/${a.fileId}/redrive`);
    const token = await page.$eval('input[name=csrf]', (i) => i.getAttribute('value') ?? '');
    await page.type('input[name=by]', 'Maria');
    await follow(page, '#confirm-button');
    expect(page.url()).toMatch(new RegExp(`^${b.url}/console/actions/\\d+$`));
    expect(await text(page, '#message')).toMatch(/re-drive 1: 1 row\(s\) sent again, 1 ok/);
    await page.reload();
    expect(await text(page, '#message')).toMatch(/re-drive 1: 1 row\(s\) sent again, 1 ok/);
    expect(await text(page, '#action-entry')).toContain('redrive by Maria (console token)');

    // The same form sent again (a replayed POST): refused, says so, links the first result.
    const replay = await page.evaluate(async (path, csrf) => {
      const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, by: 'Maria' }).toString(), redirect: 'manual' });
      return { status: res.status, body: await res.text() };
    }, `/console/files/${a.fileId}/redrive`, token);
    expect(replay.status).toBe(409);
    expect(replay.body).toContain('This form was sent already');
    expect(replay.body).toContain('the action was not run again');
    expect(replay.body).toMatch(/href="\/console\/actions\/\d+"/);

    expect((await journal.getFile(a.fileId)).redrives).toBe(1);
    expect((await journal.console.listActions({ limit: 10 })).map((x) => [x.action, x.outcome])).toEqual([['redrive', 'ok']]);
    await page.close();
  });

  it('the overview says what each count counts (files, documents, requests, export records) and links each to its list', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const page = await signedIn(b.url);
    const counts = await page.$$eval('#backlog a.count', (links) => links.map((l) => [l.textContent, l.getAttribute('href')]));
    expect(counts).toEqual([
      ['0 file(s) processing', '/console/files?status=processing'],
      ['1 failed document(s)', '/console/files?status=failed'],
      ['1 uncertain document(s)', '/console/uncertain'],
      ['0 request(s) pending', '/console/progress'],
      ['0 request(s) awaiting an answer', '/console/progress'],
      ['0 export record(s) awaiting acknowledgement', '/console/exports?status=written'],
      ['0 export record(s) awaiting WMS confirmation', '/console/exports?status=written'],
    ]);
    expect(await text(page, '#backlog')).not.toContain('row(s)');
    await follow(page, '#backlog a[href="/console/files?status=failed"]');
    expect(await page.$$eval('#files tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent))).toEqual(['KORR_b.csv', 'KORR_a.csv']);
    await page.close();
  });

  it('one alert inbox in the journal: every kind, one line per subject with a count, linked, acknowledged (audited), kept across a restart', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const journal = await b.bridge.runtime.journal();
    const files = await journal.listFiles({ limit: 10 });
    const a = files.find((f) => f.name === 'KORR_a.csv')!;
    const inbox = join(b.env.dir, 'drop', 'inbox');
    // The inbox cannot be listed for a few polls: one alert, counted.
    renameSync(inbox, `${inbox}.gone`);
    await until(async () => ((await journal.console.listAlerts({ limit: 50 })).open.find((x) => x.kind === 'drop-unreachable')?.times ?? 0) >= 3, 'repeats');
    renameSync(`${inbox}.gone`, inbox);
    const page = await signedIn(b.url);
    await page.goto(`${b.url}/console/alerts`);
    const rows = await page.$$eval('#alerts tbody tr[data-alert]', (trs) => trs.map((tr) => [tr.getAttribute('data-kind'), tr.querySelector('td:nth-child(7) a')?.getAttribute('href') ?? '', Number(tr.querySelector('td:nth-child(8)')?.textContent)]));
    expect(rows.map((r) => r[0]).sort()).toEqual(['drop-unreachable', 'file-failed', 'rows-uncertain']);
    expect(rows.find((r) => r[0] === 'file-failed')).toEqual(['file-failed', `/console/files/${a.fileId}`, 1]);
    expect(rows.find((r) => r[0] === 'drop-unreachable')![2]).toBeGreaterThanOrEqual(3);

    await follow(page, `#alerts tr[data-kind="file-failed"] a.acknowledge`);
    await page.type('input[name=by]', 'Maria');
    await follow(page, '#confirm-button');
    expect(await text(page, '#message')).toContain('acknowledged (file-failed: file KORR_a.csv: 1 document(s) failed; seen 1 time(s)');
    await page.goto(`${b.url}/console/alerts`);
    expect(await page.$('#alerts tr[data-kind="file-failed"]')).toBeNull();
    expect(await text(page, '#acknowledged-alerts')).toContain('Maria (console token)');
    expect((await journal.console.listActions({ limit: 5 })).map((x) => [x.action, x.fileId, x.actor])).toEqual([['acknowledge alert', a.fileId, 'Maria (console token)']]);
    await page.close();

    await b.bridge.stop('test');
    const reopened = await openJournal(b.loaded.journal);
    try {
      const kept = await reopened.console.listAlerts({ limit: 50 });
      expect(kept.open.map((x) => x.kind).sort()).toEqual(['drop-unreachable', 'rows-uncertain']);
      expect(kept.acknowledged.map((x) => [x.kind, x.acknowledgedBy])).toEqual([['file-failed', 'Maria (console token)']]);
    } finally {
      await reopened.close();
    }
  });
});
