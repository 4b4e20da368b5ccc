import { describe, expect, it } from 'vitest';
import { useCleanups } from '../service/support.js';
import { HttpBrowser, oidcConsole } from './oidc-support.js';
import { CONSOLE_TOKEN, consoleClient } from './support.js';

/**
 * Sign-in with a company identity provider: a real OpenID Provider (oidc-provider) on loopback, the console as its
 * client (authorization code with PKCE, discovery), driven over plain HTTP with the provider's own login and consent
 * forms. Roles come from the `groups` claim.
 */
const cleanups = useCleanups();

async function started(options: Parameters<typeof oidcConsole>[0] = { auth: 'auth: { bearer_token: { file: console-token }, role: viewer }' }) {
  const c = await oidcConsole(options);
  cleanups.push(() => c.close());
  return c;
}

async function signedIn(c: Awaited<ReturnType<typeof oidcConsole>>, account: string) {
  const browser = new HttpBrowser();
  const landed = await browser.signIn(`${c.url}/console/oidc/start`, account, c.url);
  return { browser, landed, get: (path: string) => browser.request(`${c.url}${path}`), post: (path: string, form: Record<string, string>) => browser.request(`${c.url}${path}`, { form, origin: c.url }) };
}

const csrfOf = (text: string) => /name="csrf" value="([^"]+)"/.exec(text)?.[1] ?? '';

