import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { rawDatabase } from '../../src/journal/test-support.js';
import { parseCsv } from '../pipeline/helpers.js';
import { setFaults } from '../support/emulator.js';
import { korrFile, until } from '../service/support.js';
import { bridgeWithFailures, CONSOLE_TOKEN } from './support.js';
import { useConsoleBrowser } from './browser-support.js';

/**
 * The console in a real browser: Debian's chromium driven by puppeteer-core. With WISBRIDGE_SCREENSHOTS=docs the
 * screenshots of the main pages are written to docs/ (how docs/console-*.png were made); otherwise to a temp folder.
 */
const { emu, shots, cleanups, newPage } = useConsoleBrowser();

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.type('input[name=token]', CONSOLE_TOKEN);
  await follow(page, '#login button');
}

async function follow(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(shots, `console-${name}.png`) as `${string}.png` });

describe('console in a real browser', () => {
  it('an operator signs in, finds the failed file, opens its rows, re-drives it and resolves an uncertain row', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const journal = await b.bridge.runtime.journal();
    const page = await newPage();
    await page.setViewport({ width: 1280, height: 720 });

    // Sign in with the console token (the login page; the token never shows again).
    await page.goto(`${b.url}/console`);
    expect(page.url()).toBe(`${b.url}/console/login`);
    await page.type('input[name=token]', CONSOLE_TOKEN);
    await follow(page, '#login button');
    expect(page.url()).toBe(`${b.url}/console`);
    expect(await page.$eval('#jobs', (t) => t.textContent)).toContain('stock');
    await shot(page, 'overview');

    // Files, filtered on failed, on the server.
    await follow(page, 'header a[href="/console/files"]');
    await page.select('select[name=status]', 'failed');
    await follow(page, 'form.filters button');
    expect(page.url()).toContain('status=failed');
    const names = await page.$$eval('#files tbody tr td:nth-child(2)', (cells) => cells.map((c) => c.textContent));
    expect(names).toEqual(['KORR_b.csv', 'KORR_a.csv']);
    await shot(page, 'files');

    // The failed file's rows.
    const [link] = await page.$$('xpath/.//a[text()="KORR_a.csv"]');
    await Promise.all([page.waitForNavigation(), link.click()]);
    const statuses = await page.$$eval('#rows tbody tr', (rows) => rows.map((r) => r.getAttribute('data-status')));
    expect(statuses).toEqual(['ok', 'error', 'ok']);
    expect(await page.$eval('#rows', (t) => t.textContent)).toContain('insufficient stock of SKU-00004');
    await shot(page, 'file-rows');

    // Stock arrives; re-drive, confirmed on its own page.
    await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    await follow(page, '#redrive');
    expect(await page.$eval('#confirm', (f) => f.textContent)).toContain('Send the 1 failed row(s) of KORR_a.csv');
    await page.type('input[name=by]', 'Maria');
    await follow(page, '#confirm-button');
    expect(await page.$eval('#message', (m) => m.textContent)).toMatch(/1 row\(s\) sent again, 1 ok.*file is now done/);

    // The uncertain row: checked in the service, resolved as applied with a note.
    await follow(page, 'header a[href="/console/uncertain"]');
    expect(await page.$eval('#uncertain', (t) => t.textContent)).toContain('check the stock of SKU-00005');
    await shot(page, 'uncertain');
    await follow(page, '#uncertain a[href*="/resolve"]');
    await page.click('input[name=resolution][value=applied]');
    await page.type('textarea[name=note]', 'move of SKU-00005 found in the service');
    await page.type('input[name=by]', 'Maria');
    await shot(page, 'resolve');
    await follow(page, '#confirm-button');
    expect(await page.$eval('#message', (m) => m.textContent)).toContain('file is now done');

    // The journal: both files done, the actions recorded with who and when, the history kept.
    const files = await journal.listFiles({ limit: 10 });
    expect(files.map((f) => [f.name, f.status])).toEqual([['KORR_b.csv', 'done'], ['KORR_a.csv', 'done']]);
    const raw = await openJournal(journal.address);
    try {
      expect(rawDatabase(raw).prepare('SELECT action, actor, outcome FROM operator_actions ORDER BY id').all()).toEqual([
        { action: 'redrive', actor: 'Maria (console token)', outcome: 'ok' },
        { action: 'resolve applied', actor: 'Maria (console token)', outcome: 'ok' },
      ]);
      const resolved = rawDatabase(raw).prepare(`SELECT resolution, resolution_note, resolved_by, hint FROM items WHERE resolution IS NOT NULL`).all();
      expect(resolved).toEqual([{ resolution: 'applied', resolution_note: 'move of SKU-00005 found in the service', resolved_by: 'Maria (console token)', hint: null }]);
    } finally {
      await raw.close();
    }
    // The result files: the re-driven row is ok; the resolved row carries the note, not the old "unknown" message.
    const resultA = parseCsv(readFileSync(join(b.outbox, 'KORR_a.result.csv'), 'utf8'));
    expect(resultA.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    const resultB = parseCsv(readFileSync(join(b.outbox, 'KORR_b.result.csv'), 'utf8'));
    expect(resultB[0]).toMatchObject({ line: '2', status: 'ok', message: 'applied: move of SKU-00005 found in the service', check: '' });

    // The actions log page shows them; no page carries the token.
    await follow(page, 'header a[href="/console/actions"]');
    expect(await page.$eval('#actions', (t) => t.textContent)).toContain('resolve applied');
    expect(await page.content()).not.toContain(CONSOLE_TOKEN);
    await page.close();
  });

  it('the in-progress page updates itself (the bridge\'s own script, server-sent events) while a long file is sent', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const page = await newPage();
    await page.setViewport({ width: 1280, height: 480 });
    await signIn(page, b.url);
    await follow(page, 'header a[href="/console/progress"]');
    expect(await page.$eval('#progress', (t) => t.textContent)).toContain('no file in progress');
    // Long enough to be seen: 60 writes of one row, two at a time (the default for adjustments), 320 ms each.
    await setFaults(emu, { latency_ms: 320, path_prefix: '/v1/inventory/adjustments' });
    const rows = Array.from({ length: 60 }, (_, i): [string, number, string] => [`SKU-0000${(i % 5) + 1}`, 1, `L-${i}`]);
    writeFileSync(join(b.env.dir, 'drop', 'inbox', 'KORR_20261124.csv'), korrFile(rows));
    // No reload: the row appears through live.js.
    await page.waitForSelector('#progress tbody tr[data-job="stock"]', { timeout: 30_000 });
    const cells = await page.$$eval('#progress tbody tr[data-job="stock"] td', (tds) => tds.map((td) => td.textContent ?? ''));
    expect(cells[1]).toBe('KORR_20261124.csv');
    expect(Number(cells[2])).toBeGreaterThan(0);
    await until(async () => Number(await page.$eval('#progress tbody tr td:nth-child(3)', (td) => td.textContent).catch(() => '0')) > 5, 'some rows');
    await shot(page, 'progress');
    await page.waitForSelector('#progress tbody tr:not([data-job])', { timeout: 30_000 });
    expect(await page.$eval('#progress', (t) => t.textContent)).toContain('no file in progress');
    await page.close();
  });
});
