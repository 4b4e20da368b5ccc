import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { redriveDetail } from '../../src/console/actions.js';
import type { Journal } from '../../src/journal/index.js';
import { useCleanups } from '../service/support.js';
import { seededConsole, seedTwoFailures } from './seeded.js';
import { consoleClient } from './support.js';

/** What an operator at night reads off the file list, a file's rows and an action's result, from a seeded journal. */
const cleanups = useCleanups();

async function consoleOn(seed: (journal: Journal) => Promise<void>) {
  const served = await seededConsole(seed);
  cleanups.push(() => served.close());
  return served;
}

/** A file list row's cells by column header. */
function fileRow(text: string, name: string): Record<string, string> {
  const headers = [...text.slice(text.indexOf('<table id="files">'), text.indexOf('</thead>')).matchAll(/<th(?: [^>]*)?>([^<]*)</g)].map((m) => m[1]);
  const row = text.match(new RegExp(`<tr data-file="\\d+">(?:(?!</tr>)[\\s\\S])*>${name.replace('.', '\\.')}<(?:(?!</tr>)[\\s\\S])*</tr>`))![0];
  const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]);
  expect(cells).toHaveLength(headers.length);
  return Object.fromEntries(headers.map((h, i) => [h, cells[i]]));
}

describe('console at night', () => {
  it('a file with rows to check is told apart from a file with failed rows, and the list names the instance of each file', async () => {
    const b = await consoleOn(seedTwoFailures);
    const [korrB, korrA] = await b.journal.listFiles({ limit: 2 });
    // A lease-mode journal records the instance on the file; the SQLite journal has the column too.
    const db = new Database(b.journalPath);
    db.prepare('UPDATE files SET lease_owner = ? WHERE id = ?').run('night-1', korrA.fileId);
    db.close();
    const c = consoleClient(b.url);
    const list = (await c.get('/console/files')).text;
    const a = fileRow(list, 'KORR_a.csv');
    const bRow = fileRow(list, 'KORR_b.csv');
    expect(a.instance).toBe('night-1');
    expect(bRow.instance).toBe('');
    expect(a.status).toContain('failed');
    expect(a.status).not.toContain('needs a check');
    expect(bRow.status).toContain('needs a check');
    expect(bRow.status).not.toContain('s-failed');

    const page = (await c.get(`/console/files/${korrB.fileId}`)).text;
    expect(page).toMatch(/<div class="box warn">\s*<b>KORR_b\.csv<\/b>[^]*needs a check/);
    // Every column of the rows table has a header, and the resolve link sits in the resolution column.
    const heads = [...page.slice(page.indexOf('<table id="rows">'), page.indexOf('</thead>', page.indexOf('<table id="rows">'))).matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]);
    expect(heads.every((h) => h !== '')).toBe(true);
    const uncertainRow = page.match(/<tr data-seq="2" data-status="uncertain">([^]*?)<\/tr>/)![1];
    const cells = [...uncertainRow.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]);
    expect(cells).toHaveLength(heads.length);
    expect(cells[heads.indexOf('resolution')]).toContain('resolve…');
  });

  it('a re-drive that left the file failed is not shown as plainly done', async () => {
    const b = await consoleOn(seedTwoFailures);
    const [, korrA] = await b.journal.listFiles({ limit: 2 });
    const report = { attempt: 2, sent: 1, ok: 0, error: 1, uncertain: 0, resultAt: 'wms:out/KORR_a.result.csv' };
    const left = await b.journal.console.recordAction({ action: 'redrive', fileId: korrA.fileId, target: null, actor: 'ops', via: 'console', detail: redriveDetail({ ...report, status: 'failed' }), outcome: 'ok' });
    const fixed = await b.journal.console.recordAction({ action: 'redrive', fileId: korrA.fileId, target: null, actor: 'ops', via: 'console', detail: redriveDetail({ ...report, ok: 1, error: 0, status: 'done' }), outcome: 'ok' });
    const c = consoleClient(b.url);
    const failedAfter = (await c.get(`/console/actions/${left}`)).text;
    expect(failedAfter).toContain('<h1>Done, but the file is still failed</h1>');
    expect(failedAfter).toContain('<div class="box warn" id="message">');
    expect(failedAfter).toContain('id="still-failed"');
    const doneAfter = (await c.get(`/console/actions/${fixed}`)).text;
    expect(doneAfter).toContain('<h1>Done</h1>');
    expect(doneAfter).toContain('<div class="box good" id="message">');
    expect(doneAfter).not.toContain('still-failed');
  });
});
