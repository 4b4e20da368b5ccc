import { pipeline } from 'node:stream/promises';
import { isWisbridgeError } from '../errors.js';
import { instanceStates, type ItemStatus } from '../journal/index.js';
import { findJobOfFile, openAckFile } from '../pipeline/index.js';
import { describeInterchangeState, x12Interchanges } from '../export/index.js';
import * as actions from './actions.js';
import { html, page, when, zoneLabel } from './html.js';
import { chartsPageOf, overviewCharts, searchPageOf } from './insights.js';
import { expectedFileViews } from '../schedule/index.js';
import { EXPORT_STATUSES, exportListPage, FILE_LIST_STATUSES, fileListPage, filePage, mappingRejectedAdvice, ROW_STATUSES, uncertainPage, actionsTable } from './pages-files.js';
import { actionResultPage, actionResultTitle, confirmPage, messagePage, overviewPage, progressPage, rejectedPage, resolutionFields, resolveExtra, type RejectedEntry } from './pages-misc.js';
import { chosenRequests, resolveChoiceHref, resolveChoiceQuestion, uncertainChoiceOf, uncertainGroupsTable } from './pages-uncertain.js';
import { enumParam, intParam, SECURITY_HEADERS, send, type ConsoleSide, type Request, type Route } from './respond.js';
import type { PageRequest } from './page-request.js';
import { describeForConsole } from './paths.js';
import { acknowledgeHref, acknowledgeQuestion, alertsPage, ALERTS_PER_ACTION } from './pages-alerts.js';
import { contentDisposition } from './disposition.js';
import { fileOwnersSection } from './file-owners.js';
import { x12Section } from './pages-x12.js';
import type { ConsoleSource } from './source.js';

// The console's addresses as tables (one row per address: its path, and the handler that answers it), and the pages
// and actions they lead to.

const PAGE_SIZE = 50;
const ROWS_PAGE = 100;

/** The console's pages: one row per address (GET and HEAD). */
export const PAGES: readonly Route<PageRequest>[] = [
  { path: '/console', handle: async (c) => c.show('Overview', html`${await overview(c.source, c.journal)}${await overviewCharts(c.journal)}`) },
  { path: '/console/files', handle: async (c) => c.show('Files', await files(c.source, c)) },
  { path: '/console/exports', handle: async (c) => c.show('Exports', await exportsList(c.source, c)) },
  { path: '/console/search', handle: searchPageOf },
  { path: '/console/charts', handle: chartsPageOf },
  {
    path: '/console/uncertain',
    handle: async (c) => {
      const p = await c.journal.console.uncertainRows({ afterFile: intParam(c.url, 'afterFile'), afterSeq: intParam(c.url, 'afterSeq'), limit: PAGE_SIZE });
      c.show('Uncertain rows', html`${uncertainGroupsTable(await c.journal.console.uncertainRequests(), c.canAct)}<h2>Rows</h2>${uncertainPage(p.rows, p.next, c.canAct)}`);
    },
  },
  { path: '/console/uncertain/resolve', needs: 'operator', handle: resolveChoicePage },
  { path: '/console/alerts', handle: async (c) => c.show('Alerts', alertsPage(await c.journal.console.listAlerts({ before: intParam(c.url, 'before'), limit: 200 }), c.canAct)) },
  { path: /^\/console\/alerts\/(\d+)\/acknowledge$/, needs: 'operator', handle: (c, [id]) => acknowledgePage(c, Number(id)) },
  { path: '/console/alerts/acknowledge', needs: 'operator', handle: acknowledgeChosenPage },
  { path: '/console/progress', handle: (c) => c.show('In progress', progressPage(c.source.progress.snapshot())) },
  { path: '/console/progress.json', handle: (c) => send(c.res, 200, JSON.stringify(c.source.progress.snapshot()), 'application/json') },
  { path: '/console/events', handle: (c) => events(c.source, c) },
  {
    path: /^\/console\/actions\/(\d+)$/,
    handle: async (c, [param]) => {
      const id = Number(param);
      const [action] = await c.journal.console.listActions({ before: id + 1, limit: 1 });
      if (action?.id !== id) return c.notFound(`no action ${id} in the actions log`, { href: '/console/actions', label: 'actions log' });
      c.show(actionResultTitle(action), actionResultPage(action));
    },
  },
  {
    path: '/console/actions',
    handle: async (c) => c.show('Actions log', actionsTable(await c.journal.console.listActions({ before: intParam(c.url, 'before'), limit: PAGE_SIZE }), 'Operator actions, newest first')),
  },
  {
    path: '/console/rejected',
    handle: async (c) => {
      const { entries, problems } = await rejectedFiles(c.source);
      c.show('Rejected files', rejectedPage(entries, problems, c.canAct));
    },
  },
  { path: '/console/rejected/reprocess', needs: 'operator', handle: reprocessPage },
  { path: /^\/console\/files\/(\d+)$/, handle: (c, [id]) => filePageOf(c, Number(id)) },
  { path: /^\/console\/files\/(\d+)\/result$/, handle: (c, [id]) => downloadResult(c, Number(id)) },
  { path: /^\/console\/files\/(\d+)\/redrive$/, needs: 'operator', handle: (c, [id]) => redrivePage(c, Number(id)) },
  { path: /^\/console\/files\/(\d+)\/resolve$/, needs: 'operator', handle: (c, [id]) => resolvePage(c, Number(id)) },
  { path: /^\/console\/files\/(\d+)\/ack$/, handle: (c, [id]) => downloadAck(c, Number(id)) },
];

