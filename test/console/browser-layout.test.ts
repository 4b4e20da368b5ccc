/// <reference lib="dom" />
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { seededConsole, seedTwoFailures } from './seeded.js';
import { CONSOLE_TOKEN } from './support.js';
import { useBrowser } from './browser-support.js';

/** The console's frame and charts at a laptop's width (1,366 px) and a phone's (375 × 812), in Debian's chromium. */
const { shots, cleanups, newPage } = useBrowser();

/** How much room the search field leaves beside its placeholder text (negative: the text is cut off). */
const placeholderRoom = (page: Page) => page.$eval('header form.search input', (input) => {
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d')!;
  context.font = style.font;
  const text = context.measureText((input as HTMLInputElement).placeholder).width;
  return input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - text;
});

const zoneHour = (iso: string) => new Intl.DateTimeFormat('sv-SE', {
  timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23',
}).format(new Date(iso)).slice(5) + 'h';

/** Signs in to the console seeded with two failed files, times in New York, at 1,366 × 768. */
async function signedIn() {
  const b = await seededConsole(seedTwoFailures, 'auth: { bearer_token: { file: console-token } }\n  timezone: America/New_York');
  cleanups.push(() => b.close());
  const page = await newPage();
  await page.setViewport({ width: 1366, height: 768 });
  await page.goto(`${b.url}/console/login`);
  await page.type('input[name=token]', CONSOLE_TOKEN);
  await Promise.all([page.waitForNavigation(), page.click('#login button')]);
  return { b, page };
}

describe('console layout', () => {
  it('a search placeholder that fits, and a compact header on a phone', async () => {
    const { b, page } = await signedIn();
    expect(await placeholderRoom(page)).toBeGreaterThanOrEqual(0);
    await page.setViewport({ width: 375, height: 812, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await page.goto(`${b.url}/console/files`);
    expect(await page.$eval('header', (h) => h.getBoundingClientRect().height)).toBeLessThanOrEqual(100);
    expect(await placeholderRoom(page)).toBeGreaterThanOrEqual(0);
    await page.screenshot({ path: join(shots, 'console-layout-phone.png') as `${string}.png` });
    await page.close();
  });

  it('charts take the content\'s full width, with round y ticks and x labels at their bars\' hours in the zone', async () => {
    const { page } = await signedIn();
    // Each chart takes the width of the page's content.
    const widths = await page.evaluate(() => {
      const main = document.querySelector('main')!;
      const style = getComputedStyle(main);
      const content = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return { content, charts: Array.from(document.querySelectorAll('figure.chart'), (f) => f.getBoundingClientRect().width) };
    });
    expect(widths.charts.length).toBe(2);
    for (const w of widths.charts) expect(w).toBeGreaterThanOrEqual(widths.content - 1);

    // The only bar with files in it carries its hour (New York time) under it; the y axis ends at a round number.
    const axis = await page.$eval('#overview-files svg', (svg) => {
      const bars = Array.from(svg.querySelectorAll('g.bar'));
      const index = bars.findIndex((g) => g.getAttribute('data-total') !== '0');
      const rect = bars[index].querySelector('rect')!;
      const label = svg.querySelector(`text.x[data-bar="${index}"]`);
      return {
        start: bars[index].getAttribute('data-start')!, label: label?.textContent ?? null, x: Number(label?.getAttribute('x')),
        from: Number(rect.getAttribute('x')), to: Number(rect.getAttribute('x')) + Number(rect.getAttribute('width')),
      };
    });
    expect(axis.label).toBe(zoneHour(axis.start));
    expect(axis.x).toBeGreaterThan(axis.from);
    expect(axis.x).toBeLessThan(axis.to);
    // Five rows (3 ok, 1 error, 1 uncertain): a tick at every whole count up to 5, not at 5 and its rounded half.
    expect(await page.$$eval('#overview-rows svg text[text-anchor=end]:not(.x)', (ts) => ts.map((t) => t.textContent))).toEqual(['0', '1', '2', '3', '4', '5']);
    await page.screenshot({ path: join(shots, 'console-layout-charts.png') as `${string}.png`, fullPage: true });

    await page.close();
  });
});
