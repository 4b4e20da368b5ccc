import type { FileRecord } from '../journal/index.js';
import type { FailedRowCounts, FileEventEntry, FileLine, FileLinePage, FileListEntry, OperatorAction, RowPage, RowView } from '../journal/index.js';
import { at, bytes, duration, html, num, query, statusCell, when, zoneLabel, type Html } from './html.js';
import { joinMessages } from '../util/messages.js';

export const FILE_STATUSES = ['processing', 'done', 'failed', 'rejected'] as const;
/** The file list's statuses: a file's, or `duplicate` for re-drops (file events; `rejected` also lists refusals before a claim). */
export const FILE_LIST_STATUSES = [...FILE_STATUSES, 'duplicate'] as const;
export const ROW_STATUSES = ['ok', 'error', 'uncertain', 'skipped', 'pending', 'sent'] as const;
export const EXPORT_STATUSES = ['recorded', 'written', 'completed', 'abandoned'] as const;

export interface FileListView {
  jobs: string[];
  filter: { job?: string; status?: string; date?: string; name?: string };
  /** Files and file events (re-drops, refusals before a claim), newest first. */
  lines: FileLine[];
  next: FileLinePage['next'];
  /** Rows read so far of files still processing (from the progress registry). */
  live: Map<string, number>;
}

function options(values: readonly string[], selected: string | undefined, any = 'any'): Html {
  return html`<option value="">${any}</option>${values.map((v) => html`<option${v === selected ? html` selected` : ''}>${v}</option>`)}`;
}

export function filtersForm(action: string, view: { jobs: string[]; statuses: readonly string[]; filter: FileListView['filter'] }): Html {
  const f = view.filter;
  return html`<form class="filters" method="get" action="${action}">
<label>job<select name="job">${options(view.jobs, f.job)}</select></label>
<label>status<select name="status">${options(view.statuses, f.status)}</select></label>
<label>date<input type="date" name="date" value="${f.date ?? ''}"></label>
<label>name contains<input type="text" name="name" value="${f.name ?? ''}"></label>
<button type="submit">Filter</button> <a href="${action}">clear</a></form>`;
}

const count = (n: number | undefined) => html`<td class="num">${num(n)}</td>`;

export function fileListPage(view: FileListView): Html {
  const rows = view.lines.map((line) => (line.file ? fileLine(line.file, view.live) : eventLine(line.event)));
  return html`${filtersForm('/console/files', { jobs: view.jobs, statuses: FILE_LIST_STATUSES, filter: view.filter })}
<table id="files"><thead><tr><th title="a file's id; E and a number: a file event (a file met but never claimed)">id</th><th>file</th><th>drop</th><th>mapping</th><th title="the instance that holds the file's lease (processing) or held it last">instance</th><th>status</th><th title="documents, and rows the mapping rejected or skipped">documents</th><th>ok</th><th>error</th><th>uncertain</th><th>skipped</th><th title="when the file was claimed; for a file event, when the bridge met the file">claimed (${zoneLabel()})</th><th title="from its claim to the end of its first processing">processing time</th><th>last action</th><th>reason</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="15" class="muted">no files match</td></tr>`}</tbody></table>
${view.next !== null ? html`<a id="next" href="/console/files${query({ ...view.filter, before: view.next.before, before_event: view.next.beforeEvent })}">older files →</a>` : html`<span class="muted small">end of the list</span>`}`;
}

function fileLine(f: FileListEntry, live: Map<string, number>): Html {
  const s = f.summary;
  const total = s ? s.total : live.get(f.name);
  return html`<tr data-file="${f.fileId}"><td class="num">${f.fileId}</td><td><a href="/console/files/${f.fileId}">${f.name}</a></td><td>${f.drop}</td><td>${f.mapping}</td>