async function acknowledgePage(c: PageRequest, id: number): Promise<void> {
  const alert = await c.journal.console.getAlert(id);
  if (!alert) return c.notFound(`no alert ${id}`, { href: '/console/alerts', label: 'alerts' });
  if (alert.acknowledgedAt) return c.show('Acknowledge an alert', messagePage('good', `alert ${alert.id} was acknowledged already by ${alert.acknowledgedBy ?? '?'} (${when(alert.acknowledgedAt)} ${zoneLabel()})`, { href: '/console/alerts', label: 'alerts' }));
  const action = `/console/alerts/${alert.id}/acknowledge`;
  c.show('Acknowledge an alert', confirmPage({
    action, csrf: c.once(action), who: c.actor, button: 'Acknowledge', back: '/console/alerts',
    question: html`Acknowledge <b>${alert.kind}</b>: ${alert.message} (seen ${alert.times} time(s), last ${when(alert.lastSeen)} ${zoneLabel()})? It leaves the open alerts; the next occurrence opens a new one.`,
  }));
}

/** The alerts a form or link chose: `id` once per alert (checkboxes) or `ids` as a list; at most ALERTS_PER_ACTION. */
function chosenAlerts(url: URL): number[] {
  const raw = [...url.searchParams.getAll('id'), ...(url.searchParams.get('ids') ?? '').split(',')];
  const ids = raw.map((v) => Number(v.trim())).filter((n) => Number.isSafeInteger(n) && n > 0);
  return [...new Set(ids)].slice(0, ALERTS_PER_ACTION);
}

async function acknowledgeChosenPage(c: PageRequest): Promise<void> {
  const back = { href: '/console/alerts', label: 'alerts' };
  const found = await Promise.all(chosenAlerts(c.url).map((id) => c.journal.console.getAlert(id)));
  const open = found.filter((a) => a !== undefined && !a.acknowledgedAt) as NonNullable<(typeof found)[number]>[];
  if (open.length === 0) return c.show('Acknowledge alerts', messagePage('bad', 'no open alert was chosen (acknowledged already?)', back));
  const action = acknowledgeHref(open.map((a) => a.id));
  c.show('Acknowledge alerts', confirmPage({
    action, csrf: c.once(action), who: c.actor, button: `Acknowledge ${open.length} alert(s)`, back: '/console/alerts', ...acknowledgeQuestion(open),
  }));
}

