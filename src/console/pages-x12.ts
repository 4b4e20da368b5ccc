import type { FileRecord, OperatorActions } from '../journal/index.js';
import {
  readEnvelope, recordedAck,
  type FileEnvelopes, type GroupEnvelope, type InterchangeEnvelope, type RecordedAck, type RefusalView, type SetEnvelope,
} from '../pipeline/index.js';
import { html, num, query, type Html } from './html.js';

/** Envelopes (interchanges, groups and sets together) on one page of the file's X12 section. */
export const ENVELOPES_PAGE = 50;

/**
 * The X12 section of a file's page: its interchanges, groups and sets as the journal recorded them when the file was
 * read (x12_envelopes, pipeline/x12-structure.ts), a page at a time (`x12_after`), with each set's verdict and a link
 * to its rows, and the acknowledgement the bridge wrote. Nothing for a file that is not X12.
 */
export async function x12Section(pages: Pick<OperatorActions['console'], 'x12Envelopes'>, file: FileRecord, url: URL): Promise<Html | ''> {
  const raw = url.searchParams.get('x12_after');
  const after = raw !== null && /^\d+$/.test(raw) ? Number(raw) : undefined;
  const page = await pages.x12Envelopes(file.fileId, { after, limit: ENVELOPES_PAGE });
  const totals = after === undefined ? page.entries[0] : (await pages.x12Envelopes(file.fileId, { limit: 1 })).entries[0];
  if (!totals) return '';
  const ack = recordedAck(file);
  const rows = page.entries.map((entry) => {
    const e = readEnvelope(entry);
    switch (e.level) {
      case 'file': return '';
      case 'interchange': return interchangeLine(e.detail, replyOf(ack, e.detail.reply));
      case 'group': return groupLine(e.detail, replyOf(ack, e.detail.reply));
      case 'set': return setLine(file.fileId, e.detail);
    }
  });
  const here = `/console/files/${file.fileId}`;
  return html`<h2 id="x12">X12 envelopes</h2>
${summary(file, readEnvelope(totals).detail as FileEnvelopes, ack)}
${after !== undefined ? html`<p class="small muted">from envelope ${after + 1} on · <a href="${here}#x12">first envelopes</a></p>` : ''}
<table id="x12-envelopes"><thead><tr><th>envelope</th><th>control</th><th>from → to</th><th title="ISA09/ISA10 as sent">date</th><th>version · usage</th><th>content</th><th>verdict</th><th>why</th><th>rows · answered by</th></tr></thead>
<tbody>${rows}</tbody></table>
${page.next !== null ? html`<a id="x12-next" href="${here}${query({ x12_after: page.next })}#x12">more envelopes →</a>` : html`<span class="muted small">end of the envelopes</span>`}`;
}

function summary(file: FileRecord, t: FileEnvelopes, ack: RecordedAck | undefined): Html {
  const listed = t.listed < t.sets ? html` (${num(t.listed)} listed: every refused set and the first accepted ones of each group; the others are counted in their group)` : '';
  const rows = t.rowsRead ? '' : html` · <span class="muted">each set's rows and data errors are shown once the file's rows are decided</span>`;
  const acknowledgement = ack
    ? html`acknowledgement <a id="ack-download" href="/console/files/${file.fileId}/ack" title="download it from the outbox">${ack.name}</a>`
    : html`<span class="muted">no acknowledgement written${file.status === 'processing' ? ' yet' : ''}</span>`;
  return html`<div class="box small" id="x12-summary">${num(t.interchanges)} interchange(s), ${num(t.groups)} group(s), ${num(t.sets)} set(s)${listed};
<b>${num(t.refused)} refused</b> · ${acknowledgement}${rows}</div>`;
}

/** The reply that answered an interchange (files.x12_ack): its ISA13, and its FA group's GS06 and first ST02; none for a TA1 alone. */
function replyOf(ack: RecordedAck | undefined, index: number | undefined): RecordedAck['replies'][number] | undefined {
  return ack && index !== undefined ? ack.replies[index] : undefined;
}

const accepted = html`<span class="s-ok">accepted</span>`;
const refused = (what = 'refused') => html`<span class="s-error">${what}</span>`;

function why(refusals: readonly RefusalView[]): Html[] {
  return refusals.map((r) => html`<div>${r.detail} <span class="muted">(${r.reason}${r.code === undefined ? '' : `, code ${r.code}`})</span></div>`);
}

/** ISA09 (YYMMDD) and ISA10 (HHMM) as a date and time, as sent (X12 carries no zone). */
function isaDate(date: string, time: string): string {
  const d = /^(\d\d)(\d\d)(\d\d)$/.exec(date);
  const t = /^(\d\d)(\d\d)$/.exec(time);
  return `${d ? `20${d[1]}-${d[2]}-${d[3]}` : date} ${t ? `${t[1]}:${t[2]}` : time}`.trim();
}

