import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededConsole, seedTwoFailures } from './seeded.js';
import { CONSOLE_TOKEN } from './support.js';
import { useBrowser } from './browser-support.js';

/**
 * Every page of the console once, in Debian's chromium: each answers, has its heading, and (with
 * WISBRIDGE_SCREENSHOTS=docs) is photographed into docs/console-<page>.png for the documentation.
 */
const { shots, cleanups, newPage } = useBrowser();

describe('every console page', () => {
  it('answers with its heading, and is photographed for docs/', async () => {
    const b = await seededConsole(seedTwoFailures);
    cleanups.push(() => b.close());
    const page = await newPage();
    await page.setViewport({ width: 1280, height: 720 });
    await page.goto(`${b.url}/console/login`);
    await page.screenshot({ path: join(shots, 'console-login.png') as `${string}.png` });
    await page.type('input[name=token]', CONSOLE_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('#login button')]);
    const pages: Array<[string, string, string]> = [
      ['exports', '/console/exports', 'Exports'],
      ['rejected', '/console/rejected', 'Rejected files'],
      ['alerts', '/console/alerts', 'Alerts'],
      ['actions', '/console/actions', 'Actions log'],
      ['search', '/console/search?q=SKU-00001', 'Search'],
    ];
    for (const [name, path, heading] of pages) {
      const res = await page.goto(`${b.url}${path}`);
      expect(res?.status(), path).toBe(200);
      expect(await page.$eval('main h1', (h) => h.textContent), path).toBe(heading);
      await page.screenshot({ path: join(shots, `console-${name}.png`) as `${string}.png`, fullPage: true });
    }
    await page.close();
  });
});
