/** Server-side HTML for the console: a tagged template that escapes every value unless it is already Html. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function part(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(part).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1];
  return new Html(out);
}

export const raw = (text: string): Html => new Html(text);

/** A query string from the defined values: `?a=1&b=x`. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The zone the console shows times in: `console.timezone`, else the machine's (one console per process). */
let displayZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
let displayFormat = zoneFormat(displayZone);

function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

/** Sets the zone of every time the console shows; refuses a zone the runtime does not know (RangeError). */
export function setDisplayZone(timeZone: string | undefined): void {
  const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  displayFormat = zoneFormat(zone);
  displayZone = zone;
}

/** The zone's name, for column headers: `claimed (Europe/Berlin)`. */
export function zoneLabel(): string {
  return displayZone;
}

/** A journal time (ISO, UTC) as `YYYY-MM-DD HH:MM:SS` in the console's zone; '' for none. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : displayFormat.format(date);
}

/** when() for a page: a `<time>` with the UTC time on hover (`title`) and in `datetime`. */
export function at(iso: string | null | undefined): Html {
  if (!iso) return new Html('');
  return html`<time datetime="${iso}" title="${iso.slice(0, 19).replace('T', ' ')} UTC">${when(iso)}</time>`;
}

/** A count with thousands separators (1,234,567); '' for none. */
export function num(n: number | null | undefined): string {
  return n === null || n === undefined ? '' : n.toLocaleString('en-US');
}

export function duration(from: string, to: string | null): string {
  if (!to) return '';
  const ms = Date.parse(to) - Date.parse(from);
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2433;background:#f6f7f9}
header{background:#1d2433;color:#fff;padding:8px 16px;display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center}
header nav{display:flex;flex-wrap:wrap;gap:6px 18px}
header a{color:#cfd8ea;text-decoration:none;white-space:nowrap}header a:hover{color:#fff}header strong{margin-right:12px}
header .who{margin-left:auto;margin-right:6px}header form.search{margin:0}header form.search input{width:15em;max-width:100%;box-sizing:border-box}
main{padding:12px 16px}h1{font-size:20px;margin:6px 0 12px;overflow-wrap:anywhere}h2{font-size:16px;margin:18px 0 8px}
table{border-collapse:collapse;background:#fff;width:100%;margin-bottom:8px}
.box,p{overflow-wrap:anywhere}
@media (max-width:900px){
header{padding:4px 8px;gap:4px 8px;flex-wrap:nowrap;display:grid;grid-template-columns:auto minmax(0,1fr) auto}header strong{margin:0}
header nav{grid-column:1/-1;grid-row:2;flex-wrap:nowrap;gap:0;overflow-x:auto;scrollbar-width:none}
header form.search input{width:100%}header .who{display:none}
header a{padding:6px 8px;min-height:24px}
main{padding:10px}
table{display:block;overflow-x:auto;width:auto;max-width:100%}
form.filters>*{max-width:100%}input,select,textarea{max-width:100%;box-sizing:border-box}
}
th,td{border:1px solid #dde1e8;padding:4px 8px;text-align:left;vertical-align:top}th{background:#eef1f5}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.s-done,.s-ok,.s-completed,.s-written{color:#17703a}.s-failed,.s-error,.s-rejected{color:#b3261e;font-weight:600}
.s-uncertain,.s-processing,.s-sent,.s-pending,.s-recorded{color:#9a5b00;font-weight:600}
.s-duplicate{color:#5a6372;font-weight:600}.s-check{color:#7a4a00;background:#fff4e0;border:1px solid #f0c36d;border-radius:3px;padding:0 4px;font-weight:600;white-space:nowrap}
form.filters{display:flex;gap:8px;flex-wrap:wrap;align-items:end;margin-bottom:10px}
form.filters label{display:flex;flex-direction:column;font-size:12px}
input,select,textarea,button{font:inherit;padding:3px 6px}button{cursor:pointer}
.box{background:#fff;border:1px solid #dde1e8;padding:10px 14px;margin-bottom:12px}
.warn{background:#fff4e0;border-color:#f0c36d}.bad{background:#fdecea;border-color:#f1a9a0}.good{background:#e8f5ec;border-color:#9fd3b0}
.muted{color:#667}.small{font-size:12px}code{font-size:12px}
.sev{font-size:11px;font-weight:600;text-transform:uppercase;padding:0 4px;border-radius:3px;border:1px solid}.sev-critical{color:#b3261e;background:#fdecea}.sev-warning{color:#7a4a00;background:#fff4e0}.sev-info{color:#3a4a66;background:#eef2f8}
tr.group th{text-align:left;background:#f4f6f9;font-weight:400}
figure.chart{background:#fff;border:1px solid #dde1e8;margin:0 0 12px;padding:8px 10px}figure.chart svg{width:100%;height:auto;display:block}
figure.chart .key{margin-left:10px;font-size:12px}figure.chart .swatch{display:inline-block;width:10px;height:10px;margin-right:4px}
.bar{background:#e3e7ee;height:10px;width:160px;display:inline-block}.bar>span{background:#2f6fde;height:10px;display:block}
#oidc-sign-in{display:inline-block;background:#2f6fde;color:#fff;padding:8px 16px;border-radius:4px;text-decoration:none;font-weight:600}
`;

export interface PageOptions {
  title: string;
  body: Html;
  /** Shown as signed-in user. */
  who?: string;
  /** The signed-in person's role, shown beside their name; an admin's navigation also leads to the sign-ins page. */
  role?: 'viewer' | 'operator' | 'admin';
  /** A sign-out button (bearer-token sessions), its form carrying the form token of the signed-in session. */
  signOut?: string;
}

const NAV: Array<[string, string]> = [
  ['/console', 'Overview'], ['/console/files', 'Files'], ['/console/exports', 'Exports'], ['/console/uncertain', 'Uncertain rows'],
  ['/console/rejected', 'Rejected (error/)'], ['/console/progress', 'In progress'], ['/console/alerts', 'Alerts'], ['/console/actions', 'Actions log'], ['/console/charts', 'Charts'],
];

const ADMIN_NAV: [string, string] = ['/console/sign-ins', 'Sign-ins'];

export function page(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${options.title} · wisbridge console</title><style>${raw(STYLE)}</style></head>
<body><header><strong>wisbridge</strong><nav>${[...NAV, ...(options.role === 'admin' ? [ADMIN_NAV] : [])].map(([href, label]) => html`<a href="${href}">${label}</a>`)}</nav>
<form method="get" action="/console/search" class="search" role="search"><input type="search" name="q" placeholder="find a key, SKU, order…" aria-label="search rows across files" maxlength="64"></form>
<span class="small who">${options.who ?? ''}${options.role ? ` · ${options.role}` : ''}</span>${options.signOut
    ? html`<form method="post" action="/console/logout" style="margin:0"><input type="hidden" name="session_csrf" value="${options.signOut}"><button type="submit" class="small" id="sign-out" title="${options.who ? `signed in as ${options.who}` : ''}">sign out</button></form>` : ''}</header>
<main><h1>${options.title}</h1>${options.body}</main></body></html>`.text;
}

export function statusCell(status: string): Html {
  return html`<span class="s-${status}">${status}</span>`;
}
