import type { SearchPage } from '../journal/index.js';
import { at, html, num, query, statusCell, zoneLabel, type Html } from './html.js';
import { returned } from './pages-files.js';
import { joinMessages } from '../util/messages.js';

function linesText(lines: number[]): string {
  return lines.length <= 3 ? lines.join(', ') : `${lines[0]}–${lines[lines.length - 1]} (${lines.length})`;
}

/**
 * "Where is SO-1011?": every file and line that carried the term, with status and what the service returned, a page
 * at a time: how many rows carried it in all, which of them this page shows (`shown`: rows on the pages before), and
 * a link to the next page.
 */
export function searchPage(text: string, page: SearchPage | undefined, shown = 0): Html {
  const form = html`<form class="filters" method="get" action="/console/search" id="search-form"><label>document key, SKU, order or ASN number, reference
<input type="search" name="q" value="${text}" required minlength="2" maxlength="64"></label><button type="submit">Search</button></form>`;
  if (!page) return html`${form}<p class="muted">A whole value, any case: the document key of a row, or a value of what was sent for it.</p>`;
  const rows = page.hits.map((h) => html`<tr data-file="${h.fileId}" data-seq="${h.seq}"><td><a href="/console/files/${h.fileId}">${h.file}</a></td><td>${h.drop}</td><td>${statusCell(h.fileStatus)}</td>
<td>${at(h.claimedAt)}</td><td class="num">${linesText(h.lines)}</td><td>${h.docKey ?? ''}</td><td class="small">${h.matched}</td><td class="small">${h.endpoint ?? ''}</td>
<td>${statusCell(h.status)}</td><td class="small"><code>${returned(h.result)}</code></td><td>${joinMessages(h.messages)}</td></tr>`);
  return html`${form}
<p id="search-summary">${page.totalAtLeast ? 'at least ' : ''}${num(page.total)} row(s) carried <b>${text}</b>${page.hits.length > 0 && (shown > 0 || page.next !== null) ? html`; rows ${num(shown + 1)}–${num(shown + page.hits.length)} here` : ''}${page.totalAtLeast ? ' (not every request that may hold it was counted: later pages may show more)' : ''}.</p>
<table id="search"><thead><tr><th>file</th><th>drop</th><th>file status</th><th>claimed (${zoneLabel()})</th><th>line</th><th>document</th><th>found in</th><th>endpoint</th><th>row status</th><th>what the service returned</th><th>error</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="11" class="muted">${shown > 0 ? 'no more rows carried it' : 'no row carried it'}</td></tr>`}</tbody></table>
${page.next !== null ? html`<a id="next" href="/console/search${query({ q: text, after: page.next, shown: shown + page.hits.length })}">next rows →</a>` : html`<span class="muted small">end of the rows</span>`}`;
}
