import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError, isWisbridgeError } from '../errors.js';
import type { ConsoleAuth, Principal } from './auth.js';
import { page, when, zoneLabel, type Html } from './html.js';
import { ActionTokens } from './once.js';
import { LIVE_SCRIPT } from './live-script.js';
import { messagePage } from './pages-misc.js';
import type { ConsoleSource } from './source.js';
import { ACTIONS, PAGES, type ActionRequest } from './routes.js';
import { foreignOrigin } from './origin.js';
import { describeForConsole } from './paths.js';
import { readForm, route, send, SECURITY_HEADERS, type Request, type Route } from './respond.js';
import { targetOf } from './target.js';
import { ACTION_ROLE, allows, ROLE_MEANING, type Role } from './roles.js';
import { sessionCookie, SIGN_IN_ACTIONS, SIGN_IN_PAGES, signInRoute } from './sign-in.js';

/** Handles /console/… on the bridge's HTTP listener; false for any other path. `auth` undefined: the console is off. */
export function createConsoleHandler(source: ConsoleSource, auth: ConsoleAuth | undefined): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const target = targetOf(req);
    if (target.kind === 'refused') {
      send(res, 400, 'not a canonical path: ask without ".", "..", "%2e" segments, backslashes or doubled slashes\n', 'text/plain; charset=utf-8');
      return true;
    }
    if (target.kind === 'other') {
      if (target.url.pathname !== '/' || !auth) return false;
      res.writeHead(303, { location: '/console' }).end();
      return true;
    }
    if (!auth) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('the console is off: add a console: section to the configuration (docs/console.md)\n');
      return true;
    }
    handle(source, auth, req, res, target.url, target.path).catch((error: unknown) => {
      source.runtime.logger.error({ err: describeError(error), path: target.path }, 'console request failed');
      const shown = isWisbridgeError(error) ? describeForConsole(error, source.runtime.loaded) : 'internal error (see the bridge log)';
      if (!res.headersSent) send(res, isWisbridgeError(error, 'JOURNAL_STATE') ? 404 : 500, page({ title: 'Error', body: messagePage('bad', shown, { href: '/console', label: 'overview' }) }));
      else res.end();
    });
    return true;
  };
}

const refusedPage = (message: string) => page({ title: 'Refused', body: messagePage('bad', message, { href: '/console', label: 'overview' }) });

async function handle(source: ConsoleSource, auth: ConsoleAuth, req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
  if (path === '/console/static/live.js') return send(res, 200, LIVE_SCRIPT, 'text/javascript; charset=utf-8');
  const trustProxy = source.runtime.loaded.config.console?.trust_proxy ?? false;
  let form: URLSearchParams | undefined;
  if (req.method === 'POST') {
    // Before any sign-in work: an oversized form is refused (the connection closed, the rest unread), and so is a
    // POST a page of another site made the browser send, whatever credentials came with it.
    form = await readForm(req);
    if (!form) return send(res, 413, 'the form is larger than the console takes (16 KiB): nothing was done\n', 'text/plain; charset=utf-8', { connection: 'close' });
    const foreign = foreignOrigin(req, trustProxy);
    if (foreign !== undefined) {
      source.runtime.logger.warn({ path, origin: foreign }, 'console: a POST sent from another site was refused');
      return send(res, 403, refusedPage(`this form was sent from another site (${foreign}), not from the console: nothing was done`));
    }
  }
  if (await signInRoute(auth, source.runtime.logger, req, res, url, path, form, trustProxy)) return;
  const who = auth.check(req);
  if (!who) {
    const basic = auth.takesBasic ? { 'www-authenticate': 'Basic realm="wisbridge console", charset="UTF-8"' } : undefined;
    if (auth.basicOnly) return send(res, 401, 'sign in to the wisbridge console\n', 'text/plain', basic);
    if ((req.headers.accept ?? '').includes('text/html')) {
      res.writeHead(303, { location: '/console/login' }).end();
      return;
    }
    return send(res, 401, 'sign in to the wisbridge console\n', 'text/plain', basic);
  }
  const r: Request = { req, res, url, who, journal: await source.runtime.journal() };
  if (form) return post(source, auth, r, path, form);
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', 'text/plain', { allow: 'GET, POST' });
  // Sessions get a sign-out button; its form carries the session's form token.
  const signOut = who.id.startsWith('session:') ? auth.csrfToken(who) : undefined;
  const show = (title: string, body: Html) => send(res, 200, page({ title, body, who: who.name, role: who.role, signOut }));
  const once = (action: string) => tokensOf(auth).issue(who.id, actionKey(new URL(action, 'http://console')));
  const admin = route(SIGN_IN_PAGES, path);
  if (admin) {
    const needs = admin.route.needs ?? 'admin';
    if (!allows(who.role, needs)) return refuseRole(res, who, needs, signOut);
    return admin.route.handle({ auth, who, show, once }, admin.params);
  }
  const found = route(PAGES, path);
  if (!found) return send(res, 404, page({ title: 'Not found', body: messagePage('bad', `no console page at ${path}`, { href: '/console', label: 'overview' }), who: who.name, role: who.role, signOut }));
  // A confirm page hands out a one-time action token: only to a role that may run the action.
  if (found.route.needs && !allows(who.role, found.route.needs)) return refuseRole(res, who, found.route.needs, signOut);
  return found.route.handle({
    ...r, source, signOut, show,
    notFound: (message, back) => send(res, 404, page({ title: 'Not found', body: messagePage('bad', message, back), who: who.name, role: who.role, signOut })),
    csrf: auth.csrfToken(who),
    once,
    actor: who.via === 'token' ? undefined : who.name,
    canAct: allows(who.role, ACTION_ROLE),
  }, found.params);
}

