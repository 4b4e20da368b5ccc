import { request as httpRequest } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { flowRunners } from '../../src/service/runners.js';
import { BridgeService } from '../../src/service/service.js';
import { useEmulator } from '../support/emulator.js';
import { korrFile, tempConfig, until, useCleanups } from '../service/support.js';
import { CONSOLE_TOKEN, consoleClient, consoleConfig } from './support.js';

/** The console tried as an attacker would: other spellings of a path, odd parameters, big forms, other sites' forms. */
const emu = useEmulator();
const cleanups = useCleanups();
beforeAll(() => {
  process.env.WISBRIDGE_TEST_TOKEN = emu.token;
});

const TOKEN_AUTH = 'auth: { bearer_token: { file: console-token } }';

async function startBridge(auth = TOKEN_AUTH, url = 'http://127.0.0.1:9') {
  const env = await tempConfig(consoleConfig(url, auth), { load: false });
  writeFileSync(join(env.dir, 'console-token'), CONSOLE_TOKEN + '\n');
  const bridge = new BridgeService(await loadConfig(env.file), { runners: flowRunners });
  cleanups.push(env.cleanup, () => bridge.stop('test'));
  await bridge.start();
  return { env, bridge, url: bridge.url!, c: consoleClient(bridge.url!), anonymous: consoleClient(bridge.url!, null) };
}

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; text: string }

/** A request sent byte for byte as given (fetch would tidy the path up first); `chunked`: the body without a length. */
function raw(base: string, method: string, path: string, options: { headers?: Record<string, string>; body?: string; chunked?: boolean } = {}): Promise<Answer> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      if (!options.chunked) headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (options.body !== undefined && options.chunked) {
      // Two chunks: the second takes the form over the limit.
      req.write(options.body.slice(0, 1000));
      req.end(options.body.slice(1000));
    } else req.end(options.body);
  });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const bearer = { authorization: `Bearer ${CONSOLE_TOKEN}` };
const sessionOf = (answer: Answer) => String(answer.headers['set-cookie'] ?? '').split(';')[0];

describe('console hardening: one meaning per path', () => {
  it('other spellings of the login and of a page are refused unchecked (400), the right token too; the throttle holds on the canonical route', async () => {
    const b = await startBridge();
    for (let i = 0; i < 10; i++) expect((await raw(b.url, 'POST', '/console/login', { body: form({ token: `guess-${i}` }) })).status).toBe(401);
    expect((await raw(b.url, 'POST', '/console/login', { body: form({ token: CONSOLE_TOKEN }) })).status).toBe(429);
    // A trailing slash is the same route: throttled too.
    expect((await raw(b.url, 'POST', '/console/login/', { body: form({ token: CONSOLE_TOKEN }) })).status).toBe(429);
    for (const path of ['/console/./login', '/console/%2e/login', '/console/%2E%2e/console/login', '/console\\login', '//console/login', '/x/../console/login']) {
      const answer = await raw(b.url, 'POST', path, { body: form({ token: CONSOLE_TOKEN }) });
      expect(answer.status, path).toBe(400);
      expect(answer.headers['set-cookie'], path).toBeUndefined();
    }
    for (const path of ['/./console/files', '/x/../console/files', '/console/./files', '/console/files/%2e%2e/actions', `http://127.0.0.1/console/files`]) {
      const answer = await raw(b.url, 'GET', path, { headers: bearer });
      expect(answer.status, path).toBe(400);
      expect(answer.text, path).toContain('not a canonical path');
    }
  });

  it('/console/charts?range= with an inherited property name shows the default range', async () => {
    const b = await startBridge();
    for (const range of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const answer = await b.c.get(`/console/charts?range=${range}`);
      expect(answer.status, range).toBe(200);
      expect(answer.text, range).toContain('<b>last 24 hours</b>');
    }
  });
});

/** Actions on one thing and on many at once (a selection of alerts, of uncertain requests): every one checks the origin, then the one-time token. */
const BULK_AND_SINGLE_ACTIONS = ['/console/alerts/1/acknowledge', '/console/alerts/acknowledge?ids=1,2', '/console/uncertain/resolve?file=1&request=2'];

