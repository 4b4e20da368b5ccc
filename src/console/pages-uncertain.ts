import type { UncertainRequest } from '../journal/index.js';
import { html, num, type Html } from './html.js';

/** What an operator chose to resolve at once: whole files, and requests (each a request's uncertain rows). */
export interface UncertainChoice {
  files: number[];
  requests: number[];
}

const ids = (values: string[]) => [...new Set(values.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0))].sort((a, b) => a - b);

/** The choice a form or link sent: `file` and `request`, each once per chosen one. */
export function uncertainChoiceOf(url: URL): UncertainChoice {
  return { files: ids(url.searchParams.getAll('file')), requests: ids(url.searchParams.getAll('request')) };
}

/** The address of resolving a choice (its confirm page, and the action the page posts to). */
export function resolveChoiceHref(choice: UncertainChoice): string {
  const search = new URLSearchParams([...choice.files.map((f) => ['file', String(f)]), ...choice.requests.map((r) => ['request', String(r)])]);
  return `/console/uncertain/resolve?${search.toString()}`;
}

/** The requests of a choice: every request of a chosen file, and each chosen request. */
export function chosenRequests(all: readonly UncertainRequest[], choice: UncertainChoice): UncertainRequest[] {
  const files = new Set(choice.files);
  const requests = new Set(choice.requests);
  return all.filter((r) => files.has(r.fileId) || (r.requestId !== null && requests.has(r.requestId)));
}

interface FileGroup {
  fileId: number;
  file: string;
  rows: number;
  requests: UncertainRequest[];
}

function byFile(requests: readonly UncertainRequest[]): FileGroup[] {
  const files = new Map<number, FileGroup>();
  for (const r of requests) {
    let group = files.get(r.fileId);
    if (!group) files.set(r.fileId, (group = { fileId: r.fileId, file: r.file, rows: 0, requests: [] }));
    group.rows += r.rows;
    group.requests.push(r);
  }
  return [...files.values()];
}

/** "2,900 uncertain row(s) in 8 file(s), 29 request(s)". */
export function uncertainTotals(requests: readonly UncertainRequest[]): string {
  const rows = requests.reduce((sum, r) => sum + r.rows, 0);
  return `${num(rows)} uncertain row(s) in ${num(new Set(requests.map((r) => r.fileId)).size)} file(s), ${num(requests.length)} request(s)`;
}

const requestLabel = (r: UncertainRequest) => (r.requestId === null ? 'no request' : `request ${r.requestId}`);

/**
 * The uncertain rows by file and by request, with totals: a request was sent whole, so its rows were applied or not
 * together and are resolved together; a file, a request or a selection of them is resolved in one confirmed action.
 */
export function uncertainGroupsTable(requests: readonly UncertainRequest[], canAct = true): Html {
  if (requests.length === 0) return html`<p class="box good" id="uncertain-totals">no uncertain rows</p>`;
  const file = (g: FileGroup) => html`<tr class="group" data-file="${g.fileId}"><th colspan="5"><a href="/console/files/${g.fileId}">${g.file}</a> (file ${g.fileId}) ·
${num(g.rows)} row(s) in ${num(g.requests.length)} request(s)${canAct ? html` · <a class="resolve-file" href="${resolveChoiceHref({ files: [g.fileId], requests: [] })}">resolve the file's ${num(g.rows)} row(s)…</a>` : ''}</th></tr>
${g.requests.map((r) => html`<tr data-request="${r.requestId ?? ''}" data-file="${r.fileId}"><td>${r.requestId === null || !canAct ? '' : html`<input type="checkbox" name="request" value="${r.requestId}" form="resolve-chosen" aria-label="choose ${requestLabel(r)}">`}</td>
<td>${requestLabel(r)}</td><td class="small">${r.endpoint ?? ''}</td><td class="num">${num(r.rows)}</td>
<td>${r.requestId === null || !canAct ? '' : html`<a class="resolve-request" href="${resolveChoiceHref({ files: [], requests: [r.requestId] })}">resolve its ${num(r.rows)} row(s)…</a>`}</td></tr>`)}`;
  return html`<p class="box warn" id="uncertain-totals">${uncertainTotals(requests)}</p>
<form id="resolve-chosen" method="get" action="/console/uncertain/resolve"></form>
<table id="uncertain-groups"><thead><tr><th></th><th>request</th><th>endpoint</th><th>rows</th><th></th></tr></thead><tbody>${byFile(requests).map(file)}</tbody></table>
${canAct ? html`<p><button type="submit" form="resolve-chosen" id="resolve-chosen-button">Resolve the chosen requests…</button></p>` : ''}`;
}

/** The confirm page's question and the list of what it resolves. */
export function resolveChoiceQuestion(requests: readonly UncertainRequest[]): { question: Html; list: Html } {
  return {
    question: html`What did you find in the service for these <b>${uncertainTotals(requests)}</b>? One answer for all of them: each request was sent whole.`,
    list: html`<table id="chosen-requests"><thead><tr><th>file</th><th>request</th><th>endpoint</th><th>rows</th></tr></thead><tbody>
${requests.map((r) => html`<tr data-request="${r.requestId ?? ''}"><td>${r.file}</td><td>${requestLabel(r)}</td><td class="small">${r.endpoint ?? ''}</td><td class="num">${num(r.rows)}</td></tr>`)}</tbody></table>`,
  };
}
