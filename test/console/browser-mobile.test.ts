/// <reference lib="dom" />
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { seededConsole, seedTwoFailures } from './seeded.js';
import { CONSOLE_TOKEN } from './support.js';
import { useBrowser } from './browser-support.js';

/** The console on a phone (390 px) and at the narrowest width it supports (360 px), in Debian's chromium. */
const { shots, cleanups, newPage } = useBrowser();

/** Whether the element is on screen and is what a tap at its centre hits (not hidden, cut off or covered). */
async function tappable(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (el) => {
    el.scrollIntoView({ block: 'center', inline: 'center' });
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.left < 0 || r.right > window.innerWidth) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });
}

/** How far the page is wider than the window (0: no horizontal scrolling of the page; wide tables scroll in their box). */
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

describe('console on a narrow screen', () => {
  it('at 390 px and 360 px every navigation link and sign-out can be reached and tapped, and no page scrolls sideways', async () => {
    const b = await seededConsole(seedTwoFailures);
    cleanups.push(() => b.close());
    const fileId = (await b.journal.listFiles({ limit: 1 }))[0].fileId;
    const page = await newPage();
    for (const width of [390, 360]) {
      await page.setViewport({ width, height: 800, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
      await page.goto(`${b.url}/console/login`);
      if (page.url().endsWith('/login') && (await page.$('input[name=token]'))) {
        await page.type('input[name=token]', CONSOLE_TOKEN);
        await Promise.all([page.waitForNavigation(), page.click('#login button')]);
      }
      const nav = await page.$$eval('header a', (links) => links.map((a) => a.getAttribute('href')!));
      expect(nav).toContain('/console/alerts');
      expect(nav).toContain('/console/actions');
      for (const href of nav) {
        await page.goto(`${b.url}/console`);
        expect(await tappable(page, `header a[href="${href}"]`), `${href} at ${width} px`).toBe(true);
        await Promise.all([page.waitForNavigation(), page.tap(`header a[href="${href}"]`)]);
        expect(new URL(page.url()).pathname).toBe(href);
        expect(await overflow(page), `${href} at ${width} px`).toBeLessThanOrEqual(0);
      }
      for (const path of [`/console/files/${fileId}`, '/console/files?status=failed', `/console/files/${fileId}/redrive`]) {
        await page.goto(`${b.url}${path}`);
        expect(await overflow(page), `${path} at ${width} px`).toBeLessThanOrEqual(0);
      }
      await page.goto(`${b.url}/console/files`);
      // The wide table scrolls inside its box.
      expect(await page.$eval('#files', (t) => t.scrollWidth > t.clientWidth && getComputedStyle(t).overflowX === 'auto')).toBe(true);
      if (width === 390) await page.screenshot({ path: join(shots, 'console-mobile.png') as `${string}.png` });
      expect(await tappable(page, '#sign-out'), `sign out at ${width} px`).toBe(true);
      await Promise.all([page.waitForNavigation(), page.tap('#sign-out')]);
      expect(new URL(page.url()).pathname).toBe('/console/login');
    }
    await page.close();
  });
});
