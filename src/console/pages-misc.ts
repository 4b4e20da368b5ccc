import type { Backlog, InstanceView, StoredItem } from '../journal/index.js';
import type { OperatorAction, StoredAlert } from '../journal/index.js';
import { alertsBanner } from './pages-alerts.js';
import { at, bytes, html, num, when, zoneLabel, type Html } from './html.js';
import type { ExpectedFileView } from '../schedule/index.js';
import type { FileProgress } from './progress.js';
import type { JobView } from './source.js';
import { fileLeftFailed } from './actions.js';

export interface OverviewView {
  mode: 'run' | 'console';
  jobs: JobView[];
  backlog: Backlog;
  journal: { bytes: number; oldestEntry: string | null };
  /** Open alerts of the inbox, the most severe first, then newest seen first. */
  alerts: StoredAlert[];
  progress: FileProgress[];
  expected: ExpectedFileView[];
  /** The bridge instances registered in the journal; `self` is the one serving this page (under `wisbridge run`). */
  instances: InstanceView[];
  self?: string;
}

function lastRunText(j: JobView): string {
  const l = j.lastRun;
  if (!l) return '–';
  const rows = l.rows ? `, rows ${Object.entries(l.rows).map(([k, v]) => `${k} ${v}`).join(' / ')}` : '';
  return `${when(l.at)}${l.result ? ` · ${l.result}` : ''}${l.trigger ? ` (${l.trigger})` : ''}${l.files !== undefined ? ` · ${l.files} file(s)${rows}` : ''}${l.error ? ` · ${l.error}` : ''}`;
}

export function jobsTable(jobs: JobView[]): Html {
  return html`<table id="jobs"><thead><tr><th>job</th><th>kind</th><th>drop</th><th>schedule</th><th>watch</th><th>next run (${zoneLabel()})</th><th>last run</th><th>running</th><th></th></tr></thead><tbody>
${jobs.map((j) => html`<tr><td>${j.name}</td><td>${j.kind}</td><td>${j.drop}</td><td>${j.schedule ?? '–'}</td><td>${j.watch ? 'yes' : ''}</td><td>${j.nextRun ? at(j.nextRun) : '–'}</td>
<td class="small">${lastRunText(j)}</td><td>${j.running ? html`<b>yes</b>` : ''}</td><td>${j.kind === 'inbound' ? html`<a href="/console/files?job=${encodeURIComponent(j.name)}">files</a>` : html`<a href="/console/exports?job=${encodeURIComponent(j.name)}">exports</a>`}</td></tr>`)}
</tbody></table>`;
}

export function overviewPage(v: OverviewView): Html {
  const b = v.backlog;
  const attention = b.errorItems + b.uncertainItems;
  return html`${v.mode === 'console' ? html`<div class="box warn">Served by <code>wisbridge console</code>: no jobs run in this process; next runs are those of the schedules.</div>` : ''}
${alertsBanner(v.alerts)}
<div class="box ${attention ? 'warn' : 'good'}" id="backlog">${backlogLinks(b)}</div>
<h2>Jobs</h2>${jobsTable(v.jobs)}
${v.expected.length ? html`<h2>Expected files</h2>${expectedTable(v.expected)}` : ''}
<h2>In progress</h2>${progressTable(v.progress)}
<h2>Instances</h2>${instancesTable(v.instances, v.self)}
<p class="small muted" id="journal">Journal: ${bytes(v.journal.bytes)} · oldest entry ${when(v.journal.oldestEntry) || '–'}</p>`;
}

/**
 * The backlog, each count saying what it counts (files, documents, requests, export records) and linking to the list
 * it counts. A document is what one request item carries: one row, or several rows of one shipment or order; a row the
 * mapping rejected counts as one.
 */
