import { ALERT_SEVERITIES, type AlertSeverity, type StoredAlert } from '../journal/index.js';
import { at, html, num, when, zoneLabel, type Html } from './html.js';

/** At most this many alerts are acknowledged in one action (a page of the inbox lists 200). */
export const ALERTS_PER_ACTION = 200;

/** Alerts of one incident: one kind about one job (or none), e.g. the rows-uncertain alerts of every file a kill -9 left. */
interface AlertGroup {
  severity: AlertSeverity;
  kind: string;
  job: string | null;
  alerts: StoredAlert[];
}

/** The open alerts as incidents, in the order given (the most severe first, then newest seen first). */
function groupsOf(alerts: readonly StoredAlert[]): AlertGroup[] {
  const groups = new Map<string, AlertGroup>();
  for (const a of alerts) {
    const key = `${a.kind}\n${a.job ?? ''}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { severity: a.severity, kind: a.kind, job: a.job, alerts: [] }));
    group.alerts.push(a);
  }
  return [...groups.values()];
}

const severityBadge = (s: AlertSeverity) => html`<span class="sev sev-${s}">${s}</span>`;

/** How many open alerts of each severity: "8 critical, 1 warning". */
function severityCounts(alerts: readonly StoredAlert[]): string {
  return ALERT_SEVERITIES.map((s) => [s, alerts.filter((a) => a.severity === s).length] as const)
    .filter(([, n]) => n > 0).map(([s, n]) => `${num(n)} ${s}`).join(', ');
}

/** The address that asks to acknowledge these alerts (a confirm page). */
export const acknowledgeHref = (ids: readonly number[]) => `/console/alerts/acknowledge?ids=${ids.join(',')}`;

/** The overview's banner: how many alerts are open by severity, and the most severe incident, not merely the newest alert. */
export function alertsBanner(alerts: readonly StoredAlert[]): Html | '' {
  if (alerts.length === 0) return '';
  const [top] = groupsOf(alerts);
  const newest = top.alerts[0];
  return html`<div class="box ${top.severity === 'critical' ? 'bad' : 'warn'}" id="alerts-box" data-severity="${top.severity}">
<a href="/console/alerts">${num(alerts.length)} alert(s)</a> open (${severityCounts(alerts)}). ${severityBadge(top.severity)}
<b>${top.kind}</b>${top.job ? ` (job ${top.job})` : ''}${top.alerts.length > 1 ? html` × ${num(top.alerts.length)}` : ''}: ${newest.message}</div>`;
}

/** What an alert concerns, as a link: its file, or its job's files. */
function concerns(a: StoredAlert): Html {
  if (a.fileId !== null) return html`<a href="/console/files/${a.fileId}">file ${a.fileId}</a>`;
  const [what, ...rest] = a.subject.split(':');
  const label = what === 'drop' ? `drop ${rest.join(':')}` : what === 'expect' ? `expected /${rest.slice(1).join(':')}/` : a.subject;
  return a.job ? html`<a href="/console/files?job=${encodeURIComponent(a.job)}">${label}</a>` : html`${label}`;
}

function alertRow(a: StoredAlert, choose: boolean, canAct: boolean): Html {
  return html`<tr data-alert="${a.id}" data-kind="${a.kind}" data-severity="${a.severity}">
<td>${choose && canAct ? html`<input type="checkbox" name="id" value="${a.id}" form="acknowledge-selected" aria-label="choose alert ${a.id}">` : ''}</td>
<td>${severityBadge(a.severity)}</td><td>${at(a.lastSeen)}</td><td>${a.kind}</td><td>${a.job ?? ''}</td><td>${a.message}</td>
<td>${concerns(a)}</td><td class="num">${a.times}</td><td>${at(a.firstSeen)}</td>
<td>${a.acknowledgedAt ? html`<span class="small">${a.acknowledgedBy}, ${when(a.acknowledgedAt)}</span>` : canAct ? html`<a class="acknowledge" href="/console/alerts/${a.id}/acknowledge">acknowledge…</a>` : ''}</td></tr>`;
}

function groupRows(g: AlertGroup, canAct: boolean): Html {
  const ids = g.alerts.map((a) => a.id);
  return html`<tr class="group" data-kind="${g.kind}" data-severity="${g.severity}" data-count="${g.alerts.length}"><th colspan="10">${severityBadge(g.severity)}
${g.kind}${g.job ? ` · job ${g.job}` : ''} · ${num(g.alerts.length)} alert(s), last seen ${at(g.alerts[0].lastSeen)}
${g.alerts.length > 1 && canAct ? html` · <a class="acknowledge-group" href="${acknowledgeHref(ids)}">acknowledge all ${num(g.alerts.length)}…</a>` : ''}</th></tr>
${g.alerts.map((a) => alertRow(a, true, canAct))}`;
}

/**
 * The alert inbox: open alerts first, the most severe first, grouped by incident (one kind about one job), each once and
 * counted; any of them chosen are acknowledged in one confirmed action, a group at once too. Then those seen to.
 * `canAct` false (a viewer): no boxes, links or button to acknowledge.
 */
export function alertsPage(view: { open: StoredAlert[]; acknowledged: StoredAlert[] }, canAct = true): Html {
  const head = html`<thead><tr><th></th><th>severity</th><th>last seen (${zoneLabel()})</th><th>kind</th><th>job</th><th>message</th><th>concerns</th><th>times</th><th>first seen</th><th>acknowledged</th></tr></thead>`;
  return html`<p class="muted">Failed and rejected files, uncertain rows, missed expected files, unreachable drops, refused credentials, lost
instances and webhook deliveries that failed: one line per kind and subject while it is open, counted, kept in the journal until an operator
acknowledges it. Critical first (data may be wrong or stuck until someone acts), then warnings (work that waits safely), then info.</p>
${view.open.length ? html`<p class="box" id="open-counts">${num(view.open.length)} open: ${severityCounts(view.open)}</p>` : ''}
<form id="acknowledge-selected" method="get" action="/console/alerts/acknowledge"></form>
<table id="alerts">${head}<tbody>
${view.open.length ? groupsOf(view.open).map((g) => groupRows(g, canAct)) : html`<tr><td colspan="10" class="muted">no open alerts</td></tr>`}
</tbody></table>
${view.open.length && canAct ? html`<p><button type="submit" form="acknowledge-selected" id="acknowledge-selected-button">Acknowledge the chosen alerts…</button></p>` : ''}
<h2>Acknowledged</h2><table id="acknowledged-alerts">${head}<tbody>
${view.acknowledged.length ? view.acknowledged.map((a) => alertRow(a, false, canAct)) : html`<tr><td colspan="10" class="muted">none</td></tr>`}</tbody></table>`;
}

/** The confirm page's question for acknowledging several alerts, and the list of them (its `extra`). */
export function acknowledgeQuestion(alerts: readonly StoredAlert[]): { question: Html; extra: Html } {
  return {
    question: html`Acknowledge these <b>${num(alerts.length)}</b> alert(s) (${severityCounts(alerts)})? They leave the open alerts; the next occurrence opens a new one.`,
    extra: html`<table id="chosen-alerts"><tbody>${alerts.map((a) => html`<tr data-alert="${a.id}"><td>${severityBadge(a.severity)}</td><td>${a.kind}</td><td>${a.job ?? ''}</td><td>${a.message}</td></tr>`)}</tbody></table>`,
  };
}