<td class="small instance">${f.instance ?? ''}</td><td>${fileStatusCell(f)}</td>${count(total)}${count(s?.ok)}${count(s?.error)}${count(s?.uncertain)}${count(s?.skipped)}
<td>${at(f.claimedAt)}</td><td>${duration(f.claimedAt, processedAt(f))}</td><td class="small">${lastAction(f)}</td><td class="small">${f.reason ?? ''}</td></tr>`;
}

/** A file the bridge met and did not claim: a re-drop (linking the file it repeats) or a file refused before a claim. */
function eventLine(e: FileEventEntry): Html {
  const original = e.originalFileId === null ? ''
    : html`duplicate of <a class="original" href="/console/files/${e.originalFileId}">${e.originalName ?? 'file'} (file ${e.originalFileId})</a>`;
  const what = e.kind === 'rejected' ? 'refused before its claim' : '';
  const reason = [what, e.reason ?? ''].filter(Boolean).join(': ');
  return html`<tr data-event="${e.eventId}" data-kind="${e.kind}"><td class="num" title="file event ${e.eventId}">E${e.eventId}</td><td>${e.name}</td><td>${e.drop}</td><td></td>
<td></td><td>${statusCell(e.kind)}</td><td colspan="5" class="small muted">${e.resultName ? `result file ${e.resultName}` : ''}</td>
<td>${at(e.at)}</td><td></td><td></td><td class="small">${original}${original && reason ? ' · ' : ''}${reason}</td></tr>`;
}

/**
 * A concluded file's status as work for an operator: rows the service refused (failed, fixed in the file or
 * re-driven) and rows whose outcome is unknown (needs a check in the service, then a resolution) are different work.
 */
export function fileStatusCell(f: Pick<FileRecord, 'status' | 'summary'>): Html {
  const s = f.summary;
  if (f.status !== 'failed' || !s || s.uncertain === 0) return statusCell(f.status);
  const check = html`<span class="s-check" title="${num(s.uncertain)} row(s) whose outcome is unknown: check them in the service, then resolve them">needs a check</span>`;
  return s.error > 0 ? html`${statusCell('failed')} · ${check}` : check;
}

/** When its processing ended: kept across re-drives (processedAt); for older journals the finish, if never re-driven. */
function processedAt(f: Pick<FileRecord, 'processedAt' | 'finishedAt' | 'redrives'>): string | null {
  return f.processedAt ?? (f.redrives === 0 ? f.finishedAt : null);
}

/** A later finish than the processing (a re-drive or resolution that concluded the file again), apart from its duration. */
function lastAction(f: Pick<FileRecord, 'processedAt' | 'finishedAt' | 'redrives'>): string {
  const processed = processedAt(f);
  if (!f.finishedAt || f.finishedAt === processed) return '';
  return `${f.redrives > 0 ? `re-drive ${f.redrives}` : 'concluded again'} ${when(f.finishedAt)}`;
}

export function returned(result: unknown): string {
  if (result === null || result === undefined) return '';
  const text = typeof result === 'object' ? JSON.stringify(result) : String(result);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function linesText(lines: number[]): string {
  if (lines.length <= 3) return lines.join(', ');
  return `${lines[0]}–${lines[lines.length - 1]} (${lines.length})`;
}

function rowLine(fileId: number, r: RowView, canResolve: boolean): Html {
  const resolution = r.resolution ? `${r.resolution}: ${r.resolutionNote ?? ''} (${r.resolvedBy ?? ''}, ${when(r.resolvedAt)})` : '';
  const action = r.status === 'uncertain' && r.itemId !== null && canResolve
    ? html`<a class="resolve" href="/console/files/${fileId}/resolve?item=${r.itemId}">resolve…</a>` : '';
  return html`<tr data-seq="${r.seq}" data-status="${r.status}"><td class="num">${linesText(r.lines)}</td><td>${r.docKey ?? ''}</td><td class="small">${r.endpoint ?? ''}</td>
<td>${statusCell(r.status)}</td><td class="small"><code>${returned(r.result)}</code></td><td>${joinMessages(r.messages)}</td><td class="small">${r.hint ?? ''}</td>
<td class="small">${resolution}${action}</td></tr>`;
}

/** What to do about rows the mapping rejected: re-drive never sends them, the file has to be corrected. */
export function mappingRejectedAdvice(f: FileRecord, unsendable: number, canAct = true): Html {
  const inError = f.disposedTo?.startsWith('error/') === true && canAct;
  return html`<div class="box warn" id="rejected-rows"><b>${unsendable} row(s) were rejected by the mapping</b> (see their error below): they were never