type Reply = RecordedAck['replies'][number];

function interchangeLine(i: InterchangeEnvelope, reply: Reply | undefined): Html {
  const usage = i.usage === 'P' ? 'P (production)' : i.usage === 'T' ? 'T (test)' : i.usage;
  const ta1 = i.refusals.length > 0 ? 'TA1 alone' : i.acknowledgementRequested ? `TA1 and ${i.replyKind}` : i.replyKind;
  const answered = i.reply === undefined ? html`<span class="muted">not acknowledged (partner profile)</span>`
    : reply ? html`<span class="reply">${ta1} in reply ISA13 <code>${String(reply.interchange).padStart(9, '0')}</code></span>` : '';
  return html`<tr class="x12-interchange" data-level="interchange" data-control="${i.control}" style="background:#f4f6f9">
<td><b>interchange ${i.index}</b></td><td>ISA13 <code>${i.control}</code></td>
<td>${i.senderQualifier}/${i.sender} → ${i.receiverQualifier}/${i.receiver}${i.partner ? html` <span class="small">(partner <b>${i.partner}</b>)</span>` : html` <span class="small muted">(no partner profile)</span>`}</td>
<td>${isaDate(i.date, i.time)}</td><td>${i.version} · ${usage}</td><td>${num(i.groups)} group(s)</td>
<td>${i.refusals.length ? refused() : accepted}</td><td class="small">${why(i.refusals)}</td><td class="small">${answered}</td></tr>`;
}

function groupLine(g: GroupEnvelope, reply: Reply | undefined): Html {
  const verdict = g.verdict === 'A' ? accepted : g.verdict === 'P' ? html`<span class="s-uncertain">partly accepted</span>` : refused(g.refusals.length ? 'refused' : 'no set accepted');
  const counted = g.listed < g.received ? html` · ${num(g.listed)} listed` : '';
  // A refused interchange is answered by its TA1 alone: its groups get no 997.
  const answered = reply && reply.group !== 0
    ? html`<span class="reply">GS06 <code>${String(reply.group)}</code> ST02 <code>${String((reply.firstSet ?? 1) + g.index).padStart(4, '0')}</code></span>` : '';
  return html`<tr class="x12-group" data-level="group" data-control="${g.control}" data-interchange="${g.interchange}">
<td style="padding-left:22px">group <b>${g.functionalId}</b></td><td>GS06 <code>${g.control}</code></td><td>${g.sender} → ${g.receiver}</td><td></td><td>${g.version}</td>
<td>${num(g.received)} set(s) received, ${num(g.accepted)} accepted${g.declared !== undefined && g.declared !== g.received ? html` (GE01 says ${num(g.declared)})` : ''}${counted}</td>
<td>${verdict} <span class="small muted" title="AK9-01 of its acknowledgement">AK9 ${g.verdict}</span></td><td class="small">${why(g.refusals)}</td><td class="small">${answered}</td></tr>`;
}

const STATUS_ORDER = ['ok', 'error', 'uncertain', 'skipped', 'pending', 'sent'] as const;

function setLine(fileId: number, s: SetEnvelope): Html {
  const own = why(s.refusals);
  const inherited = s.refusedBy ? html`<div>refused with its ${s.refusedBy}</div>` : '';
  const lines = s.lines ? html`, lines ${s.lines.first}–${s.lines.last}` : '';
  let rows: Html | string = '';
  if (s.rows) {
    const n = s.rows.last - s.rows.first + 1;
    const statuses = STATUS_ORDER.filter((k) => s.rows!.statuses[k]).map((k) => html`<span class="s-${k}">${num(s.rows!.statuses[k])} ${k}</span>`);
    const href = `/console/files/${fileId}${query({ after: s.rows.first > 0 ? s.rows.first - 1 : undefined, through: s.rows.last })}#rows`;
    rows = html`<a class="set-rows" href="${href}" title="its rows in the rows table, as they stand">${num(n)} row(s) →</a> <span class="small">${joinHtml(statuses)}</span>`;
  }
  return html`<tr class="x12-set" data-level="set" data-control="${s.control}" data-group="${s.group}" data-interchange="${s.interchange}">
<td style="padding-left:44px">set <b>${s.id}</b></td><td>ST02 <code>${s.control}</code></td><td></td><td></td><td></td>
<td>${num(s.segments)} segment(s)${lines}</td><td>${s.accepted ? accepted : refused()}</td><td class="small">${own}${inherited}</td><td>${rows}</td></tr>`;
}

function joinHtml(parts: Html[]): Html {
  return html`${parts.map((p, i) => (i === 0 ? p : html`, ${p}`))}`;
}