describe('console sign-in with an OpenID Connect provider', () => {
  it('an operator signs in, acknowledges an alert, and the actions log names them', async () => {
    const c = await started();
    const login = await new HttpBrowser().request(`${c.url}/console/login`);
    expect(login.text).toContain('Sign in with Example Corp');
    const otto = await signedIn(c, 'otto');
    expect(otto.landed.status).toBe(200);
    expect(otto.landed.url).toContain('/console/oidc/callback?');
    expect(otto.landed.text).toContain('Signed in as otto (operator');
    expect(otto.landed.headers.get('refresh')).toBe('0; url=/console');
    expect(otto.browser.cookies(c.url).get('wisbridge_console')).toBeTruthy();

    const alerts = await otto.get('/console/alerts');
    expect(alerts.status).toBe(200);
    expect(alerts.text).toContain('otto · operator');
    expect(alerts.text).toContain('acknowledge…');
    const [alert] = (await c.journal.console.listAlerts({ limit: 10 })).open;
    const confirm = await otto.get(`/console/alerts/${alert.id}/acknowledge`);
    expect(confirm.text).toContain('recorded as <b>otto</b>');
    const done = await otto.post(`/console/alerts/${alert.id}/acknowledge`, { csrf: csrfOf(confirm.text) });
    expect(done.status).toBe(303);
    const [entry] = await c.journal.console.listActions({ limit: 1 });
    expect(entry).toMatchObject({ actor: 'otto', via: 'console', outcome: 'ok' });
    expect((await c.journal.console.getAlert(alert.id))?.acknowledgedBy).toBe('otto');
    expect(c.log.find((l) => l.msg === 'console: signed in')).toMatchObject({ name: 'otto', role: 'operator' });

    // A person without a user name is named by their e-mail.
    const mia = await signedIn(c, 'mia');
    expect(mia.landed.text).toContain('Signed in as mia@example.com (operator');
  });

  it('a viewer reads every page but is shown no action, and gets 403 on a confirm page and on an action; nothing changes', async () => {
    const c = await started();
    const vera = await signedIn(c, 'vera');
    for (const path of ['/console', '/console/files', '/console/uncertain', '/console/alerts', '/console/files/1', '/console/files/2', '/console/rejected', '/console/actions']) {
      const page = await vera.get(path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain('vera · viewer');
      expect(page.text, path).not.toMatch(/acknowledge…|resolve…|Re-drive|Resolve the chosen|Acknowledge the chosen|re-process…|resolve the file/);
    }
    const [alert] = (await c.journal.console.listAlerts({ limit: 10 })).open;
    const confirm = await vera.get(`/console/alerts/${alert.id}/acknowledge`);
    expect(confirm.status).toBe(403);
    expect(confirm.text).toContain('with the viewer role');
    expect(confirm.text).not.toContain('name="csrf"');
    const posted = await vera.post(`/console/alerts/${alert.id}/acknowledge`, { csrf: 'anything' });
    expect(posted.status).toBe(403);
    expect(posted.text).toContain('This needs the operator role; nothing was done');
    expect((await vera.get('/console/files/1/redrive')).status).toBe(403);
    expect((await c.journal.console.getAlert(alert.id))?.acknowledgedAt).toBeNull();
    expect(await c.journal.console.listActions({ limit: 10 })).toEqual([]);
    // The result file is read, not acted on: a viewer may download it.
    expect((await vera.get('/console/sign-ins')).status).toBe(403);
  });

  it('a person in no mapped group is refused (403), with no session', async () => {
    const c = await started();
    const nobody = await signedIn(c, 'nobody');
    expect(nobody.landed.status).toBe(403);
    expect(nobody.landed.text).toContain('no value of its &quot;groups&quot; claim (staff) is given a console role');
    expect(nobody.browser.cookies(c.url).has('wisbridge_console')).toBe(false);
  });

  it('a wrong state, a tampered nonce or PKCE challenge, and an answer replayed are refused (401); nothing is signed in', async () => {
    const c = await started();
    // The provider's answer to another sign-in than the one this browser started (state differs).
    const browser = new HttpBrowser();
    const first = await browser.request(`${c.url}/console/oidc/start`);
    await browser.request(`${c.url}/console/oidc/start`);
    const otherFlow = browser.cookies(c.url).get('wisbridge_console_oidc');
    browser.cookies(c.url).set('wisbridge_console_oidc', otherFlow!);
    const crossed = await browser.signIn(first.headers.get('location')!, 'otto', c.url);
    expect(crossed.status).toBe(401);
    expect(crossed.text).toMatch(/Sign-in refused|No sign-in was started/);
    expect(browser.cookies(c.url).has('wisbridge_console')).toBe(false);

    const tampered = async (change: (u: URL) => void) => {
      const b = new HttpBrowser();
      const answer = await b.signIn(`${c.url}/console/oidc/start`, 'otto', c.url, change);
      expect(b.cookies(c.url).has('wisbridge_console')).toBe(false);
      return answer;
    };
    const nonce = await tampered((u) => u.searchParams.set('nonce', 'forged-nonce-0000'));
    expect(nonce.status).toBe(401);
    expect(nonce.text).toContain('nonce');
    const pkce = await tampered((u) => u.searchParams.set('code_challenge', 'A'.repeat(43)));
    expect(pkce.status).toBe(401);
    expect(pkce.text).toContain('invalid_grant');

    // The same answer twice: the flow is taken once.
    const b = new HttpBrowser();
    const ok = await b.signIn(`${c.url}/console/oidc/start`, 'otto', c.url);
    expect(ok.status).toBe(200);
    b.cookies(c.url).set('wisbridge_console_oidc', 'replayed');
    expect((await b.request(ok.url)).status).toBe(401);
    expect(c.log.filter((l) => l.msg === 'sign-in refused: wrong credentials' && l.via === 'identity provider').length).toBeGreaterThanOrEqual(4);
  });

  it('sign-out ends the session', async () => {
    const c = await started();
    const otto = await signedIn(c, 'otto');
    const page = await otto.get('/console/files');
    const token = /name="session_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    const out = await otto.post('/console/logout', { session_csrf: token! });
    expect(out.status).toBe(303);
    expect(otto.browser.cookies(c.url).has('wisbridge_console')).toBe(false);
    expect((await otto.get('/console/files')).status).toBe(303);
  });

  it('an admin sees who is signed in and ends a session, recorded; an operator may not', async () => {
    const c = await started();
    const otto = await signedIn(c, 'otto');
    const ada = await signedIn(c, 'ada');
    expect((await otto.get('/console/sign-ins')).status).toBe(403);
    expect((await otto.get('/console')).text).not.toContain('/console/sign-ins');
    const list = await ada.get('/console/sign-ins');
    expect(list.status).toBe(200);
    expect(list.text).toContain('ada · admin');
    const row = new RegExp(`<tr data-session="([^"]+)"><td>otto</td>[\\s\\S]*?name="csrf" value="([^"]+)"`).exec(list.text);
    expect(row).not.toBeNull();
    const ended = await ada.post(`/console/sign-ins/end?session=${row![1]}`, { csrf: row![2] });
    expect(ended.status).toBe(303);
    expect((await otto.get('/console/files')).status).toBe(303);
    const [entry] = await c.journal.console.listActions({ limit: 1 });
    expect(entry).toMatchObject({ actor: 'ada', action: 'end session', outcome: 'ok' });
    expect(entry.detail).toContain('ended the session of otto (operator');
  });

  it('the bearer token keeps working beside it, with its configured role (here viewer)', async () => {
    const c = await started();
    const bearer = consoleClient(c.url, CONSOLE_TOKEN);
    expect((await bearer.get('/console/files')).status).toBe(200);
    const refused = await bearer.post('/console/alerts/1/acknowledge', { csrf: 'x' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('token holder with the viewer role');
    // The login page offers both.
    const login = await new HttpBrowser().request(`${c.url}/console/login`);
    expect(login.text).toContain('id="oidc-sign-in"');
    expect(login.text).toContain('name="token"');
  });

  it('basic auth beside it, with the admin role: scripts act and see the sign-ins page, recorded under the user name', async () => {
    process.env.WISBRIDGE_CONSOLE_PASSWORD = 'pw-basic-admin-77';
    const c = await started({ auth: 'auth: { username: robot, password: { env: WISBRIDGE_CONSOLE_PASSWORD }, role: admin }' });
    const basic = { authorization: `Basic ${Buffer.from('robot:pw-basic-admin-77').toString('base64')}` };
    const get = (path: string) => fetch(`${c.url}${path}`, { headers: basic });
    expect((await get('/console/sign-ins')).status).toBe(200);
    const [alert] = (await c.journal.console.listAlerts({ limit: 10 })).open;
    const confirm = await (await get(`/console/alerts/${alert.id}/acknowledge`)).text();
    const done = await fetch(`${c.url}/console/alerts/${alert.id}/acknowledge`, {
      method: 'POST', redirect: 'manual', headers: { ...basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: csrfOf(confirm) }).toString(),
    });
    expect(done.status).toBe(303);
    expect((await c.journal.console.listActions({ limit: 1 }))[0]).toMatchObject({ actor: 'robot', outcome: 'ok' });
    // Without credentials a script is asked for basic auth; a browser is sent to the login page (the provider's button).
    expect((await fetch(`${c.url}/console/files`)).headers.get('www-authenticate')).toContain('Basic');
    const browser = await fetch(`${c.url}/console/files`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(browser.headers.get('location')).toBe('/console/login');
  });
});
