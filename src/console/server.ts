import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { describeError, isWisbridgeError } from '../errors.js';
import type { ConsoleJournal, ItemStatus, Journal, OperatorJournal, ResultReads } from '../journal/index.js';
import * as actions from './actions.js';
import { SESSION_COOKIE, type ConsoleAuth, type Principal } from './auth.js';
import { html, page, when, zoneLabel } from './html.js';
import { overviewCharts } from './insights.js';
import { ActionTokens } from './once.js';
import { expectedFileViews } from '../schedule/index.js';
import { LIVE_SCRIPT } from './live-script.js';
import { EXPORT_STATUSES, exportListPage, FILE_LIST_STATUSES, fileListPage, filePage, mappingRejectedAdvice, ROW_STATUSES, uncertainPage, actionsTable } from './pages-files.js';
import { actionResultPage, alertsPage, confirmPage, loginPage, messagePage, overviewPage, progressPage, rejectedPage, resolveExtra, type RejectedEntry } from './pages-misc.js';
import type { ConsoleSource } from './source.js';

const PAGE_SIZE = 50;
const ROWS_PAGE = 100;
const BODY_LIMIT = 16 * 1024;
const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

interface Request {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  who: Principal;
  journal: ConsoleSide;
}

/** What the console reads and does: operator views and actions, result rows, its own pages and audit trail. */
type ConsoleSide = OperatorJournal & ResultReads & Pick<Journal, 'listInstances' | 'instance'> & { readonly console: ConsoleJournal };

/** Handles /console/… on the bridge's HTTP listener; false for any other path. `auth` undefined: the console is off. */
export function createConsoleHandler(source: ConsoleSource, auth: ConsoleAuth | undefined): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://console');
    if (url.pathname === '/' && auth) {
      res.writeHead(303, { location: '/console' }).end();
      return true;
    }
    if (url.pathname !== '/console' && !url.pathname.startsWith('/console/')) return false;
    if (!auth) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('the console is off: add a console: section to the configuration (docs/console.md)\n');
      return true;
    }
    handle(source, auth, req, res, url).catch((error: unknown) => {
      source.runtime.logger.error({ err: describeError(error), path: url.pathname }, 'console request failed');
      if (!res.headersSent) send(res, isWisbridgeError(error, 'JOURNAL_STATE') ? 404 : 500, page({ title: 'Error', body: messagePage('bad', isWisbridgeError(error) ? describeError(error) : 'internal error (see the bridge log)', { href: '/console', label: 'overview' }) }));
      else res.end();
    });
    return true;
  };
}

function send(res: ServerResponse, status: number, body: string, type = 'text/html; charset=utf-8', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...SECURITY_HEADERS, ...headers }).end(body);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > BODY_LIMIT) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

