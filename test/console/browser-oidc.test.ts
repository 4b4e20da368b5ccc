import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowser } from './browser-support.js';
import { oidcConsole } from './oidc-support.js';

/**
 * The sign-in with a company identity provider in Debian's chromium: the provider (oidc-provider, its own login and
 * consent pages) on 127.0.0.2, the console on 127.0.0.1 — two sites, as in production, so the SameSite rules of the
 * cookies are the browser's own. An operator sees and uses the actions; a viewer sees none.
 */
const { shots, cleanups, newPage } = useBrowser();

async function signIn(page: import('puppeteer-core').Page, consoleUrl: string, account: string) {
  await page.goto(`${consoleUrl}/console/files`);
  expect(new URL(page.url()).pathname).toBe('/console/login');
  await Promise.all([page.waitForNavigation(), page.click('#oidc-sign-in')]);
  expect(page.url()).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/interaction\//);
  await page.type('input[name=login]', account);
  await page.type('input[name=password]', 'any');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  // The provider's consent page, then back to the console, which moves on to the overview by itself.
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  await page.waitForFunction(() => location.pathname === '/console', { timeout: 10_000 });
}

describe('console sign-in with an identity provider, in a browser', () => {
  it('an operator signs in at the provider and acknowledges an alert; a viewer sees no action; sign-out ends it', async () => {
    const c = await oidcConsole({ providerHost: '127.0.0.2' });
    cleanups.push(() => c.close());
    const page = await newPage();
    await page.setViewport({ width: 1280, height: 720 });
    await page.goto(`${c.url}/console/login`);
    expect(await page.$eval('#oidc-sign-in', (a) => a.textContent)).toBe('Sign in with Example Corp');
    await page.screenshot({ path: join(shots, 'console-sign-in-oidc.png') as `${string}.png` });

    await signIn(page, c.url, 'otto');
    expect(await page.$eval('header .who', (s) => s.textContent)).toBe('otto · operator');
    await page.goto(`${c.url}/console/alerts`);
    await Promise.all([page.waitForNavigation(), page.click('a.acknowledge')]);
    await Promise.all([page.waitForNavigation(), page.click('#confirm-button')]);
    expect(await page.$eval('#action-entry', (p) => p.textContent)).toMatch(/^acknowledge alert by otto,/);
    await Promise.all([page.waitForNavigation(), page.click('#sign-out')]);
    expect(new URL(page.url()).pathname).toBe('/console/login');
    await page.goto(`${c.url}/console/alerts`);
    expect(new URL(page.url()).pathname).toBe('/console/login');
    // The provider still knows otto (its own session): signing in again asks nothing there.
    await Promise.all([page.waitForNavigation(), page.click('#oidc-sign-in')]);
    await page.waitForFunction(() => location.pathname === '/console', { timeout: 10_000 });
    expect(await page.$eval('header .who', (s) => s.textContent)).toBe('otto · operator');
    await Promise.all([page.waitForNavigation(), page.click('#sign-out')]);

    // Another person at the same browser: once the provider's session is gone too.
    await (await page.createCDPSession()).send('Network.clearBrowserCookies');
    await signIn(page, c.url, 'vera');
    expect(await page.$eval('header .who', (s) => s.textContent)).toBe('vera · viewer');
    await page.goto(`${c.url}/console/alerts`);
    expect(await page.$$('a.acknowledge, #acknowledge-selected-button, input[form=acknowledge-selected]')).toHaveLength(0);
    await page.goto(`${c.url}/console/files/2`);
    expect(await page.$$('a.resolve, #redrive')).toHaveLength(0);
    const refused = await page.goto(`${c.url}/console/files/1/redrive`);
    expect(refused?.status()).toBe(403);
    expect(await page.$eval('#message', (m) => m.textContent)).toContain('This needs the operator role');
    await page.close();
  });
});
