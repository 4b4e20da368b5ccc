import type { FileOwnerChange, FileOwnerReason } from '../journal/index.js';
import { at, html, zoneLabel, type Html } from './html.js';

/** What each reason of a take means to an operator reading a file's history. */
const REASON_TEXT: Record<FileOwnerReason, string> = {
  claim: 'claimed it first',
  lost: 'took it over: its owner was lost (no heartbeat for longer than a lease: killed, crashed, out of reach)',
  handover: 'took it over: its owner stopped gracefully and handed its files over',
  released: 'took it over: its owner gave it up after a run that failed',
  redrive: 'took it for an operator\'s re-drive',
  unowned: 'took it over: no instance held it (a one-shot command had claimed it)',
};

/**
 * The file page's "Instances" section: every instance that took the file's lease, oldest first, each takeover with
 * the instance it was taken from, when, why and the fencing token taken (one more at each takeover). The journal
 * records these (file_owners) as the takes happen; a file claimed without an instance has none.
 */
export function fileOwnersSection(owners: readonly FileOwnerChange[]): Html {
  const rows = owners.map((o) => html`<tr data-reason="${o.reason}" data-token="${o.token}"><td>${at(o.at)}</td><td class="instance">${o.instance}</td>
<td class="from">${o.from ?? ''}</td><td>${o.reason}</td><td class="num">${o.token}</td><td class="small">${REASON_TEXT[o.reason] ?? ''}</td></tr>`);
  const takeovers = owners.filter((o) => o.reason !== 'claim').length;
  return html`<h2 id="owners-title">Instances</h2>
<p class="muted small">${owners.length === 0 ? 'No instance took this file\'s lease: a one-shot command processed it.'
    : `${owners.length} take(s) of this file's lease: ${takeovers === 0 ? 'its claim, no takeover' : `its claim and ${takeovers} takeover(s)`}.`}</p>
<table id="owners"><thead><tr><th>when (${zoneLabel()})</th><th>instance</th><th>taken from</th><th>reason</th><th title="the fencing token: one more at every new owner; a write under an older one is refused">fencing token</th><th>what happened</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">none</td></tr>`}</tbody></table>`;
}
