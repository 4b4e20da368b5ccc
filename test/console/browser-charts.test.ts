import Database from 'better-sqlite3';
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

const HOUR = 3_600_000;

/**
 * Instances on the seeded journal, around the hour under way (H): a live one (its heartbeat ahead of the test's end, so
 * that it stays live however long the test takes), b lost since 50 minutes before H, c stopped 100 minutes before H.
 */
function seedInstances(journalPath: string): void {
  const now = Date.now();
  const h = Math.floor(now / HOUR) * HOUR;
  const iso = (ms: number) => new Date(ms).toISOString();
  const db = new Database(journalPath);
  try {
    const insert = db.prepare('INSERT INTO instances (id, host, pid, version, started_at, heartbeat_at, stopped_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    insert.run('vm-a-11-aaaaaa', 'vm-a', 11, 't', iso(h - 3 * HOUR + 600_000), iso(now + 600_000), null);
    insert.run('vm-b-22-bbbbbb', 'vm-b', 22, 't', iso(h - 3 * HOUR + 600_000), iso(h - HOUR + 600_000), null);
    insert.run('vm-c-33-cccccc', 'vm-c', 33, 't', iso(h - 5 * HOUR + 300_000), iso(h - 2 * HOUR + 1_200_000), iso(h - 2 * HOUR + 1_200_000));
  } finally {
    db.close();
  }
}

describe('console charts', () => {
  it('files and rows per hour by status, the uncertain backlog and export records, for 24 h, 7 and 30 days, per job, without JavaScript', async () => {
    const b = await seededConsole(seedTwoFailures);
    cleanups.push(() => b.close());
    seedInstances(b.journalPath);
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

    expect(await page.$$eval('figure.chart svg', (svgs) => svgs.length)).toBe(5);
    // This hour: KORR_a (2 ok, 1 error) and KORR_b (1 ok, 1 uncertain), both failed; one uncertain row open.
    const [files] = await bars(page, 'chart-files');
    expect(files).toMatch(/: done 0, failed 2, rejected 0, processing 0$/);
    expect(await bars(page, 'chart-rows')).toEqual([expect.stringMatching(/: ok 3, error 1, uncertain 1, skipped 0$/)]);
    expect((await bars(page, 'chart-backlog')).at(-1)).toMatch(/: uncertain open 1$/);
    expect(await bars(page, 'chart-exports')).toEqual([]);
    expect(await page.$eval('#chart-rows svg', (svg) => svg.querySelectorAll('g.bar').length)).toBe(24);
    // The instances at the end of each hour (seedInstances): c alone, then a and b joining, c stopping, b lost.
    expect((await bars(page, 'chart-instances')).map((t) => t.slice(t.indexOf(': ') + 2))).toEqual([
      'live 1, lost 0', 'live 1, lost 0', 'live 3, lost 0', 'live 2, lost 0', 'live 1, lost 1', 'live 1, lost 1',
    ]);
    const instanceBars = await page.$$eval('#chart-instances g.bar', (gs) => gs.map((g) => g.getAttribute('data-total')));
    expect(instanceBars.slice(-7)).toEqual(['0', '1', '1', '3', '2', '2', '2']);
    // Round ticks, and the first hour with instances labelled under its bar (labelledBars: bars with something first).
    expect(await page.$$eval('#chart-instances text[text-anchor="end"]:not(.x)', (ts) => ts.map((t) => t.textContent))).toEqual(['0', '1', '2', '3']);
    expect(await page.$$eval('#chart-instances text.x', (ts) => ts.map((t) => t.getAttribute('data-bar')))).toContain('18');
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
