import type { SearchPage } from '../journal/index.js';
import { at, html, statusCell, zoneLabel, type Html } from './html.js';
import { returned } from './pages-files.js';
import { joinMessages } from '../util/messages.js';

function linesText(lines: number[]): string {
  return lines.length <= 3 ? lines.join(', ') : `${lines[0]}–${lines[lines.length - 1]} (${lines.length})`;
}

/** "Where is SO-1011?": every file and line that carried the term, with status and what the service returned. */
export function searchPage(text: string, page: SearchPage | undefined): Html {
  const form = html`<form class="filters" method="get" action="/console/search" id="search-form"><label>document key, SKU, order or ASN number, reference
<input type="search" name="q" value="${text}" required minlength="2" maxlength="64"></label><button type="submit">Search</button></form>`;
  if (!page) return html`${form}<p class="muted">A whole value, any case: the document key of a row, or a value of what was sent for it.</p>`;
  const rows = page.hits.map((h) => html`<tr data-file="${h.fileId}" data-seq="${h.seq}"><td><a href="/console/files/${h.fileId}">${h.file}</a></td><td>${h.drop}</td><td>${statusCell(h.fileStatus)}</td>
<td>${at(h.claimedAt)}</td><td class="num">${linesText(h.lines)}</td><td>${h.docKey ?? ''}</td><td class="small">${h.matched}</td><td class="small">${h.endpoint ?? ''}</td>
<td>${statusCell(h.status)}</td><td class="small"><code>${returned(h.result)}</code></td><td>${joinMessages(h.messages)}</td></tr>`);
  return html`${form}
<p id="search-summary">${page.hits.length}${page.more ? '+' : ''} row(s) carried <b>${text}</b>${page.more ? html` (the first ${page.hits.length}, newest files first)` : ''}.</p>
<table id="search"><thead><tr><th>file</th><th>drop</th><th>file status</th><th>claimed (${zoneLabel()})</th><th>line</th><th>document</th><th>found in</th><th>endpoint</th><th>row status</th><th>what the service returned</th><th>error</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="11" class="muted">no row carried it</td></tr>`}</tbody></table>`;
}