sent, and a re-drive cannot send them. Fix them in the file and drop the corrected rows into the inbox again, in a new file (the rows that
succeeded would be sent twice in a copy of the whole file)${inError ? html`, or, once the mapping or its reference data is fixed,
<a class="reprocess" href="/console/rejected/reprocess?drop=${encodeURIComponent(f.drop)}&amp;name=${encodeURIComponent(f.disposedTo!.slice('error/'.length))}">re-process the file…</a>` : html` (the same bytes dropped again are recognised as a duplicate${f.disposedTo ? ` of this file, now in ${f.disposedTo}` : ''})`}.</div>`;
}

export interface FileView {
  file: FileRecord;
  /** Its failed rows: those a re-drive sends again, and those the mapping rejected. */
  failed: FailedRowCounts;
  rows: RowPage;
  status?: string;
  csrf: string;
  actions: OperatorAction[];
  job?: string;
  /** false (a viewer): no re-drive or resolve links. */
  canAct?: boolean;
  /** The rows of one X12 set: from the seq after `after` through this one (pages-x12.ts links them). */
  set?: { after?: number; through: number };
  /** An X12 file's envelopes (pages-x12.ts). */
  x12?: Html | '';
}

export function filePage(view: FileView): Html {
  const { file: f, rows } = view;
  const s = f.summary;
  const canAct = view.canAct ?? true;
  const redrive = f.status === 'failed' && view.failed.sendable > 0 && canAct
    ? html`<a class="button" id="redrive" href="/console/files/${f.fileId}/redrive">Re-drive ${view.failed.sendable} failed row(s)…</a>` : '';
  const rowsTable = rows.rows.map((r) => rowLine(f.fileId, r, f.status !== 'processing' && canAct));
  const onlyChecks = f.status === 'failed' && s !== null && s.uncertain > 0 && s.error === 0;
  return html`<div class="box ${(f.status === 'failed' && !onlyChecks) || f.status === 'rejected' ? 'bad' : f.status === 'done' ? 'good' : 'warn'}">
<b>${f.name}</b> · file ${f.fileId} · drop ${f.drop}${view.job ? ` · job ${view.job}` : ''} · mapping ${f.mapping} · ${bytes(f.size)} · status ${fileStatusCell(f)}
${f.reason ? html`<div>reason: ${f.reason}</div>` : ''}
<div class="small">claimed ${when(f.claimedAt)} · processed <span id="processing-time">${processedAt(f) ? `in ${duration(f.claimedAt, processedAt(f))}` : '–'}</span>
· last action <span id="last-action">${lastAction(f) || '–'}</span> · re-drives ${f.redrives}${leaseText(f)}
${s ? ` · ${num(s.total)} documents: ${num(s.ok)} ok, ${num(s.error)} error, ${num(s.uncertain)} uncertain, ${num(s.skipped)} skipped` : ''}</div>
${view.failed.unsendable > 0 ? mappingRejectedAdvice(f, view.failed.unsendable, canAct) : ''}<div style="margin-top:6px">${redrive} <a id="download" href="/console/files/${f.fileId}/result">Download the result file</a></div></div>
${view.x12 ?? ''}${view.set ? html`<p class="small" id="set-rows">the rows of one X12 set · <a href="/console/files/${f.fileId}#rows">all rows</a></p>` : ''}
<form class="filters" method="get" action="/console/files/${f.fileId}"><label>row status<select name="status">${options(ROW_STATUSES, view.status)}</select></label>${view.set ? html`<input type="hidden" name="after" value="${view.set.after ?? ''}"><input type="hidden" name="through" value="${view.set.through}">` : ''}<button type="submit">Show</button></form>
<table id="rows"><thead><tr><th>line</th><th>document</th><th>endpoint</th><th>status</th><th>what the service returned</th><th>error</th><th>check (uncertain)</th><th>resolution</th></tr></thead>
<tbody>${rowsTable.length ? rowsTable : html`<tr><td colspan="8" class="muted">no rows${view.status ? ` with status ${view.status}` : ''}</td></tr>`}</tbody></table>
${rows.next !== null ? html`<a id="next" href="/console/files/${f.fileId}${query({ status: view.status, after: rows.next, through: view.set?.through })}">next rows →</a>` : html`<span class="muted small">end of the rows</span>`}
${actionsTable(view.actions, 'Operator actions on this file')}`;
}

/**
 * Which instance holds the file's lease (processing) or held it last (finished), and whether another held it before:
 * the fencing token counts the owners, and the page's Instances section (file-owners.ts) says who, when and why.
 */
function leaseText(f: FileRecord): Html | string {
  if (!f.lease) return '';
  const { owner, token } = f.lease;
  const before = token > 1 ? html` <span id="takeovers" class="small">(fencing token ${token}: taken over ${token - 1} time(s); <a href="#owners-title">from whom, when and why</a>)</span>` : '';
  return html` · <span id="instance">${f.status === 'processing' ? 'held by' : 'processed by'} instance ${owner}</span>${before}`;
}

export function actionsTable(actions: OperatorAction[], title: string): Html {
  return html`<h2>${title}</h2><table id="actions"><thead><tr><th>when (${zoneLabel()})</th><th>who</th><th>via</th><th>action</th><th>file</th><th>target</th><th>outcome</th><th>detail</th></tr></thead><tbody>
