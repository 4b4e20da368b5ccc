import type { IncomingMessage, ServerResponse } from 'node:http';
import { OIDC_CALLBACK_PATH } from '../config/console.js';
import { WisbridgeError } from '../errors.js';
import type { Logger } from '../log.js';
import { recorded } from './actions.js';
import { cookieOf, SESSION_COOKIE, sessionRef, type ConsoleAuth, type Principal } from './auth.js';
import { at, html, page, type Html } from './html.js';
import { FLOW_MS } from './oidc.js';
import { overHttps } from './origin.js';
import { messagePage } from './pages-misc.js';
import { send, type Route } from './respond.js';
import { ROLE_MEANING, type Role } from './roles.js';
import type { ActionRequest } from './routes.js';

// Signing in and out: the login page (the company's identity provider, and the bearer token when one is
// configured), the OpenID Connect redirect and callback, and the admin's list of who is signed in.

/** The cookie naming a sign-in under way at the provider: Lax, since the provider's answer is a navigation from its site. */
const FLOW_COOKIE = 'wisbridge_console_oidc';

/** The session cookie (`Secure` when the browser reached the console over HTTPS, as a trusted proxy says). */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/console; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

const flowCookie = (value: string, maxAgeSeconds: number, secure: boolean): string =>
  `${FLOW_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=/console/oidc; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;

function loginPage(auth: ConsoleAuth, failed: boolean): Html {
  const oidc = auth.oidc ? html`<div class="box" id="oidc-login"><p><a id="oidc-sign-in" href="/console/oidc/start">Sign in with ${auth.oidc.settings.provider_name}</a></p>
<p class="small muted">What you may do here comes from your groups there: a viewer reads, an operator also acts (re-drive, resolve, re-process, acknowledge), an admin also sees who is signed in.</p></div>` : '';
  const token = auth.takesToken ? html`${failed ? html`<div class="box bad">That token is not the console's.</div>` : ''}
<form method="post" action="/console/login" class="box" id="login"><label>console token <input type="password" name="token" required autocomplete="current-password"></label>
<button type="submit">Sign in</button></form>` : '';
  return html`${oidc}${token}`;
}

const signInPage = (title: string, body: Html) => page({ title, body });
const again = { href: '/console/login', label: 'sign in again' };

/**
 * Answers the sign-in addresses, which need no signed-in person: true when it did. The login form's POST and the
 * provider's callback are sign-in attempts (throttled, and counted when answered 401).
 */
export async function signInRoute(
  auth: ConsoleAuth, logger: Logger, req: IncomingMessage, res: ServerResponse, url: URL, path: string, form: URLSearchParams | undefined, trustProxy: boolean,
): Promise<boolean> {
  const secure = overHttps(req, trustProxy);
  if (path === '/console/login' && !auth.basicOnly && (!form || auth.takesToken)) {
    if (!form) send(res, 200, signInPage('Sign in', loginPage(auth, false)));
    else {
      const session = auth.login(form.get('token') ?? '');
      if (!session) send(res, 401, signInPage('Sign in', loginPage(auth, true)));
      else res.writeHead(303, { location: '/console', 'set-cookie': sessionCookie(session, auth.sessionSeconds, secure) }).end();
    }
    return true;
  }
  if (!auth.oidc || form) return false;
  if (path === '/console/oidc/start') {
    try {
      const { flowId, location } = await auth.oidc.start();
      res.writeHead(303, { location, 'set-cookie': flowCookie(flowId, FLOW_MS / 1000, secure), 'cache-control': 'no-store' }).end();
    } catch (error) {
      logger.error({ issuer: auth.oidc.settings.issuer, err: { message: (error as Error).message } }, 'console: the identity provider cannot be reached');
      send(res, 502, signInPage('Sign in', messagePage('bad', `The identity provider (${auth.oidc.settings.issuer}) cannot be reached: ${(error as Error).message}. Try again later.`, again)));
    }
    return true;
  }
  if (path !== OIDC_CALLBACK_PATH) return false;
  const outcome = await auth.oidc.finish(cookieOf(req, FLOW_COOKIE), url.searchParams);
  const clearFlow = flowCookie('', 0, secure);
  if (!outcome.ok) {
    logger.warn({ via: 'identity provider', status: outcome.status, reason: outcome.message }, 'console: sign-in with the identity provider refused');
    send(res, outcome.status, signInPage('Sign-in refused', messagePage('bad', outcome.message, again)), undefined, { 'set-cookie': clearFlow });
    return true;
  }
  const session = auth.open(outcome.name, outcome.role, 'oidc');
  logger.info({ via: 'identity provider', name: outcome.name, subject: outcome.subject, role: outcome.role }, 'console: signed in');
  // A page that moves on by itself rather than a redirect: the provider's site started this navigation, and a browser
  // does not send a SameSite=Strict cookie on a redirect of it, so /console would not see the session just made.
  send(res, 200, signInPage('Signed in', messagePage('good', `Signed in as ${outcome.name} (${outcome.role}: ${ROLE_MEANING[outcome.role]}).`, { href: '/console', label: 'open the console' })), undefined, {
    'set-cookie': [clearFlow, sessionCookie(session, auth.sessionSeconds, secure)] as unknown as string, refresh: '0; url=/console',
  });
  return true;
}

/** What the admin's sign-in pages and actions are given besides the usual request. */
export interface SignInContext {
  auth: ConsoleAuth;
  who: Principal;
  show(title: string, body: Html): void;
  /** The one-time token of a form posting to `action`. */
  once(action: string): string;
}

/** The admin's pages: who is signed in, and ending a session (its confirm page). */
export const SIGN_IN_PAGES: readonly (Route<SignInContext> & { needs: Role })[] = [
  { path: '/console/sign-ins', needs: 'admin', handle: (c) => c.show('Sign-ins', signInsPage(c)) },
];

function signInsPage(c: SignInContext): Html {
  const rows = c.auth.listSessions().map((s) => {
    const ref = sessionRef(s);
    const action = `/console/sign-ins/end?session=${ref}`;
    return html`<tr data-session="${ref}"><td>${s.name}</td><td>${s.role}</td><td>${s.via === 'oidc' ? 'identity provider' : 'console token'}</td>