async function handle(source: ConsoleSource, auth: ConsoleAuth, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const path = url.pathname.replace(/\/+$/, '') || '/console';
  if (path === '/console/static/live.js') return send(res, 200, LIVE_SCRIPT, 'text/javascript; charset=utf-8');
  if (path === '/console/login' && auth.kind === 'bearer') {
    if (req.method !== 'POST') return send(res, 200, page({ title: 'Sign in', body: loginPage(false) }));
    const session = auth.login((await readForm(req)).get('token') ?? '');
    if (!session) return send(res, 401, page({ title: 'Sign in', body: loginPage(true) }));
    res.writeHead(303, { location: '/console', 'set-cookie': `${SESSION_COOKIE}=${session}; HttpOnly; SameSite=Strict; Path=/console; Max-Age=${auth.sessionSeconds}` }).end();
    return;
  }
  const who = auth.check(req);
  if (!who) {
    if (auth.kind === 'basic') return send(res, 401, 'sign in to the wisbridge console\n', 'text/plain', { 'www-authenticate': 'Basic realm="wisbridge console", charset="UTF-8"' });
    if ((req.headers.accept ?? '').includes('text/html')) {
      res.writeHead(303, { location: '/console/login' }).end();
      return;
    }
    return send(res, 401, 'sign in to the wisbridge console\n', 'text/plain');
  }
  const r: Request = { req, res, url, who, journal: await source.runtime.journal() };
  if (req.method === 'POST') return post(source, auth, r, path);
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', 'text/plain', { allow: 'GET, POST' });
  const signOut = who.id.startsWith('session:');
  const show = (title: string, body: ReturnType<typeof html>) => send(res, 200, page({ title, body, who: who.name, signOut }));
  const csrf = auth.csrfToken(who);
  /** The one-time token of a confirm page's form posting to `action`. */
  const once = (action: string) => tokensOf(auth).issue(who.id, actionKey(new URL(action, 'http://console')));
  const actor = who.name === 'token holder' ? undefined : who.name;
  const fileMatch = /^\/console\/files\/(\d+)(?:\/(redrive|resolve|result))?$/.exec(path);
  if (path === '/console') return show('Overview', html`${await overview(source, r.journal)}${await overviewCharts(source, r.journal)}`);
  if (path === '/console/files') return show('Files', await files(source, r));
  if (path === '/console/exports') return show('Exports', await exportsList(source, r));
  if (path === '/console/uncertain') {
    const p = await r.journal.console.uncertainRows({ afterFile: intParam(url, 'afterFile'), afterSeq: intParam(url, 'afterSeq'), limit: PAGE_SIZE });
    return show('Uncertain rows', uncertainPage(p.rows, p.next));
  }
  if (path === '/console/alerts') return show('Alerts', alertsPage(await r.journal.console.listAlerts({ before: intParam(url, 'before'), limit: 200 })));
  const alertMatch = /^\/console\/alerts\/(\d+)\/acknowledge$/.exec(path);
  if (alertMatch) {
    const alert = await r.journal.console.getAlert(Number(alertMatch[1]));
    if (!alert) return send(res, 404, page({ title: 'Not found', body: messagePage('bad', `no alert ${alertMatch[1]}`, { href: '/console/alerts', label: 'alerts' }), who: who.name, signOut }));
    if (alert.acknowledgedAt) return show('Acknowledge an alert', messagePage('good', `alert ${alert.id} was acknowledged already by ${alert.acknowledgedBy ?? '?'} (${when(alert.acknowledgedAt)} ${zoneLabel()})`, { href: '/console/alerts', label: 'alerts' }));
    const action = `/console/alerts/${alert.id}/acknowledge`;
    return show('Acknowledge an alert', confirmPage({
      action, csrf: once(action), who: actor, button: 'Acknowledge', back: '/console/alerts',
      question: html`Acknowledge <b>${alert.kind}</b>: ${alert.message} (seen ${alert.times} time(s), last ${when(alert.lastSeen)} ${zoneLabel()})? It leaves the open alerts; the next occurrence opens a new one.`,
    }));
  }
  if (path === '/console/progress') return show('In progress', progressPage(source.progress.snapshot()));
  if (path === '/console/progress.json') return send(res, 200, JSON.stringify(source.progress.snapshot()), 'application/json');
  if (path === '/console/events') return events(source, r);
  const resultMatch = /^\/console\/actions\/(\d+)$/.exec(path);
  if (resultMatch) {
    const id = Number(resultMatch[1]);
    const [action] = await r.journal.console.listActions({ before: id + 1, limit: 1 });
    if (action?.id !== id) return send(res, 404, page({ title: 'Not found', body: messagePage('bad', `no action ${id} in the actions log`, { href: '/console/actions', label: 'actions log' }), who: who.name, signOut }));
    return show(action.outcome === 'ok' ? 'Done' : 'Not done', actionResultPage(action));
  }
  if (path === '/console/actions') {
    return show('Actions log', actionsTable(await r.journal.console.listActions({ before: intParam(url, 'before'), limit: PAGE_SIZE }), 'Operator actions, newest first'));
  }
  if (path === '/console/rejected') {
    const { entries, problems } = await rejectedFiles(source);
    return show('Rejected files', rejectedPage(entries, problems));
  }
  if (path === '/console/rejected/reprocess') {
    const drop = url.searchParams.get('drop') ?? '';
    const name = url.searchParams.get('name') ?? '';
    const refused = await actions.checkReprocessable(source, drop, name).then(() => undefined, (error: unknown) => {
      if (!isWisbridgeError(error)) throw error;
      return error;
    });
    if (refused) {
      return send(res, isWisbridgeError(refused, 'DROP_NOT_FOUND') ? 404 : 400, page({
        title: 'Re-process a rejected file', who: who.name, signOut,
        body: messagePage('bad', `Not re-processed: ${describeError(refused)}`, { href: '/console/rejected', label: 'back to the rejected files' }),
      }));
    }
    return show('Re-process a rejected file', confirmPage({
      action: `/console/rejected/reprocess?drop=${encodeURIComponent(drop)}&name=${encodeURIComponent(name)}`, csrf: once(`/console/rejected/reprocess?drop=${encodeURIComponent(drop)}&name=${encodeURIComponent(name)}`), who: actor, button: 'Move it back to the inbox', back: '/console/rejected',
      question: html`Move <b>error/${name}</b> of drop <b>${drop}</b> back to the inbox, so that it is processed again?`,
    }));
  }
  if (fileMatch) {
    const fileId = Number(fileMatch[1]);
    const file = await r.journal.getFile(fileId);
    if (fileMatch[2] === undefined) {
      const status = enumParam(url, 'status', ROW_STATUSES);
      const rows = await r.journal.console.fileRows(fileId, { status: status as ItemStatus | undefined, after: intParam(url, 'after'), limit: ROWS_PAGE });
      const job = source.runtime.loaded.config.inbound.find((j) => dropName(source, j.drop) === file.drop && (!j.mappings || j.mappings.includes(file.mapping)))?.name;
      const failed = await r.journal.console.failedRows(fileId);
      return show(file.name, filePage({ file, failed, rows, status, csrf, job, actions: await r.journal.console.listActions({ fileId, limit: 20 }) }));
    }
    if (fileMatch[2] === 'result') {
      const { name, stream } = await actions.download(source, fileId, who.name);
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"`, ...SECURITY_HEADERS });
      await pipeline(stream, res);
      return;
    }
    if (fileMatch[2] === 'redrive') {
      const failed = await r.journal.console.failedRows(fileId);
      const advice = failed.unsendable > 0 ? mappingRejectedAdvice(file, failed.unsendable) : '';
      if (file.status !== 'failed' || failed.sendable === 0) {
        return send(res, 409, page({
          title: 'Re-drive failed rows', who: who.name, signOut,
          body: html`${messagePage('bad', `Nothing to re-drive: no row of ${file.name} (file ${fileId}) can be sent again${file.status === 'failed' ? '' : ` (the file is ${file.status})`}.`, { href: `/console/files/${fileId}`, label: 'back to the file' })}${advice}`,
        }));
      }
      return show('Re-drive failed rows', confirmPage({
        action: `/console/files/${fileId}/redrive`, csrf: once(`/console/files/${fileId}/redrive`), who: actor, button: 'Re-drive the failed rows', back: `/console/files/${fileId}`,
        question: html`Send the <b>${failed.sendable}</b> failed row(s) of <b>${file.name}</b> (file ${fileId}) to the service again? Rows that succeeded, rows the mapping rejected and uncertain rows are never sent again.`,
        extra: advice || undefined,
      }));
    }
    const itemId = intParam(url, 'item');
    const item = (await r.journal.uncertainItems(fileId, { limit: 1_000_000 })).find((i) => i.itemId === itemId);
    if (!item) return show('Resolve', messagePage('bad', `row ${itemId ?? '?'} of file ${fileId} is not uncertain (resolved already?)`, { href: `/console/files/${fileId}`, label: 'back to the file' }));
    return show('Resolve an uncertain row', confirmPage({
      action: `/console/files/${fileId}/resolve?item=${item.itemId}`, csrf: once(`/console/files/${fileId}/resolve?item=${item.itemId}`), who: actor, button: 'Record the resolution', extra: resolveExtra(item),
      back: `/console/files/${fileId}`,
      question: html`What did you find in the service for this row of <b>${file.name}</b>?`,
    }));
  }
  return send(res, 404, page({ title: 'Not found', body: messagePage('bad', `no console page at ${path}`, { href: '/console', label: 'overview' }), who: who.name }));
}

