/// <reference lib="dom" />
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { seededConsole, seedTwoFailures } from './seeded.js';
import { CONSOLE_TOKEN } from './support.js';
import { useBrowser } from './browser-support.js';

/** The console's frame at a laptop's width (1,366 px) and a phone's (375 × 812), in Debian's chromium. */
const { cleanups, newPage } = useBrowser();

/** How much room the search field leaves beside its placeholder text (negative: the text is cut off). */
const placeholderRoom = (page: Page) => page.$eval('header form.search input', (input) => {
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d')!;
  context.font = style.font;
  const text = context.measureText((input as HTMLInputElement).placeholder).width;
  return input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - text;
});

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
    await page.close();
  });
});