<td>${at(new Date(s.signedInAt).toISOString())}</td><td>${at(new Date(s.expires).toISOString())}</td>
<td>${`session:${s.id}` === c.who.id ? html`<span class="muted small">(you)</span>` : html`<form method="post" action="${action}" style="margin:0"><input type="hidden" name="csrf" value="${c.once(action)}"><button type="submit" class="small end-session">end…</button></form>`}</td></tr>`;
  });
  const oidc = c.auth.oidc?.settings;
  return html`<p class="muted">Sessions of this instance (each instance keeps its own). Scripts signing in with the bearer token or basic auth on each request have none.</p>
<table id="sessions"><thead><tr><th>who</th><th>role</th><th>signed in with</th><th>since</th><th>until</th><th></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">nobody is signed in</td></tr>`}</tbody></table>
${oidc ? html`<h2>Roles from the identity provider</h2><p class="small">issuer <code>${oidc.issuer}</code> · client <code>${oidc.client_id}</code> · claim <code>${oidc.roles_claim}</code>${oidc.default_role ? ` · anyone else: ${oidc.default_role}` : ' · anyone else is refused'}</p>
<table id="role-map"><thead><tr><th>claim value</th><th>role</th></tr></thead><tbody>${Object.entries(oidc.roles).map(([value, role]) => html`<tr><td><code>${value}</code></td><td>${role}</td></tr>`)}</tbody></table>` : ''}`;
}

/** The admin's actions: ending another person's session (recorded in the actions log). */
export const SIGN_IN_ACTIONS: readonly (Route<ActionRequest & { auth: ConsoleAuth }> & { needs: Role })[] = [
  {
    path: '/console/sign-ins/end',
    needs: 'admin',
    handle: async (c) => {
      const ref = c.url.searchParams.get('session') ?? '';
      c.done(await recorded(c.source, { action: 'end session', fileId: null, target: `session ${ref}`, actor: c.actor }, async () => {
        const ended = c.auth.endSession(ref);
        if (!ended) throw new WisbridgeError('USAGE', 'no such session: it ended already (signed out or expired)');
        return `ended the session of ${ended.name} (${ended.role}, signed in with ${ended.via === 'oidc' ? 'the identity provider' : 'the console token'})`;
      }), { href: '/console/sign-ins', label: 'back to the sign-ins' });
    },
  },
];