async function resolveChoicePage(c: PageRequest): Promise<void> {
  const choice = uncertainChoiceOf(c.url);
  const requests = chosenRequests(await c.journal.console.uncertainRequests(), choice);
  const back = { href: '/console/uncertain', label: 'back to the uncertain rows' };
  if (requests.length === 0) return c.show('Resolve uncertain rows', messagePage('bad', 'none of the chosen rows is uncertain (resolved already?)', back));
  const action = resolveChoiceHref(choice);
  const { question, list } = resolveChoiceQuestion(requests);
  c.show('Resolve uncertain rows', confirmPage({
    action, csrf: c.once(action), who: c.actor, button: 'Record the resolution', back: '/console/uncertain', question, extra: html`${list}${resolutionFields()}`,
  }));
}

async function reprocessPage(c: PageRequest): Promise<void> {
  const drop = c.url.searchParams.get('drop') ?? '';
  const name = c.url.searchParams.get('name') ?? '';
  const refused = await actions.checkReprocessable(c.source, drop, name).then(() => undefined, (error: unknown) => {
    if (!isWisbridgeError(error)) throw error;
    return error;
  });
  if (refused) {
    return send(c.res, isWisbridgeError(refused, 'DROP_NOT_FOUND') ? 404 : 400, page({
      title: 'Re-process a rejected file', who: c.who.name, signOut: c.signOut,
      body: messagePage('bad', `Not re-processed: ${describeForConsole(refused, c.source.runtime.loaded)}`, { href: '/console/rejected', label: 'back to the rejected files' }),
    }));
  }
  const action = `/console/rejected/reprocess?drop=${encodeURIComponent(drop)}&name=${encodeURIComponent(name)}`;
  c.show('Re-process a rejected file', confirmPage({
    action, csrf: c.once(action), who: c.actor, button: 'Move it back to the inbox', back: '/console/rejected',
    question: html`Move <b>error/${name}</b> of drop <b>${drop}</b> back to the inbox, so that it is processed again?`,
  }));
}

async function filePageOf(c: PageRequest, fileId: number): Promise<void> {
  const file = await c.journal.getFile(fileId);
  const status = enumParam(c.url, 'status', ROW_STATUSES);
  const [after, through] = [intParam(c.url, 'after'), intParam(c.url, 'through')];
  const rows = await c.journal.console.fileRows(fileId, { status: status as ItemStatus | undefined, after, through, limit: ROWS_PAGE });
  const job = findJobOfFile(c.source.runtime.loaded.config, file)?.name;
  const failed = await c.journal.console.failedRows(fileId);
  const x12 = await x12Section(c.journal.console, file, c.url);
  const page = filePage({
    file, failed, rows, status, csrf: c.csrf, job, canAct: c.canAct, actions: await c.journal.console.listActions({ fileId, limit: 20 }), x12,
    ...(through === undefined ? {} : { set: { after, through } }),
  });
  c.show(file.name, html`${page}${fileOwnersSection(await c.journal.console.fileOwners(fileId))}`);
}

/** The result file as an attachment; a HEAD gets the headers only and is not recorded as a download. */
async function downloadResult(c: PageRequest, fileId: number): Promise<void> {
  await c.journal.getFile(fileId);
  const opened = await actions.openDownload(c.source, fileId);
  c.res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': contentDisposition(opened.name), ...SECURITY_HEADERS });
  if (c.req.method === 'HEAD') {
    opened.stream.destroy();
    c.res.end();
    return;
  }
  await actions.recordDownload(c.source, fileId, opened, c.who.name);
  await pipeline(opened.stream, c.res);
}