describe('console hardening: forms and headers', () => {
  it('a form over 16 KiB is answered 413 before any sign-in work, declared or chunked, signed in or not; no stack trace', async () => {
    const b = await startBridge();
    const big = form({ token: CONSOLE_TOKEN, pad: 'x'.repeat(17 * 1024) });
    for (const chunked of [false, true]) {
      const login = await raw(b.url, 'POST', '/console/login', { body: big, chunked });
      expect(login.status, `chunked ${chunked}`).toBe(413);
      expect(login.headers['set-cookie']).toBeUndefined();
      expect(login.text).toContain('larger than the console takes');
      expect(login.text).not.toMatch(/\n\s+at /);
      const action = await raw(b.url, 'POST', '/console/alerts/1/acknowledge', { body: big, chunked, headers: bearer });
      expect(action.status, `chunked ${chunked}`).toBe(413);
    }
    // Not counted as failed sign-ins: ten wrong tokens still get their 401.
    for (let i = 0; i < 10; i++) expect((await raw(b.url, 'POST', '/console/login', { body: form({ token: 'nope' }) })).status).toBe(401);
  });

  it('/console/events carries the pages\' security headers', async () => {
    const b = await startBridge();
    const { port } = new URL(b.url);
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/console/events', headers: bearer }, (res) => {
        resolve(res.headers);
        req.destroy();
      });
      req.on('error', reject).end();
    });
    expect(headers['content-type']).toBe('text/event-stream');
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('same-origin');
    expect(headers['cache-control']).toBe('no-store');
  });

  it('a POST naming another origin (Origin, else Referer; "null" too) is refused 403 before its token is looked at; the own origin passes to the token check', async () => {
    const b = await startBridge();
    const own = b.url;
    const body = form({ csrf: 'whatever' });
    for (const path of BULK_AND_SINGLE_ACTIONS) {
      for (const headers of <Array<Record<string, string>>>[{ origin: 'https://evil.example' }, { referer: 'https://evil.example/page' }, { origin: 'null' }, { origin: `${own}.evil.example` }]) {
        const answer = await raw(b.url, 'POST', path, { body, headers: { ...bearer, ...headers } });
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(answer.text).toContain('sent from another site');
      }
      for (const headers of <Array<Record<string, string>>>[{ origin: own }, { referer: `${own}/console/alerts` }, {}]) {
        const answer = await raw(b.url, 'POST', path, { body, headers: { ...bearer, ...headers } });
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(answer.text).toContain('CSRF check failed');
      }
    }
    // The login form too: another site cannot sign a browser in, even with the right token.
    const foreignLogin = await raw(b.url, 'POST', '/console/login', { body: form({ token: CONSOLE_TOKEN }), headers: { origin: 'https://evil.example' } });
    expect(foreignLogin.status).toBe(403);
    expect(foreignLogin.headers['set-cookie']).toBeUndefined();
    expect((await raw(b.url, 'POST', '/console/login', { body: form({ token: CONSOLE_TOKEN }), headers: { origin: own } })).status).toBe(303);
  });

  it('sign-out needs the session\'s form token: a GET, a POST without it or from another site leaves the session signed in', async () => {
    const b = await startBridge();
    const login = await raw(b.url, 'POST', '/console/login', { body: form({ token: CONSOLE_TOKEN }) });
    const cookie = sessionOf(login);
    expect(cookie).toMatch(/^wisbridge_console=/);
    const signedIn = async () => (await raw(b.url, 'GET', '/console/files', { headers: { cookie } })).status === 200;
    const page = await raw(b.url, 'GET', '/console/files', { headers: { cookie } });
    const token = /name="session_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    expect(token).toBeTruthy();

    expect((await raw(b.url, 'GET', '/console/logout', { headers: { cookie } })).status).toBe(404);
    expect(await signedIn()).toBe(true);
    for (const fields of <Array<Record<string, string>>>[{}, { session_csrf: 'forged' }, { csrf: token! }]) {
      expect((await raw(b.url, 'POST', '/console/logout', { body: form(fields), headers: { cookie } })).status, JSON.stringify(fields)).toBe(403);
      expect(await signedIn()).toBe(true);
    }
    const foreign = await raw(b.url, 'POST', '/console/logout', { body: form({ session_csrf: token! }), headers: { cookie, origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(await signedIn()).toBe(true);

    const out = await raw(b.url, 'POST', '/console/logout', { body: form({ session_csrf: token! }), headers: { cookie, origin: b.url } });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/console/login');
    expect(await signedIn()).toBe(false);
  });

  it('console.trust_proxy: the proxy\'s X-Forwarded-Proto https marks the cookie Secure, its X-Forwarded-Host is the own origin; without the option both are ignored', async () => {
    const proxied = await startBridge(`${TOKEN_AUTH}\n  trust_proxy: true`);
    const viaTls = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bridge.example.com', origin: 'https://bridge.example.com' };
    const secure = await raw(proxied.url, 'POST', '/console/login', { body: form({ token: CONSOLE_TOKEN }), headers: viaTls });
    expect(secure.status).toBe(303);
    expect(String(secure.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Path=\/console; Max-Age=\d+; Secure$/);
    const plain = await raw(proxied.url, 'POST', '/console/login', { body: form({ token: CONSOLE_TOKEN }), headers: { 'x-forwarded-proto': 'http' } });
    expect(String(plain.headers['set-cookie'])).not.toContain('Secure');

    const direct = await startBridge();
    expect((await raw(direct.url, 'POST', '/console/login', { body: form({ token: CONSOLE_TOKEN }), headers: viaTls })).status).toBe(403);
    const forged = await raw(direct.url, 'POST', '/console/login', { body: form({ token: CONSOLE_TOKEN }), headers: { 'x-forwarded-proto': 'https' } });
    expect(forged.status).toBe(303);
    expect(String(forged.headers['set-cookie'])).not.toContain('Secure');
  });

  it('errors about a drop name its folders relative to the drop, never the absolute path', async () => {
    const b = await startBridge();
    const errorDir = join(b.env.dir, 'drop', 'error');
    rmSync(errorDir, { recursive: true });
    writeFileSync(errorDir, 'not a folder');
    const rejected = await b.c.get('/console/rejected');
    expect(rejected.status).toBe(200);
    expect(rejected.text).toContain('drop wms: cannot list error folder error');
    const reprocess = await b.c.get('/console/rejected/reprocess?drop=wms&name=KORR_x.csv');
    expect(reprocess.text).toContain('cannot stat error/KORR_x.csv');
    for (const answer of [rejected, reprocess]) {
      expect(answer.text).not.toContain(b.env.dir);
      expect(answer.text).not.toContain('/drop/error');
    }
  });
});

describe('console hardening: downloads', () => {
  it('a result file of a partner file named beyond ASCII downloads (RFC 6266 filename*); a HEAD gets the headers, no body, and is not recorded', async () => {
    const b = await startBridge(TOKEN_AUTH, emu.url);
    const name = 'KORR_€_日本_ü.csv';
    writeFileSync(join(b.env.dir, 'drop', 'inbox', name), korrFile([['SKU-00001', 1, 'U-1']]));
    const journal = await b.bridge.runtime.journal();
    const file = await until(async () => (await journal.listFiles({ limit: 10 })).find((f) => f.name === name && f.disposedTo !== null), name);
    const downloads = async () => (await journal.console.listActions({ fileId: file.fileId, limit: 10 })).filter((a) => a.action === 'download');

    const head = await raw(b.url, 'HEAD', `/console/files/${file.fileId}/result`, { headers: bearer });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-disposition']).toBe(`attachment; filename="KORR_______.result.csv"; filename*=UTF-8''${encodeURIComponent('KORR_€_日本_ü.result.csv')}`);
    expect(await downloads()).toHaveLength(0);

    const got = await b.c.get(`/console/files/${file.fileId}/result`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toBe(head.headers['content-disposition']);
    expect(got.text).toContain('SKU-00001');
    expect(await downloads()).toHaveLength(1);
  });
});
