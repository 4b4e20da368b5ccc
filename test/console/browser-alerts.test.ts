import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/index.js';
import { seededConsole } from './seeded.js';
import { CONSOLE_TOKEN } from './support.js';
import { useBrowser } from './browser-support.js';

/**
 * In Debian's chromium, on a journal seeded with the alerts a kill -9 leaves (an instance lost, rows uncertain in
 * eight files) and newer, milder ones: the overview names the most severe incident, the inbox groups alerts by
 * incident with their severity, and a selection or a whole incident is acknowledged in one confirmed, audited action.
 */
const { shots, cleanups, newPage } = useBrowser();

async function seedIncident(journal: Journal): Promise<void> {
  const c = journal.console;
  await c.raiseAlert({ kind: 'instance-lost', subject: 'instance:vm-1-dead', message: 'instance vm-1-dead (vm-1, pid 41) has had no heartbeat since 07:58' });
  for (let f = 1; f <= 8; f++) {
    await c.raiseAlert({ kind: 'rows-uncertain', subject: `file:${f}`, job: 'stock', fileId: f, message: `file KORR_${f}.csv: 100 document(s) with an unknown outcome: check them in the service, then resolve them` });
  }
  await c.raiseAlert({ kind: 'file-failed', subject: 'file:9', job: 'stock', fileId: 9, message: 'file KORR_9.csv: 2 document(s) failed' });
  await c.raiseAlert({ kind: 'webhook-failed', subject: 'webhook', message: 'the webhook could not deliver a rows-uncertain alert' });
}

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');
const follow = (page: Page, selector: string) => Promise.all([page.waitForNavigation(), page.click(selector)]);
const groups = (page: Page) => page.$$eval('#alerts tr.group', (trs) => trs.map((tr) => [tr.getAttribute('data-severity'), tr.getAttribute('data-kind'), Number(tr.getAttribute('data-count'))]));

describe('alerts by severity and incident', () => {
  it('the overview names the critical incident, not the newest warning; a selection and a whole incident are acknowledged in one confirmed action each, audited', async () => {
    const b = await seededConsole(seedIncident);
    cleanups.push(() => b.close());
    const page = await newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(`${b.url}/console/login`);
    await page.type('input[name=token]', CONSOLE_TOKEN);
    await follow(page, '#login button');

    expect(await page.$eval('#alerts-box', (e) => e.getAttribute('data-severity'))).toBe('critical');
    const banner = await text(page, '#alerts-box');
    expect(banner).toContain('11 alert(s) open (9 critical, 1 warning, 1 info)');
    expect(banner).toContain('rows-uncertain (job stock) × 8: file KORR_8.csv');
    expect(banner).not.toContain('webhook');

    await page.goto(`${b.url}/console/alerts`);
    await page.screenshot({ path: join(shots, 'console-alerts-grouped.png') as `${string}.png`, fullPage: true });
    expect(await groups(page)).toEqual([['critical', 'rows-uncertain', 8], ['critical', 'instance-lost', 1], ['warning', 'file-failed', 1], ['info', 'webhook-failed', 1]]);
    const uncertain = await page.$$eval('#alerts tr[data-kind="rows-uncertain"][data-alert]', (trs) => trs.map((tr) => Number(tr.getAttribute('data-alert'))));
    const webhook = Number(await page.$eval('#alerts tr[data-kind="webhook-failed"][data-alert]', (tr) => tr.getAttribute('data-alert')));
    const chosen = [...uncertain.slice(0, 3), webhook];
    for (const id of chosen) await page.click(`#alerts input[type=checkbox][value="${id}"]`);
    await follow(page, '#acknowledge-selected-button');
    expect(await page.$$eval('#chosen-alerts tr', (trs) => trs.map((tr) => Number(tr.getAttribute('data-alert'))).sort((x, y) => x - y))).toEqual([...chosen].sort((x, y) => x - y));
    expect(await text(page, '#confirm')).toContain('Acknowledge these 4 alert(s) (3 critical, 1 info)');
    await page.type('input[name=by]', 'Maria');
    await follow(page, '#confirm-button');
    expect(await text(page, '#message')).toContain('4 alert(s) acknowledged');

    await page.goto(`${b.url}/console/alerts`);
    expect(await groups(page)).toEqual([['critical', 'rows-uncertain', 5], ['critical', 'instance-lost', 1], ['warning', 'file-failed', 1]]);
    await follow(page, '#alerts tr.group[data-kind="rows-uncertain"] a.acknowledge-group');
    expect(await text(page, '#confirm')).toContain('Acknowledge these 5 alert(s) (5 critical)');
    await page.type('input[name=by]', 'Maria');
    await follow(page, '#confirm-button');
    expect(await text(page, '#message')).toContain('5 alert(s) acknowledged');
    await page.goto(`${b.url}/console`);
    expect(await text(page, '#alerts-box')).toMatch(/2 alert\(s\) open \(1 critical, 1 warning\)\.\s+critical\s+instance-lost: instance vm-1-dead/);

    const open = await b.journal.console.listAlerts({ limit: 50 });
    expect(open.open.map((a) => a.kind)).toEqual(['instance-lost', 'file-failed']);
    expect(open.acknowledged.map((a) => a.acknowledgedBy)).toEqual(Array(9).fill('Maria (console token)'));
    const logged = await b.journal.console.listActions({ limit: 5 });
    expect(logged.map((a) => [a.action, a.actor, a.outcome])).toEqual([
      ['acknowledge alerts', 'Maria (console token)', 'ok'], ['acknowledge alerts', 'Maria (console token)', 'ok'],
    ]);
    expect(logged[1].target).toBe(`alerts ${chosen.join(', ')}`);
    await page.close();
  });
});