/** An X12 file's acknowledgement from its outbox, as an attachment (recorded as a download, as the result file is). */
async function downloadAck(c: PageRequest, fileId: number): Promise<void> {
  await c.journal.getFile(fileId);
  const opened = await openAckFile(c.source.runtime, fileId);
  if (!opened) return c.notFound(`file ${fileId} has no acknowledgement in its outbox`, { href: `/console/files/${fileId}`, label: 'back to the file' });
  c.res.writeHead(200, { 'content-type': 'application/edi-x12', 'content-disposition': contentDisposition(opened.name), ...SECURITY_HEADERS });
  if (c.req.method === 'HEAD') {
    opened.stream.destroy();
    c.res.end();
    return;
  }
  await actions.recordDownload(c.source, fileId, { name: opened.name, from: 'outbox' }, c.who.name);
  await pipeline(opened.stream, c.res);
}

async function redrivePage(c: PageRequest, fileId: number): Promise<void> {
  const file = await c.journal.getFile(fileId);
  const failed = await c.journal.console.failedRows(fileId);
  const advice = failed.unsendable > 0 ? mappingRejectedAdvice(file, failed.unsendable) : '';
  if (file.status !== 'failed' || failed.sendable === 0) {
    return send(c.res, 409, page({
      title: 'Re-drive failed rows', who: c.who.name, signOut: c.signOut,
      body: html`${messagePage('bad', `Nothing to re-drive: no row of ${file.name} (file ${fileId}) can be sent again${file.status === 'failed' ? '' : ` (the file is ${file.status})`}.`, { href: `/console/files/${fileId}`, label: 'back to the file' })}${advice}`,
    }));
  }
  c.show('Re-drive failed rows', confirmPage({
    action: `/console/files/${fileId}/redrive`, csrf: c.once(`/console/files/${fileId}/redrive`), who: c.actor, button: 'Re-drive the failed rows', back: `/console/files/${fileId}`,
    question: html`Send the <b>${failed.sendable}</b> failed row(s) of <b>${file.name}</b> (file ${fileId}) to the service again? Rows that succeeded, rows the mapping rejected and uncertain rows are never sent again.`,
    extra: advice || undefined,
  }));
}

async function resolvePage(c: PageRequest, fileId: number): Promise<void> {
  const file = await c.journal.getFile(fileId);
  const itemId = intParam(c.url, 'item');
  const item = (await c.journal.uncertainItems(fileId, { limit: 1_000_000 })).find((i) => i.itemId === itemId);
  if (!item) return c.show('Resolve', messagePage('bad', `row ${itemId ?? '?'} of file ${fileId} is not uncertain (resolved already?)`, { href: `/console/files/${fileId}`, label: 'back to the file' }));
  c.show('Resolve an uncertain row', confirmPage({
    action: `/console/files/${fileId}/resolve?item=${item.itemId}`, csrf: c.once(`/console/files/${fileId}/resolve?item=${item.itemId}`), who: c.actor, button: 'Record the resolution', extra: resolveExtra(item),
    back: `/console/files/${fileId}`,
    question: html`What did you find in the service for this row of <b>${file.name}</b>?`,
  }));
}

/** What an action (POST, its one-time token taken) is answered with. */
export interface ActionRequest extends Request {
  source: ConsoleSource;
  form: URLSearchParams;
  /** Who acts: the signed-in person, or the name typed on a form sent with the console token. */
  actor: string;
  /** Post/redirect/get: what the action did is shown at its audit entry, so a reload shows it again instead of acting again. */
  done(result: actions.ActionResult, back: { href: string; label: string }): void;
}

