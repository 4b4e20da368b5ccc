import { describe, expect, it } from 'vitest';
import { BridgeService } from '../../src/service/service.js';
import { flowRunners } from '../../src/service/runners.js';
import type { Journal } from '../../src/journal/index.js';
import { baseConfig, tempConfig, useCleanups } from '../service/support.js';
import { seededConsole, seedTwoFailures } from './seeded.js';
import { CONSOLE_TOKEN, consoleClient } from './support.js';

/** The console's sign-in and pages, rendered over HTTP from a journal seeded with what they show. */
const cleanups = useCleanups();

async function consoleOn(seed: (journal: Journal) => Promise<void>, auth?: string) {
  const served = await seededConsole(seed, auth);
  cleanups.push(() => served.close());
  return served;
}

describe('console: access', () => {
  it('is off without a console: section; with one, nothing is shown without the token', async () => {
    const env = await tempConfig(`${baseConfig()}\nmetrics: { host: 127.0.0.1, port: 0 }\n`);
    const bridge = new BridgeService(env.loaded, { runners: flowRunners });
    cleanups.push(env.cleanup, () => bridge.stop('test'));
    await bridge.start();
    const off = await fetch(`${bridge.url}/console`);
    expect(off.status).toBe(404);
    expect(await off.text()).toContain('the console is off');
    expect((await fetch(`${bridge.url}/metrics`)).status).toBe(200);

    const b = await consoleOn(seedTwoFailures);
    const anonymous = consoleClient(b.url, null);
    expect((await anonymous.get('/console/files')).status).toBe(401);
    expect((await anonymous.request('/console', { headers: { accept: 'text/html' } })).headers.get('location')).toBe('/console/login');
    expect((await consoleClient(b.url, 'wrong-token').get('/console')).status).toBe(401);
    // The login form sets a session cookie; the token itself is never sent back.
    const login = await anonymous.post('/console/login', { token: CONSOLE_TOKEN });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^wisbridge_console=[\w-]+; HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain(CONSOLE_TOKEN);
    const withCookie = await fetch(`${b.url}/console/files`, { headers: { cookie: cookie.split(';')[0] } });
    expect(withCookie.status).toBe(200);
    const signedIn = await withCookie.text();
    expect(signedIn).toContain('id="sign-out"');
    // Signing out takes the session's own token, from the sign-out form of a page.
    const sessionToken = /name="session_csrf" value="([^"]+)"/.exec(signedIn)![1]!;
    const out = await fetch(`${b.url}/console/logout`, {
      method: 'POST', redirect: 'manual', body: `session_csrf=${encodeURIComponent(sessionToken)}`,
      headers: { cookie: cookie.split(';')[0]!, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(out.headers.get('location')).toBe('/console/login');
    expect((await fetch(`${b.url}/console/files`, { headers: { cookie: cookie.split(';')[0] } })).status).toBe(401);
    expect((await anonymous.post('/console/login', { token: 'nope' })).status).toBe(401);
  });

  it('basic auth: the browser prompt, and the user name is who acted', async () => {
    process.env.WISBRIDGE_CONSOLE_PASSWORD = 'pw-very-secret-99';
    const b = await consoleOn(seedTwoFailures, 'auth: { username: ops, password: { env: WISBRIDGE_CONSOLE_PASSWORD } }');
    const none = await fetch(`${b.url}/console`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Basic realm="wisbridge console"');
    const basic = (user: string, pw: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}` });
    expect((await fetch(`${b.url}/console`, { headers: basic('ops', 'wrong') })).status).toBe(401);
    const ok = await fetch(`${b.url}/console`, { headers: basic('ops', 'pw-very-secret-99') });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(text).toContain('<td>stock</td>');
    expect(text).not.toContain('pw-very-secret-99');
  });
});

describe('console: pages on the journal', () => {
  it('lists files with server-side filters, one file\'s rows by status, uncertain rows with hints, jobs and journal size', async () => {
    const b = await consoleOn(seedTwoFailures);
    const c = consoleClient(b.url);
    const overview = await c.get('/console');
    expect(overview.status).toBe(200);
    expect(overview.text).toMatch(/<td>stock<\/td><td>inbound<\/td><td>wms<\/td>/);
    expect(overview.text).toContain('<b>1</b> failed document(s)');
    expect(overview.text).toMatch(/Journal: [\d.]+ KiB · oldest entry \d{4}-/);
    expect(overview.headers.get('content-security-policy')).toContain("script-src 'self'");

    const all = await c.get('/console/files');
    expect([...all.text.matchAll(/href="\/console\/files\/(\d+)">([^<]+)</g)].map((m) => m[2])).toEqual(['KORR_b.csv', 'KORR_a.csv']);
    const byName = await c.get('/console/files?name=korr_A');
    expect(byName.text).toContain('KORR_a.csv');
    expect(byName.text).not.toContain('KORR_b.csv');
    const done = await c.get('/console/files?status=done&job=stock');
    expect(done.text).toContain('no files match');
    const today = new Date().toISOString().slice(0, 10);
    expect((await c.get(`/console/files?date=${today}&status=failed`)).text).toContain('KORR_b.csv');
    expect((await c.get('/console/files?date=2001-01-01')).text).toContain('no files match');

    const a = (await b.journal.listFiles({ limit: 10 })).find((f) => f.name === 'KORR_a.csv')!;
    const rows = await c.get(`/console/files/${a.fileId}`);
    const statuses = [...rows.text.matchAll(/<tr data-seq="(\d+)" data-status="(\w+)">/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(statuses).toEqual(['2:ok', '3:error', '4:ok']);
    expect(rows.text).toContain('insufficient stock of SKU-00004');
    expect(rows.text).toMatch(/&quot;move_id&quot;:\d+/);
    const errorsOnly = await c.get(`/console/files/${a.fileId}?status=error`);
    expect([...errorsOnly.text.matchAll(/data-status="(\w+)"/g)].map((m) => m[1])).toEqual(['error']);

    const uncertain = await c.get('/console/uncertain');
    expect(uncertain.text).toContain('KORR_b.csv');
    expect(uncertain.text).toContain('check the stock of SKU-00005');
    for (const path of ['/console/exports', '/console/alerts', '/console/progress', '/console/rejected', '/console/actions']) {
      const res = await c.get(path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain(CONSOLE_TOKEN);
    }
    expect((await c.get('/console/files/999999')).status).toBe(404);
  });

  it('the file list shows every file event: a duplicate with its own id linking its original, a file refused before a claim; name contains finds them', async () => {
    const b = await consoleOn(async (journal) => {
      await seedTwoFailures(journal);
      const original = (await journal.listFiles({ limit: 10 })).find((f) => f.name === 'KORR_a.csv')!;
      // KORR_a's content again under another name, then an empty file: what the pipeline records of each.
      await journal.recordFileEvent({
        drop: 'wms', name: 'KORR_a_again.csv', kind: 'duplicate', originalFileId: original.fileId, resultName: 'KORR_a_again.result.csv',
        reason: `duplicate: the same content was already processed as KORR_a.csv on ${original.finishedAt} (failed); not applied again`,
      });
      await journal.recordFileEvent({ drop: 'wms', name: 'KORR_empty.csv', kind: 'rejected', reason: 'FILE_UNREADABLE: KORR_empty.csv is empty' });
    });
    const { journal } = b;
    const original = (await journal.listFiles({ limit: 10 })).find((f) => f.name === 'KORR_a.csv')!;
    const [refused, duplicate] = await journal.recentFileEvents(2);
    expect([refused.kind, duplicate.kind]).toEqual(['rejected', 'duplicate']);
    const c = consoleClient(b.url);

    const all = await c.get('/console/files');
    const lines = [...all.text.matchAll(/<tr data-(file|event)="(\d+)"/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(lines).toEqual([`event ${refused.eventId}`, `event ${duplicate.eventId}`, ...(await journal.listFiles({ limit: 10 })).map((f) => `file ${f.fileId}`)]);
    const again = await c.get('/console/files?name=a_AGAIN');
    expect(again.text).toContain(`<tr data-event="${duplicate.eventId}" data-kind="duplicate"><td class="num" title="file event ${duplicate.eventId}">E${duplicate.eventId}</td><td>KORR_a_again.csv</td>`);
    expect(again.text).toContain(`duplicate of <a class="original" href="/console/files/${original.fileId}">KORR_a.csv (file ${original.fileId})</a>`);
    expect(again.text).not.toContain('KORR_b.csv');
    const empty = await c.get('/console/files?name=korr_empty');
    expect(empty.text).toContain(`<tr data-event="${refused.eventId}" data-kind="rejected">`);
    expect(empty.text).toMatch(/refused before its claim: FILE_UNREADABLE: KORR_empty\.csv is empty/);
    expect((await c.get('/console/files?status=rejected&job=stock')).text).toContain('KORR_empty.csv');
    const dups = await c.get('/console/files?status=duplicate');
    expect([...dups.text.matchAll(/<tr data-(file|event)="(\d+)"/g)].map((m) => `${m[1]} ${m[2]}`)).toEqual([`event ${duplicate.eventId}`]);
    expect((await c.get('/console/files?status=failed')).text).not.toContain('KORR_a_again.csv');
  });
});