function backlogLinks(b: Backlog): Html {
  const docs = 'documents: a shipment, an order, an adjustment… (several rows of a file may make one); a row the mapping rejected counts as one';
  const counts: Array<[number, string, string, string]> = [
    [b.processingFiles, 'file(s) processing', '/console/files?status=processing', 'inbound files being processed now'],
    [b.errorItems, 'failed document(s)', '/console/files?status=failed', `${docs}; in the files listed as failed`],
    [b.uncertainItems, 'uncertain document(s)', '/console/uncertain', `${docs}; whose outcome in the service is unknown`],
    [b.pendingRequests, 'request(s) pending', '/console/progress', 'requests recorded but not sent yet'],
    [b.sentRequests, 'request(s) awaiting an answer', '/console/progress', 'requests sent whose answer has not come yet'],
    [b.acknowledgementsPending, 'export record(s) awaiting acknowledgement', '/console/exports?status=written', 'records of written work lists not acknowledged yet'],
    [b.awaitingConfirmation, 'export record(s) awaiting WMS confirmation', '/console/exports?status=written', 'records handed over under the on-confirmation policy'],
  ];
  return html`${counts.map(([n, label, href, title], i) => html`${i ? ' · ' : ''}<a class="count" href="${href}" title="${title}"><b>${n}</b> ${label}</a>`)}`;
}

export function expectedTable(expected: ExpectedFileView[]): Html {
  return html`<table id="expected"><thead><tr><th>job</th><th>file name</th><th>due</th><th>next due (${zoneLabel()})</th><th>alert if missing at (${zoneLabel()})</th><th>today</th></tr></thead><tbody>
${expected.map((e) => html`<tr><td>${e.job}</td><td><code>${e.pattern}</code></td><td class="small">${e.schedule}</td><td>${e.nextDue ? at(e.nextDue) : '–'}</td><td>${e.alertAt ? at(e.alertAt) : '–'}</td><td class="small">${e.todayOff ? `no file due: ${e.todayOff}` : ''}</td></tr>`)}
</tbody></table>`;
}

const STATE_TITLES = {
  live: 'a heartbeat within a lease', stopped: 'it stopped gracefully', replaced: 'silent, but an instance started on its host since',
  lost: 'no heartbeat for longer than a lease and never stopped (killed, crashed, host gone): other instances take its files over',
};

/** The instances sharing the journal with their state (instanceStates): a lost one is marked bad. */
export function instancesTable(instances: InstanceView[], self?: string): Html {
  const rows = instances.map((i) => html`<tr data-instance="${i.id}" data-state="${i.state}"><td>${i.id}${i.id === self ? html` <span class="muted small">(this one)</span>` : ''}</td>
<td title="${STATE_TITLES[i.state]}">${i.state === 'lost' ? html`<span class="bad">lost</span>` : i.state}</td><td>${i.host}</td>
<td class="num">${i.pid}</td><td>${i.version}</td><td>${at(i.startedAt)}</td><td>${at(i.heartbeatAt)}</td><td>${at(i.stoppedAt)}</td>
<td class="num">${i.files}</td><td class="num">${i.jobs}</td></tr>`);
  return html`<table id="instances"><thead><tr><th>instance</th><th>state</th><th>host</th><th>pid</th><th>version</th><th>started (${zoneLabel()})</th><th>last heartbeat</th><th>stopped</th>
<th title="files whose lease it holds now">files</th><th title="scheduled ticks it holds now">jobs</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="10" class="muted">no instance registered</td></tr>`}</tbody></table>`;
}

export function progressTable(progress: FileProgress[]): Html {
  const rows = progress.map((p) => {
    const pct = p.percent;
    return html`<tr data-job="${p.job}"><td>${p.job}</td><td>${p.file}</td><td class="num">${num(p.rows)}</td><td class="num">${p.estimatedTotal === null ? '' : `~${num(p.estimatedTotal)}`}</td>
<td><span class="bar"><span style="width:${pct}%"></span></span> ${pct}%</td><td class="num">${p.rate}/s</td><td>${at(p.startedAt)}</td></tr>`;
  });
  return html`<table id="progress"><thead><tr><th>job</th><th>file</th><th>rows done</th><th>rows total (~)</th><th>done</th><th>rate</th><th>started (${zoneLabel()})</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7" class="muted">no file in progress</td></tr>`}</tbody></table>`;
}

export function progressPage(progress: FileProgress[]): Html {
  return html`<p class="muted small">Updated live (server-sent events); without JavaScript, reload the page.</p>
<div id="live">${progressTable(progress)}</div><script src="/console/static/live.js"></script>`;
}

export interface RejectedEntry {
  drop: string;
  name: string;
  size: number;
  mtimeMs: number;
  reason: string | null;
}

