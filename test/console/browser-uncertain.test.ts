import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/index.js';
import { testHooks } from '../../src/journal/testing.js';
import { seededConsole } from './seeded.js';
import { CONSOLE_TOKEN } from './support.js';
import { useBrowser } from './browser-support.js';

/**
 * In Debian's chromium, on a journal seeded with what a kill -9 leaves (requests of several rows each without an
 * answer, in two files): the uncertain rows grouped by file and by request with their totals, and a request, a file or a
 * selection resolved in one confirmed, audited action each.
 */
const { shots, cleanups, newPage } = useBrowser();

/** A file of job `stock` whose requests (`rows` rows each) all went unanswered, but for one ok row in a request of its own. */
async function seedUncertainFile(journal: Journal, name: string, requests: number[]): Promise<{ fileId: number; requestIds: number[] }> {
  const { fileId } = await journal.claimFile({ drop: 'wms', name, checksum: name.padEnd(64, '0'), size: 1000, mapping: 'inventory-adjustments' });
  const requestIds: number[] = [];
  let seq = 2;
  const ok = await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', [{ seq, endpoint: 'inventory.adjustments', docKey: 'SKU-00001', lines: [seq], body: { product_code: 'SKU-00001', quantity: 1, company_code: 'ACME', reference: `${name}-ok` } }], { sent: true });
  await journal.completeRequest(ok, [{ seq, status: 'ok', result: { move_id: 1 } }]);
  for (const rows of requests) {
    const items = Array.from({ length: rows }, () => {
      seq += 1;
      return { seq, endpoint: 'inventory.adjustments', docKey: `SKU-${seq}`, lines: [seq], body: { product_code: `SKU-${seq}`, quantity: 1, company_code: 'ACME', reference: `${name}-${seq}` } };
    });
    const id = await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', items, { sent: true });
    await journal.completeRequest(id, items.map((i) => ({ seq: i.seq, status: 'uncertain' as const, messages: ['connection reset after the request was sent'], hint: `check ${i.docKey}` })));
    requestIds.push(id);
  }
  await journal.finishFile(fileId);
  await journal.recordResultName(fileId, name.replace('.csv', '.result.csv'));
  await journal.recordDisposition(fileId, `archive/${name}`);
  return { fileId, requestIds };
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');
const follow = (page: Page, selector: string) => Promise.all([page.waitForNavigation(), page.click(selector)]);

async function confirmResolution(page: Page, resolution: 'applied' | 'not-applied', note: string): Promise<void> {
  await page.click(`input[name=resolution][value=${resolution}]`);
  await page.type('textarea[name=note]', note);
  await page.type('input[name=by]', 'Maria');
  await follow(page, '#confirm-button');
}

describe('uncertain rows by request and file', () => {
  it('totals and groups by file and request; a request, a selection and a whole file each resolved in one confirmed, audited action', async () => {
    let a!: Awaited<ReturnType<typeof seedUncertainFile>>;
    let b!: Awaited<ReturnType<typeof seedUncertainFile>>;
    const s = await seededConsole(async (journal) => {
      a = await seedUncertainFile(journal, 'KORR_a.csv', [3, 3, 2]);
      b = await seedUncertainFile(journal, 'KORR_b.csv', [4]);
    });
    cleanups.push(() => s.close());
    const page = await newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${s.url}/console/login`);
    await page.type('input[name=token]', CONSOLE_TOKEN);
    await follow(page, '#login button');

    await page.goto(`${s.url}/console/uncertain`);
    await page.screenshot({ path: join(shots, 'console-uncertain-grouped.png') as `${string}.png`, fullPage: true });
    expect(await text(page, '#uncertain-totals')).toBe('12 uncertain row(s) in 2 file(s), 4 request(s)');
    expect(await page.$$eval('#uncertain-groups tr[data-request]', (trs) => trs.map((tr) => [Number(tr.getAttribute('data-file')), Number(tr.getAttribute('data-request')), Number(tr.querySelector('td:nth-child(4)')?.textContent)])))
      .toEqual([[a.fileId, a.requestIds[0], 3], [a.fileId, a.requestIds[1], 3], [a.fileId, a.requestIds[2], 2], [b.fileId, b.requestIds[0], 4]]);

    // One request: its three rows were not applied (the service has none of them).
    await follow(page, `#uncertain-groups tr[data-request="${a.requestIds[0]}"] a.resolve-request`);
    expect(await page.$$eval('#chosen-requests tbody tr', (trs) => trs.length)).toBe(1);
    expect(await text(page, '#confirm')).toContain('these 3 uncertain row(s) in 1 file(s), 1 request(s)');
    await confirmResolution(page, 'not-applied', 'none of the three moves is in the service');
    expect(await text(page, '#message')).toContain('3 uncertain row(s) marked not applied (error)');

    // A selection across both files: the second request of KORR_a and the one of KORR_b were applied.
    await page.goto(`${s.url}/console/uncertain`);
    await page.click(`#uncertain-groups input[type=checkbox][value="${a.requestIds[1]}"]`);
    await page.click(`#uncertain-groups input[type=checkbox][value="${b.requestIds[0]}"]`);
    await follow(page, '#resolve-chosen-button');
    expect(await text(page, '#confirm')).toContain('these 7 uncertain row(s) in 2 file(s), 2 request(s)');
    await confirmResolution(page, 'applied', 'moves found in the service');
    expect(await text(page, '#message')).toContain('7 uncertain row(s) marked applied (ok)');

    // What is left of KORR_a, as a whole file.
    await page.goto(`${s.url}/console/uncertain`);
    expect(await text(page, '#uncertain-totals')).toBe('2 uncertain row(s) in 1 file(s), 1 request(s)');
    await follow(page, `#uncertain-groups tr.group[data-file="${a.fileId}"] a.resolve-file`);
    await confirmResolution(page, 'applied', 'found');
    expect(await text(page, '#message')).toContain('2 uncertain row(s) marked applied (ok)');
    await page.goto(`${s.url}/console/uncertain`);
    expect(await text(page, '#uncertain-totals')).toBe('no uncertain rows');

    expect(await s.journal.uncertainItems()).toEqual([]);
    expect((await s.journal.getFile(a.fileId)).summary).toMatchObject({ ok: 6, error: 3, uncertain: 0 });
    expect((await s.journal.getFile(b.fileId)).summary).toMatchObject({ ok: 5, uncertain: 0 });
    const logged = await s.journal.console.listActions({ limit: 5 });
    expect(logged.map((x) => [x.action, x.target, x.actor, x.outcome])).toEqual([
      ['resolve applied', `files ${a.fileId}`, 'Maria (console token)', 'ok'],
      ['resolve applied', `requests ${a.requestIds[1]}, ${b.requestIds[0]}`, 'Maria (console token)', 'ok'],
      ['resolve not-applied', `requests ${a.requestIds[0]}`, 'Maria (console token)', 'ok'],
    ]);
    await page.close();
  });
});