${actions.length ? actions.map((a) => html`<tr><td>${at(a.at)}</td><td>${a.actor}</td><td>${a.via}</td><td>${a.action}</td><td>${a.fileId === null ? '' : html`<a href="/console/files/${a.fileId}">${a.fileId}</a>`}</td>
<td>${a.target ?? ''}</td><td>${a.outcome}</td><td class="small">${a.detail ?? ''}</td></tr>`) : html`<tr><td colspan="8" class="muted">none</td></tr>`}</tbody></table>`;
}

export interface ExportView {
  jobs: string[];
  filter: FileListView['filter'];
  exports: Array<{ exportId: number; workType: string; fileName: string; kind: string; policy: string; status: string; recordCount: number; createdAt: string; writtenAt: string | null; completedAt: string | null }>;
  next: number | null;
  /** The acknowledgement state of the exports written as X12, by export id (a column of its own when the page has one). */
  x12?: ReadonlyMap<number, string>;
}

export function exportListPage(view: ExportView): Html {
  const x12 = view.x12 !== undefined && view.x12.size > 0 ? view.x12 : undefined;
  return html`${filtersForm('/console/exports', { jobs: view.jobs, statuses: EXPORT_STATUSES, filter: view.filter })}
<table id="exports"><thead><tr><th>id</th><th>file</th><th>work type</th><th>kind</th><th>records</th><th>acknowledge</th><th>status</th><th>created (${zoneLabel()})</th><th>written</th><th>duration</th>${x12 ? html`<th>X12 acknowledgement</th>` : ''}</tr></thead><tbody>
${view.exports.length ? view.exports.map((e) => html`<tr><td class="num">${e.exportId}</td><td>${e.fileName}</td><td>${e.workType}</td><td>${e.kind}</td><td class="num">${e.recordCount}</td><td>${e.policy}</td>
<td>${statusCell(e.status)}</td><td>${at(e.createdAt)}</td><td>${at(e.writtenAt)}</td><td>${duration(e.createdAt, e.completedAt ?? e.writtenAt)}</td>${x12 ? html`<td class="x12-ack">${x12.get(e.exportId) ?? ''}</td>` : ''}</tr>`) : html`<tr><td colspan="10" class="muted">no exports match</td></tr>`}
</tbody></table>${view.next !== null ? html`<a id="next" href="/console/exports${query({ ...view.filter, before: view.next })}">older exports →</a>` : ''}`;
}

export function uncertainPage(rows: Array<RowView & { fileId: number; file: string }>, next: { fileId: number; seq: number } | null, canAct = true): Html {
  return html`<p class="muted">Writes whose outcome the bridge could not know. Check each in the service, then resolve it as applied or not applied.</p>
<table id="uncertain"><thead><tr><th>file</th><th>line</th><th>document</th><th>endpoint</th><th>message</th><th>what to check</th><th></th></tr></thead><tbody>
${rows.length ? rows.map((r) => html`<tr><td><a href="/console/files/${r.fileId}">${r.file}</a></td><td class="num">${linesText(r.lines)}</td><td>${r.docKey ?? ''}</td><td class="small">${r.endpoint ?? ''}</td>
<td>${joinMessages(r.messages)}</td><td>${r.hint ?? ''}</td><td>${canAct ? html`<a href="/console/files/${r.fileId}/resolve?item=${r.itemId}">resolve…</a>` : ''}</td></tr>`) : html`<tr><td colspan="7" class="muted">no uncertain rows</td></tr>`}
</tbody></table>${next ? html`<a id="next" href="/console/uncertain${query({ afterFile: next.fileId, afterSeq: next.seq })}">more →</a>` : ''}`;
}
