import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal/index.js';
import { rawDatabase } from '../../src/journal/test-support.js';
import { setFaults, useEmulator } from '../support/emulator.js';
import { parseCsv, ROOT } from '../pipeline/helpers.js';
import { korrFile, tempConfig, until, useCleanups } from '../service/support.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { bridgeWithFailures, CONSOLE_TOKEN, consoleClient } from './support.js';
import { testHooks } from '../../src/journal/testing.js';

const emu = useEmulator({ resetEachTest: true });
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

describe('console: access', () => {
  it('is off without a console: section; with one, nothing is shown without the token', async () => {
    const env = await tempConfig(`${(await import('../service/support.js')).baseConfig(emu.url)}\nmetrics: { host: 127.0.0.1, port: 0 }\n`);
    const bridge = new BridgeService(env.loaded, { runners: flowRunners });
    cleanups.push(env.cleanup, () => bridge.stop('test'));
    await bridge.start();
    const off = await fetch(`${bridge.url}/console`);
    expect(off.status).toBe(404);
    expect(await off.text()).toContain('the console is off');
    expect((await fetch(`${bridge.url}/metrics`)).status).toBe(200);

    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
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
    const b = await bridgeWithFailures(emu, 'auth: { username: ops, password: { env: WISBRIDGE_CONSOLE_PASSWORD } }');
    cleanups.push(() => b.close());
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
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
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

    const journal = await b.bridge.runtime.journal();
    const a = (await journal.listFiles({ limit: 10 })).find((f) => f.name === 'KORR_a.csv')!;
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
      expect(res.text, path).not.toContain(emu.token);
    }
    expect((await c.get('/console/files/999999')).status).toBe(404);
  });

  it('the file list shows every file event: a duplicate with its own id linking its original, a file refused before a claim; name contains finds them', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const inbox = join(b.env.dir, 'drop', 'inbox');
    const journal = await b.bridge.runtime.journal();
    const original = (await journal.listFiles({ limit: 10 })).find((f) => f.name === 'KORR_a.csv')!;
    // KORR_a's content again (support.ts's bridgeWithFailures), under another name.
    writeFileSync(join(inbox, 'KORR_a_again.csv'), korrFile([['SKU-00001', 1, 'A-1'], ['SKU-00004', -500, 'A-2'], ['SKU-00002', 1, 'A-3']]));
    await until(async () => (await journal.countFileEvents()) >= 1, 'the duplicate');
    writeFileSync(join(inbox, 'KORR_empty.csv'), '');
    await until(async () => (await journal.countFileEvents()) >= 2, 'the empty file');
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

describe('console: actions, confirmed, CSRF-protected and recorded', () => {
  it('re-drives failed rows and resolves an uncertain row through the CLI code paths; the note reaches the result file', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const c = consoleClient(b.url);
    const journal = await b.bridge.runtime.journal();
    const files = await journal.listFiles({ limit: 10 });
    const a = files.find((f) => f.name === 'KORR_a.csv')!;
    const bFile = files.find((f) => f.name === 'KORR_b.csv')!;

    const confirm = await c.get(`/console/files/${a.fileId}/redrive`);
    expect(confirm.text).toContain('Re-drive the failed rows');
    const csrf = c.csrfOf(confirm.text);
    expect(csrf).not.toBe('');
    // Without the token nothing happens.
    expect((await c.post(`/console/files/${a.fileId}/redrive`, { csrf: 'forged' })).status).toBe(403);
    expect((await journal.getFile(a.fileId)).redrives).toBe(0);
    // Stock arrives, then the re-drive: only the failed row is sent.
    await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    const redriven = await c.post(`/console/files/${a.fileId}/redrive`, { csrf, by: 'Maria' });
    expect(redriven.status).toBe(200);
    expect(redriven.text).toMatch(/1 row\(s\) sent again, 1 ok, 0 error, 0 uncertain; file is now done/);
    expect(await journal.getFile(a.fileId)).toMatchObject({ status: 'done', redrives: 1 });

    const [item] = await journal.uncertainItems(bFile.fileId);
    const form = await c.get(`/console/files/${bFile.fileId}/resolve?item=${item.itemId}`);
    // A second operator opened the same row meanwhile.
    const secondForm = await c.get(`/console/files/${bFile.fileId}/resolve?item=${item.itemId}`);
    expect(form.text).toContain('check the stock of SKU-00005');
    const resolved = await c.post(`/console/files/${bFile.fileId}/resolve?item=${item.itemId}`, {
      csrf: c.csrfOf(form.text), by: 'Maria', resolution: 'applied', note: 'move 77 found in the service',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.location).toMatch(/^\/console\/actions\/\d+$/);
    expect(resolved.text).toContain('file is now done');
    const row = parseCsv(readFileSync(join(b.outbox, 'KORR_b.result.csv'), 'utf8')).find((r) => r.line === '2')!;
    expect(row).toMatchObject({ status: 'ok', message: 'applied: move 77 found in the service', check: '' });
    // Resolving twice is refused, and recorded as such.
    const again = await c.post(`/console/files/${bFile.fileId}/resolve?item=${item.itemId}`, { csrf: c.csrfOf(secondForm.text), resolution: 'applied', note: 'x' });
    expect(again.text).toContain('is not uncertain (resolved already?)');

    const raw = await openJournal(journal.address);
    try {
      const actions = rawDatabase(raw).prepare('SELECT action, file_id, actor, via, outcome, at FROM operator_actions ORDER BY id').all();
      expect(actions).toEqual([
        { action: 'redrive', file_id: a.fileId, actor: 'Maria (console token)', via: 'console', outcome: 'ok', at: expect.stringMatching(/^\d{4}-/) },
        { action: 'resolve applied', file_id: bFile.fileId, actor: 'Maria (console token)', via: 'console', outcome: 'ok', at: expect.any(String) },
        { action: 'resolve applied', file_id: bFile.fileId, actor: 'console token', via: 'console', outcome: 'failed', at: expect.any(String) },
      ]);
      expect((await testHooks(raw).itemHistory(item.itemId))[0]).toMatchObject({ status: 'uncertain', hint: expect.stringContaining('SKU-00005') });
    } finally {
      await raw.close();
    }
    const log = await c.get('/console/actions');
    expect(log.text).toContain('Maria (console token)');

    const download = await c.get(`/console/files/${bFile.fileId}/result`);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="KORR_b.result.csv"');
    expect(download.text).toContain('applied: move 77 found in the service');
  });

  it('a re-drive under way when the bridge stops finishes before the journal closes; none starts once it is stopping', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const c = consoleClient(b.url);
    const journal = await b.bridge.runtime.journal();
    const a = (await journal.listFiles({ limit: 10 })).find((f) => f.name === 'KORR_a.csv')!;
    const csrf = c.csrfOf((await c.get(`/console/files/${a.fileId}/redrive`)).text);
    // A second tab's form: sent once the bridge is stopping.
    const secondCsrf = c.csrfOf((await c.get(`/console/files/${a.fileId}/redrive`)).text);
    await emu.request('POST', '/v1/inventory/adjustments.json', { adjustments: [{ product_code: 'SKU-00004', quantity: 1000, company_code: 'ACME', reference: 'TOPUP' }] });
    // The service answers slowly: the re-drive's request is on the wire when the bridge is told to stop.
    await setFaults(emu, { latency_ms: 1500, path_prefix: '/v1/inventory' });
    // Not followed to its result page: the journal closes right after the action.
    const redriven = c.request(`/console/files/${a.fileId}/redrive`, { form: { csrf, by: 'Maria' } });
    await until(async () => (await journal.getFile(a.fileId)).redrives === 1, 'the re-drive to start');
    const stopped = b.bridge.stop('test');
    const refused = await c.post(`/console/files/${a.fileId}/redrive`, { csrf: secondCsrf, by: 'Maria' });
    expect(refused.text).toContain('the bridge is stopping: nothing was done');
    expect((await redriven).status).toBe(303);
    await stopped;
    const reopened = await openJournal(b.loaded.journal);
    try {
      expect(await reopened.getFile(a.fileId)).toMatchObject({ status: 'done', redrives: 1 });
      expect(await reopened.backlog()).toMatchObject({ sentRequests: 0 });
      const actions = rawDatabase(reopened).prepare('SELECT action, outcome, detail FROM operator_actions ORDER BY id').all();
      expect(actions).toEqual([{ action: 'redrive', outcome: 'ok', detail: expect.stringMatching(/1 row\(s\) sent again, 1 ok, 0 error, 0 uncertain; file is now done/) }]);
    } finally {
      await reopened.close();
    }
  });

  it('wisbridge resolve and retry on the command line are recorded in the same audit trail (via cli), shown by the console', async () => {
    const b = await bridgeWithFailures(emu);
    cleanups.push(() => b.close());
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(ROOT, 'bin/wisbridge.js'), ...args, '--config', b.env.file],
      { encoding: 'utf8', env: { ...process.env, WISBRIDGE_TEST_TOKEN: emu.token } });
    const first = cli('resolve', '--file', 'KORR_b.csv', '--not-applied', '--note', 'no move for B-1', '--by', 'Jo');
    expect(first.status, first.stderr).toBe(1); // the row is now failed: exit 1, as the exit-code table says
    const again = cli('resolve', '--file', 'KORR_b.csv', '--applied', '--note', 'x', '--by', 'Jo');
    expect(again.status).toBe(2);
    const journal = await b.bridge.runtime.journal();
    const rows = rawDatabase(journal).prepare(`SELECT action, file_id, target, actor, via, outcome FROM operator_actions ORDER BY id`).all();
    const fileId = (await journal.listFiles({ limit: 5 })).find((f) => f.name === 'KORR_b.csv')!.fileId;
    expect(rows).toEqual([
      { action: 'resolve not-applied', file_id: fileId, target: 'all uncertain rows', actor: 'Jo', via: 'cli', outcome: 'ok' },
      { action: 'resolve applied', file_id: null, target: 'all uncertain rows', actor: 'Jo', via: 'cli', outcome: 'failed' },
    ]);
    const page = await consoleClient(b.url).get('/console/actions');
    expect(page.text).toContain('resolve not-applied');
    expect(page.text).toContain('no move for B-1');
  });
});