export function rejectedPage(entries: RejectedEntry[], problems: string[], canAct = true): Html {
  return html`<p class="muted">Files rejected as a whole lie in the error/ folder of their drop with a <code>.error.txt</code> reason. Re-processing moves one back to the inbox.</p>
${problems.map((p) => html`<div class="box bad">${p}</div>`)}
<table id="rejected"><thead><tr><th>drop</th><th>file</th><th>size</th><th>modified (${zoneLabel()})</th><th>reason</th><th></th></tr></thead><tbody>
${entries.length ? entries.map((e) => html`<tr><td>${e.drop}</td><td>${e.name}</td><td class="num">${bytes(e.size)}</td><td>${at(new Date(e.mtimeMs).toISOString())}</td><td class="small">${e.reason ?? ''}</td>
<td>${e.name.endsWith('.error.txt') ? html`<span class="muted small">a reason file without its file</span>`
    : !canAct ? '' : html`<a class="reprocess" href="/console/rejected/reprocess?drop=${encodeURIComponent(e.drop)}&amp;name=${encodeURIComponent(e.name)}">re-process…</a>`}</td></tr>`) : html`<tr><td colspan="6" class="muted">no rejected files</td></tr>`}
</tbody></table>`;
}

const whoField = (who: string | undefined): Html => who === undefined
  ? html`<label>your name (recorded in the journal) <input name="by" required maxlength="100"></label><br>` : html`<p class="small">recorded as <b>${who}</b></p>`;

/** A confirm page: nothing changes until its form is posted (with the CSRF token). */
export function confirmPage(o: { action: string; csrf: string; question: Html; button: string; back: string; who?: string; extra?: Html }): Html {
  return html`<form method="post" action="${o.action}" class="box warn" id="confirm"><p>${o.question}</p>${o.extra ?? ''}${whoField(o.who)}
<input type="hidden" name="csrf" value="${o.csrf}"><button type="submit" id="confirm-button">${o.button}</button> <a href="${o.back}">cancel</a></form>`;
}

export function resolveExtra(item: StoredItem): Html {
  return html`<table><tr><th>lines</th><td>${item.lines.join(', ')}</td></tr><tr><th>document</th><td>${item.docKey ?? ''}</td></tr>
<tr><th>message</th><td>${item.messages.join(' | ')}</td></tr><tr><th>what to check</th><td>${item.hint ?? ''}</td></tr></table>
${resolutionFields()}`;
}

/** Applied or not applied, and the note: what every resolution asks (one row, or many at once). */
export function resolutionFields(): Html {
  return html`<p><label><input type="radio" name="resolution" value="applied" required> applied: the change is in the service (the row becomes ok)</label><br>
<label><input type="radio" name="resolution" value="not-applied"> not applied: it is not (the row becomes failed; re-drive can send it again)</label></p>
<label>note (what you checked; it goes into the result file)<br><textarea name="note" required rows="2" cols="60" maxlength="500"></textarea></label><br>`;
}

/** The page title of an action's result: a re-drive or resolution that left its file failed is not plainly done. */
export function actionResultTitle(a: OperatorAction): string {
  if (a.outcome !== 'ok') return 'Not done';
  return fileLeftFailed(a.detail) ? 'Done, but the file is still failed' : 'Done';
}

/** What an action did, from its audit entry: the page a confirmed action redirects to (a reload only shows it again). */
export function actionResultPage(a: OperatorAction): Html {
  const back = a.fileId !== null ? { href: `/console/files/${a.fileId}`, label: 'back to the file' }
    : a.action === 'reprocess' ? { href: '/console/rejected', label: 'back to the rejected files' } : { href: '/console/actions', label: 'actions log' };
  const left = a.outcome === 'ok' ? fileLeftFailed(a.detail) : false;
  return html`${messagePage(a.outcome !== 'ok' ? 'bad' : left ? 'warn' : 'good', a.detail ?? a.outcome, back)}
${left ? html`<p class="box warn" id="still-failed">The action ran, but the file is still <b>failed</b>: rows that failed or need a check remain. Open <a href="${back.href}">the file</a> for what is left.</p>` : ''}
<p class="small muted" id="action-entry">${a.action} by ${a.actor}, ${when(a.at)} ${zoneLabel()}, ${a.outcome === 'ok' ? 'done' : 'not done'} · entry ${a.id} of the <a href="/console/actions">actions log</a></p>`;
}

export function messagePage(kind: 'good' | 'warn' | 'bad', message: string, back: { href: string; label: string }): Html {
  return html`<div class="box ${kind}" id="message">${message}</div><a href="${back.href}">${back.label}</a>`;
}