/** 403 for a signed-in person whose role is short of what the address needs: a page saying so, nothing done. */
function refuseRole(res: ServerResponse, who: Principal, needed: Role, signOut?: string): void {
  const message = `Not allowed: you are signed in as ${who.name} with the ${who.role} role (${ROLE_MEANING[who.role]}). This needs the ${needed} role; nothing was done. ${who.via === 'oidc' ? 'Ask an administrator of the identity provider for it.' : 'The configuration\'s console.auth.role gives this credential its role.'}`;
  send(res, 403, page({ title: 'Not allowed', body: messagePage('bad', message, { href: '/console', label: 'overview' }), who: who.name, role: who.role, signOut }));
}

async function post(source: ConsoleSource, auth: ConsoleAuth, r: Request, path: string, form: URLSearchParams): Promise<void> {
  if (path === '/console/logout') {
    // A link or another site's form cannot sign an operator out: the session's form token is required.
    if (!auth.checkCsrf(r.who, form.get('session_csrf') ?? undefined)) return send(r.res, 403, refusedPage('sign-out refused: the form is stale or came from elsewhere; open a page and use its sign-out button'));
    auth.logout(r.req);
    r.res.writeHead(303, { location: '/console/login', 'set-cookie': sessionCookie('', 0, false) }).end();
    return;
  }
  // Every action needs at least an operator, checked before its form token is looked at (or used up).
  const admin = route(SIGN_IN_ACTIONS, path);
  const found = admin ?? route(ACTIONS, path);
  const needed = admin?.route.needs ?? found?.route.needs ?? ACTION_ROLE;
  if (!allows(r.who.role, needed)) {
    source.runtime.logger.warn({ path, by: r.who.name, role: r.who.role, needs: needed }, 'console: an action was refused to a role that may not run it');
    return refuseRole(r.res, r.who, needed);
  }
  const tokens = tokensOf(auth);
  const taken = tokens.take(r.who.id, actionKey(r.url), form.get('csrf') ?? undefined);
  if (taken.kind === 'invalid') {
    return send(r.res, 403, refusedPage('the form is stale or came from elsewhere (CSRF check failed): open the page again'));
  }
  if (taken.kind !== 'fresh') {
    const message = taken.kind === 'expired' ? 'This form has expired: nothing was done. Open the page again.'
      : `This form was sent already (${when(taken.at)} ${zoneLabel()}): the action was not run again.${taken.actionId === null ? ' It is still under way.' : ''}`;
    source.runtime.logger.info({ path, by: r.who.name, token: taken.kind }, 'console: a used or expired action form was sent again; nothing was done');
    const back = taken.kind === 'used' && taken.actionId !== null ? { href: `/console/actions/${taken.actionId}`, label: 'the result of the first time' } : { href: '/console', label: 'overview' };
    return send(r.res, 409, page({ title: 'Not done again', body: messagePage('bad', message, back), who: r.who.name }));
  }
  if (!found) return send(r.res, 404, 'not found\n', 'text/plain');
  const typed = (form.get('by') ?? '').trim().slice(0, 100);
  return (found.route as Route<ActionRequest & { auth: ConsoleAuth }>).handle({
    ...r, source, form, auth,
    actor: r.who.via === 'token' ? (typed ? `${typed} (console token)` : 'console token') : r.who.name,
    done: (result, back) => {
      if (result.actionId === undefined) {
        tokens.release(taken.nonce);
        return send(r.res, result.ok ? 200 : 409, page({ title: result.ok ? 'Done' : 'Not done', body: messagePage(result.ok ? 'good' : 'bad', result.message, back), who: r.who.name, role: r.who.role }));
      }
      tokens.ran(taken.nonce, result.actionId);
      r.res.writeHead(303, { location: `/console/actions/${result.actionId}`, ...SECURITY_HEADERS }).end();
    },
  }, found.params);
}

const actionTokens = new WeakMap<ConsoleAuth, ActionTokens>();

/** The console's one-time action tokens (one set per console handler, i.e. per process). */
function tokensOf(auth: ConsoleAuth): ActionTokens {
  let tokens = actionTokens.get(auth);
  if (!tokens) actionTokens.set(auth, (tokens = new ActionTokens()));
  return tokens;
}

/** What a token is bound to: the action's path and its sorted query (file, row, drop and name). */
function actionKey(url: URL): string {
  const params = new URLSearchParams(url.searchParams);
  params.sort();
  return `${url.pathname.replace(/\/+$/, '')}?${params.toString()}`;
}