async function post(source: ConsoleSource, auth: ConsoleAuth, r: Request, path: string): Promise<void> {
  const form = await readForm(r.req);
  if (path === '/console/logout') {
    auth.logout(r.req);
    r.res.writeHead(303, { location: '/console/login', 'set-cookie': `${SESSION_COOKIE}=; Path=/console; Max-Age=0` }).end();
    return;
  }
  const tokens = tokensOf(auth);
  const taken = tokens.take(r.who.id, actionKey(r.url), form.get('csrf') ?? undefined);
  if (taken.kind === 'invalid') {
    return send(r.res, 403, page({ title: 'Refused', body: messagePage('bad', 'the form is stale or came from elsewhere (CSRF check failed): open the page again', { href: '/console', label: 'overview' }) }));
  }
  if (taken.kind !== 'fresh') {
    const message = taken.kind === 'expired' ? 'This form has expired: nothing was done. Open the page again.'
      : `This form was sent already (${when(taken.at)} ${zoneLabel()}): the action was not run again.${taken.actionId === null ? ' It is still under way.' : ''}`;
    source.runtime.logger.info({ path, by: r.who.name, token: taken.kind }, 'console: a used or expired action form was sent again; nothing was done');
    const back = taken.kind === 'used' && taken.actionId !== null ? { href: `/console/actions/${taken.actionId}`, label: 'the result of the first time' } : { href: '/console', label: 'overview' };
    return send(r.res, 409, page({ title: 'Not done again', body: messagePage('bad', message, back), who: r.who.name }));
  }
  const typed = (form.get('by') ?? '').trim().slice(0, 100);
  const actor = r.who.name === 'token holder' ? (typed ? `${typed} (console token)` : 'console token') : r.who.name;
  // Post/redirect/get: what the action did is shown at its audit entry, so a reload shows it again instead of acting again.
  const done = (result: actions.ActionResult, back: { href: string; label: string }) => {
    if (result.actionId === undefined) {
      tokens.release(taken.nonce);
      return send(r.res, result.ok ? 200 : 409, page({ title: result.ok ? 'Done' : 'Not done', body: messagePage(result.ok ? 'good' : 'bad', result.message, back), who: r.who.name }));
    }
    tokens.ran(taken.nonce, result.actionId);
    r.res.writeHead(303, { location: `/console/actions/${result.actionId}`, ...SECURITY_HEADERS }).end();
  };
  const fileMatch = /^\/console\/files\/(\d+)\/(redrive|resolve)$/.exec(path);
  if (fileMatch) {
    const fileId = Number(fileMatch[1]);
    const back = { href: `/console/files/${fileId}`, label: 'back to the file' };
    if (fileMatch[2] === 'redrive') return done(await actions.redrive(source, fileId, actor), back);
    const resolution = form.get('resolution');
    const note = (form.get('note') ?? '').trim();
    const itemId = intParam(r.url, 'item');
    if ((resolution !== 'applied' && resolution !== 'not-applied') || !note || itemId === undefined) {
      return done({ ok: false, message: 'choose applied or not applied, and say in the note what you checked' }, back);
    }
    return done(await actions.resolve(source, fileId, itemId, resolution, note, actor), back);
  }
  const alertMatch = /^\/console\/alerts\/(\d+)\/acknowledge$/.exec(path);
  if (alertMatch) return done(await actions.acknowledge(source, Number(alertMatch[1]), actor), { href: '/console/alerts', label: 'back to the alerts' });
  if (path === '/console/rejected/reprocess') {
    const result = await actions.reprocess(source, r.url.searchParams.get('drop') ?? '', r.url.searchParams.get('name') ?? '', actor);
    return done(result, { href: '/console/rejected', label: 'back to the rejected files' });
  }
  return send(r.res, 404, 'not found\n', 'text/plain');
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

function intParam(url: URL, name: string): number | undefined {
  const v = url.searchParams.get(name);
  return v !== null && /^\d+$/.test(v) ? Number(v) : undefined;
}

function enumParam<T extends string>(url: URL, name: string, values: readonly T[]): T | undefined {
  const v = url.searchParams.get(name);
  return values.includes(v as T) ? (v as T) : undefined;
}

function dropName(source: ConsoleSource, key: string): string {
  return source.runtime.loaded.config.drops[key]?.name ?? key;
}

/** `date` (YYYY-MM-DD, UTC) as [from, to). */
function dayRange(url: URL): { from?: string; to?: string; date?: string } {
  const date = url.searchParams.get('date') ?? '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) return {};
  return { date, from: `${date}T00:00:00.000Z`, to: new Date(Date.parse(date) + 86_400_000).toISOString() };
}

async function overview(source: ConsoleSource, journal: ConsoleSide) {
  return overviewPage({
    mode: source.mode, jobs: await source.jobs(), backlog: await journal.backlog(), journal: await journal.console.stats(journal.location),
    alerts: (await journal.console.listAlerts({ limit: 200 })).open, progress: source.progress.snapshot(),
    expected: expectedFileViews(source.runtime.loaded.config, Date.now()),
    instances: await journal.listInstances(), self: journal.instance?.id,
  });
}

async function files(source: ConsoleSource, r: Request) {
  const { config } = source.runtime.loaded;
  const jobName = r.url.searchParams.get('job') ?? undefined;
  const job = config.inbound.find((j) => j.name === jobName);
  const status = enumParam(r.url, 'status', FILE_LIST_STATUSES);
  const name = (r.url.searchParams.get('name') ?? '').trim() || undefined;
  const day = dayRange(r.url);
  const page = await r.journal.console.listFileLines({
    status, drop: job ? dropName(source, job.drop) : undefined, mappings: job?.mappings, from: day.from, to: day.to, name,
    before: intParam(r.url, 'before'), beforeEvent: intParam(r.url, 'before_event'), limit: PAGE_SIZE,
  });
  const live = new Map(source.progress.snapshot().map((p) => [p.file, p.rows]));
  return fileListPage({
    jobs: config.inbound.map((j) => j.name), filter: { job: job?.name, status, date: day.date, name }, live, lines: page.lines, next: page.next,
  });
}

async function exportsList(source: ConsoleSource, r: Request) {
  const { config } = source.runtime.loaded;
  const job = config.exports.find((j) => j.name === r.url.searchParams.get('job'));
  const status = enumParam(r.url, 'status', EXPORT_STATUSES);
  const name = (r.url.searchParams.get('name') ?? '').trim() || undefined;
  const day = dayRange(r.url);
  const list = await r.journal.console.listExports({
    workType: job?.work_type, status, from: day.from, to: day.to, name, before: intParam(r.url, 'before'), limit: PAGE_SIZE + 1,
  });
  return exportListPage({
    jobs: config.exports.map((j) => j.name), filter: { job: job?.name, status, date: day.date, name },
    exports: list.slice(0, PAGE_SIZE), next: list.length > PAGE_SIZE ? list[PAGE_SIZE - 1].exportId : null,
  });
}

async function rejectedFiles(source: ConsoleSource): Promise<{ entries: RejectedEntry[]; problems: string[] }> {
  const entries: RejectedEntry[] = [];
  const problems: string[] = [];
  const drops = [...new Set(source.runtime.loaded.config.inbound.map((j) => j.drop))];
  for (const key of drops) {
    try {
      const drop = await source.runtime.drop(key);
      const listed = await drop.list('error');
      const names = new Set(listed.map((e) => e.name));
      for (const e of listed) {
        if (e.name.endsWith('.error.txt') && names.has(e.name.slice(0, -'.error.txt'.length))) continue;
        let reason: string | null = null;
        if (names.has(`${e.name}.error.txt`)) {
          let text = '';
          for await (const chunk of await drop.openRead('error', `${e.name}.error.txt`)) text += chunk;
          reason = /^reason: (.*)$/m.exec(text)?.[1] ?? text.slice(0, 300);
        }
        entries.push({ drop: key, name: e.name, size: e.size, mtimeMs: e.mtimeMs, reason });
      }
    } catch (error) {
      problems.push(`drop ${key}: ${describeError(error)}`);
    }
  }
  return { entries: entries.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, 500), problems };
}

/** Server-sent events: the in-progress list every second until the browser goes away. */
function events(source: ConsoleSource, r: Request): void {
  r.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive', 'x-accel-buffering': 'no' });
  const push = () => r.res.write(`event: progress\ndata: ${JSON.stringify(source.progress.snapshot())}\n\n`);
  push();
  const timer = setInterval(push, 1000);
  r.req.on('close', () => clearInterval(timer));
}
