import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { korrFile, until } from '../service/support.js';
import { bridgeWithFailures, CONSOLE_TOKEN } from './support.js';
import { useConsoleBrowser } from './browser-support.js';

/** The console's search in Debian's chromium: from the header's box to the last page of a term many rows carried. */
const { emu, cleanups, newPage } = useConsoleBrowser();

describe('console search in the browser', () => {
  it('a term 75 rows carried: the count, the first 50 rows, "next rows →" to the other 25, and the end of the rows', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const journal = await b.bridge.runtime.journal();
    const inbox = join(b.env.dir, 'drop', 'inbox');
    for (const name of ['KORR_c1.csv', 'KORR_c2.csv', 'KORR_c3.csv']) {
      writeFileSync(join(inbox, name), korrFile(Array.from({ length: 25 }, (_, i) => ['SKU-00009', 1, `${name}-${i}`] as [string, number, string])));
      await until(async () => (await journal.listFiles({ limit: 10 })).some((f) => f.name === name && f.disposedTo !== null), name);
    }
    const page = await newPage();
    await page.setViewport({ width: 1280, height: 720 });
    await page.goto(`${b.url}/console/login`);
    await page.type('input[name=token]', CONSOLE_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('#login button')]);
    await page.type('header form.search input[name=q]', 'sku-00009');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    const summary = () => page.$eval('#search-summary', (p) => p.textContent?.replace(/\s+/g, ' ').trim());
    const rows = () => page.$$eval('#search tbody tr[data-file]', (trs) => trs.map((tr) => `${tr.querySelector('td a')?.textContent}:${tr.getAttribute('data-seq')}`));
    expect(await summary()).toBe('75 row(s) carried sku-00009; rows 1–50 here.');
    const first = await rows();
    expect(first).toHaveLength(50);
    expect(first.filter((r) => r.startsWith('KORR_c3.csv'))).toHaveLength(25); // newest file first
    await Promise.all([page.waitForNavigation(), page.click('#next')]);
    expect(await summary()).toBe('75 row(s) carried sku-00009; rows 51–75 here.');
    const second = await rows();
    expect(second).toHaveLength(25);
    expect(second.every((r) => r.startsWith('KORR_c1.csv:'))).toBe(true);
    expect(new Set([...first, ...second]).size).toBe(75);
    expect(await page.$('#next')).toBeNull();
    expect(await page.$eval('main', (m) => m.textContent)).toContain('end of the rows');
    await page.close();
  });
});
