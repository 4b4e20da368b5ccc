import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { bridgeWithFailures, CONSOLE_TOKEN } from './support.js';
import { useConsoleBrowser } from './browser-support.js';

/** Times in the configured zone (UTC on hover), and the audit log naming lines, in Debian's chromium. */
const { emu, cleanups, newPage } = useConsoleBrowser();

const follow = (page: Page, selector: string) => Promise.all([page.waitForNavigation(), page.click(selector)]);
const berlin = (iso: string) => new Intl.DateTimeFormat('sv-SE', {
  timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
}).format(new Date(iso));

describe('console times', () => {
  it('console.timezone: every time in Europe/Berlin with the UTC time on hover; the actions log names the line, not the item id', async () => {
    const b = await bridgeWithFailures(emu, 'auth: { bearer_token: { file: console-token } }\n  timezone: Europe/Berlin');
    cleanups.push(() => b.close());
    const files = await (await b.bridge.runtime.journal()).listFiles({ limit: 10 });
    const page = await newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${b.url}/console`);
    await page.type('input[name=token]', CONSOLE_TOKEN);
    await follow(page, '#login button');

    await page.goto(`${b.url}/console/files`);
    const headers = await page.$$eval('#files th', (ths) => ths.map((th) => th.textContent));
    expect(headers).toContain('claimed (Europe/Berlin)');
    const cells = await page.$$eval('#files tbody tr td time', (times) => times.map((t) => [t.textContent, t.getAttribute('title'), t.getAttribute('datetime')]));
    expect(cells).toEqual(files.map((f) => [berlin(f.claimedAt), `${f.claimedAt.slice(0, 19).replace('T', ' ')} UTC`, f.claimedAt]));
    // November: Berlin is an hour ahead of UTC.
    expect(cells[0][0]!.slice(11, 13)).toBe(String((Number(files[0].claimedAt.slice(11, 13)) + 1) % 24).padStart(2, '0'));

    // Resolve the uncertain row of KORR_b (its line 2): the actions log says "line 2".
    await page.goto(`${b.url}/console/uncertain`);
    await follow(page, '#uncertain a[href*="/resolve"]');
    await page.click('input[name=resolution][value=applied]');
    await page.type('textarea[name=note]', 'found in the service');
    await page.type('input[name=by]', 'Maria');
    await follow(page, '#confirm-button');
    await page.goto(`${b.url}/console/actions`);
    const row = await page.$$eval('#actions tbody tr', (trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent ?? '')));
    const resolved = row.find((cells) => cells[3] === 'resolve applied')!;
    expect(resolved[5]).toBe('line 2');
    expect(await page.$eval('#actions tbody tr td time', (t) => t.getAttribute('title'))).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await page.close();
  });
});