/** The console's actions: one row per address (POST). */
export const ACTIONS: readonly Route<ActionRequest>[] = [
  {
    path: /^\/console\/files\/(\d+)\/redrive$/,
    handle: async (c, [id]) => c.done(await actions.redrive(c.source, Number(id), c.actor), { href: `/console/files/${id}`, label: 'back to the file' }),
  },
  {
    path: /^\/console\/files\/(\d+)\/resolve$/,
    handle: async (c, [id]) => {
      const fileId = Number(id);
      const back = { href: `/console/files/${fileId}`, label: 'back to the file' };
      const resolution = c.form.get('resolution');
      const note = (c.form.get('note') ?? '').trim();
      const itemId = intParam(c.url, 'item');
      if ((resolution !== 'applied' && resolution !== 'not-applied') || !note || itemId === undefined) {
        return c.done({ ok: false, message: 'choose applied or not applied, and say in the note what you checked' }, back);
      }
      c.done(await actions.resolve(c.source, fileId, itemId, resolution, note, c.actor), back);
    },
  },
  {
    path: '/console/uncertain/resolve',
    handle: async (c) => {
      const back = { href: '/console/uncertain', label: 'back to the uncertain rows' };
      const resolution = c.form.get('resolution');
      const note = (c.form.get('note') ?? '').trim();
      if ((resolution !== 'applied' && resolution !== 'not-applied') || !note) {
        return c.done({ ok: false, message: 'choose applied or not applied, and say in the note what you checked' }, back);
      }
      c.done(await actions.resolveChoice(c.source, uncertainChoiceOf(c.url), resolution, note, c.actor), back);
    },
  },
  {
    path: /^\/console\/alerts\/(\d+)\/acknowledge$/,
    handle: async (c, [id]) => c.done(await actions.acknowledge(c.source, Number(id), c.actor), { href: '/console/alerts', label: 'back to the alerts' }),
  },
  {
    path: '/console/alerts/acknowledge',
    handle: async (c) => c.done(await actions.acknowledgeAlerts(c.source, chosenAlerts(c.url), c.actor), { href: '/console/alerts', label: 'back to the alerts' }),
  },
  {
    path: '/console/rejected/reprocess',
    handle: async (c) => c.done(
      await actions.reprocess(c.source, c.url.searchParams.get('drop') ?? '', c.url.searchParams.get('name') ?? '', c.actor),
      { href: '/console/rejected', label: 'back to the rejected files' },
    ),
  },
];

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
    instances: instanceStates(await journal.listInstances(), source.runtime.loaded.config.instance.lease_ms), self: journal.instance?.id,
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
  const exports = list.slice(0, PAGE_SIZE);
  // The exports written as X12, with what their partners acknowledged (docs/x12.md, "Acknowledgements received").
  const x12 = config.exports.some((j) => j.format === 'x12')
    ? new Map((await x12Interchanges(r.journal, config.partners, Date.now(), { exportIds: exports.map((e) => e.exportId), limit: PAGE_SIZE }))
      .map((x) => [x.exportId, describeInterchangeState(x)]))
    : undefined;
  return exportListPage({
    jobs: config.exports.map((j) => j.name), filter: { job: job?.name, status, date: day.date, name },
    exports, next: list.length > PAGE_SIZE ? list[PAGE_SIZE - 1].exportId : null, x12,
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
      problems.push(`drop ${key}: ${describeForConsole(error, source.runtime.loaded)}`);
    }
  }
  return { entries: entries.sort((a, b) => b.mtimeMs - a.mtimeMs).slice(0, 500), problems };
}

/** Server-sent events: the in-progress list every second until the browser goes away. */
function events(source: ConsoleSource, r: Request): void {
  // Its data names partner files: the same headers as every page.
  r.res.writeHead(200, { 'content-type': 'text/event-stream', ...SECURITY_HEADERS, connection: 'keep-alive', 'x-accel-buffering': 'no' });
  if (r.req.method === 'HEAD') {
    r.res.end();
    return;
  }
  const push = () => r.res.write(`event: progress\ndata: ${JSON.stringify(source.progress.snapshot())}\n\n`);
  push();
  const timer = setInterval(push, 1000);
  r.req.on('close', () => clearInterval(timer));
}
