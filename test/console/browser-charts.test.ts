import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { seededConsole, seedTwoFailures } from './seeded.js';
import { CONSOLE_TOKEN } from './support.js';
import { useBrowser } from './browser-support.js';

/** Charts drawn by the bridge (inline SVG), read in Debian's chromium with JavaScript off. */
const { shots, cleanups, newPage } = useBrowser();

/** The hover texts of a chart's bars that have something in them. */
const bars = (page: Page, chart: string) => page.$$eval(`#${chart} g.bar`, (gs) => gs
  .filter((g) => g.getAttribute('data-total') !== '0').map((g) => g.querySelector('title')?.textContent ?? ''));

describe('console charts', () => {
  it('files and rows per hour by status, the uncertain backlog and export records, for 24 h, 7 and 30 days, per job, without JavaScript', async () => {
    const b = await seededConsole(seedTwoFailures);
    cleanups.push(() => b.close());
    const page = await newPage();
    await page.setJavaScriptEnabled(false);
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${b.url}/console/login`);
    await page.type('input[name=token]', CONSOLE_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('#login button')]);
    // The overview: files and rows of the last 24 hours.
    expect(await bars(page, 'overview-rows')).toEqual([expect.stringMatching(/: ok 3, error 1, uncertain 1, skipped 0$/)]);
    expect(await bars(page, 'overview-files')).toEqual([expect.stringMatching(/failed 2/)]);
    await Promise.all([page.waitForNavigation(), page.click('header a[href="/console/charts"]')]);

    expect(await page.$$eval('figure.chart svg', (svgs) => svgs.length)).toBe(4);
    // This hour: KORR_a (2 ok, 1 error) and KORR_b (1 ok, 1 uncertain), both failed; one uncertain row open.
    const [files] = await bars(page, 'chart-files');
    expect(files).toMatch(/: done 0, failed 2, rejected 0, processing 0$/);
    expect(await bars(page, 'chart-rows')).toEqual([expect.stringMatching(/: ok 3, error 1, uncertain 1, skipped 0$/)]);
    expect((await bars(page, 'chart-backlog')).at(-1)).toMatch(/: uncertain open 1$/);
    expect(await bars(page, 'chart-exports')).toEqual([]);
    expect(await page.$eval('#chart-rows svg', (svg) => svg.querySelectorAll('g.bar').length)).toBe(24);
    await page.screenshot({ path: join(shots, 'console-charts.png') as `${string}.png`, fullPage: true });

    // 7 days per hour, 30 days per day; one job's charts.
    await Promise.all([page.waitForNavigation(), page.click('a[href="/console/charts?range=7d"]')]);
    expect(await page.$eval('#chart-rows svg', (svg) => svg.querySelectorAll('g.bar').length)).toBe(168);
    await Promise.all([page.waitForNavigation(), page.click('a[href="/console/charts?range=30d"]')]);
    expect(await page.$eval('#chart-rows svg', (svg) => svg.querySelectorAll('g.bar').length)).toBe(30);
    expect(await bars(page, 'chart-rows')).toEqual([expect.stringMatching(/: ok 3, error 1, uncertain 1, skipped 0$/)]);
    await Promise.all([page.waitForNavigation(), page.click('a[href="/console/charts?range=30d&job=stock"]')]);
    expect(await bars(page, 'chart-files')).toEqual([expect.stringMatching(/failed 2/)]);
    expect(await page.$('#chart-exports')).toBeNull(); // an inbound job hands over no export records
    await page.close();
  });
});
