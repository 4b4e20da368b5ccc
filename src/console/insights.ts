import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../errors.js';
import type { ConsoleAuth } from './auth.js';
import { page, type Html } from './html.js';
import { chartsPage, overviewChartsBlock, RANGES, type RangeName } from './pages-charts.js';
import { searchPage } from './pages-search.js';
import type { OperatorActions } from '../journal/index.js';
import type { ConsoleSource } from './source.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean;

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
/** Rows a search page shows: each shown block is read (about 0.3 ms for a block of 1,000 rows). */
const SEARCH_LIMIT = 50;

/**
 * The console's read-only pages that look across files — search (`/console/search?q=`), charts
 * (`/console/charts?range=24h|7d|30d&job=NAME`) — in front of the main
 * handler: a request that is not signed in, or for another page, goes on to it (it answers 401 or the login page).
 */
export function withInsights(source: ConsoleSource, auth: ConsoleAuth | undefined, next: Handler): Handler {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://console');
    const path = url.pathname.replace(/\/+$/, '');
    if (!auth || (path !== '/console/search' && path !== '/console/charts') || (req.method !== 'GET' && req.method !== 'HEAD')) return next(req, res);
    const who = auth.check(req);
    if (!who) return next(req, res);
    const show = (title: string, body: Html) => res.writeHead(200, HEADERS).end(page({ title, body, who: who.name, signOut: who.id.startsWith('session:') }));
    (async () => {
      const journal = await source.runtime.journal();
      if (path === '/console/charts') return show('Charts', await charts(source, journal, url));
      const text = (url.searchParams.get('q') ?? '').trim().slice(0, 64);
      const after = url.searchParams.get('after') ?? undefined;
      const shown = Math.max(0, Number.parseInt(url.searchParams.get('shown') ?? '0', 10) || 0);
      show('Search', searchPage(text, text.length >= 2 ? await journal.console.search(text, { limit: SEARCH_LIMIT, after }) : undefined, shown));
    })().catch((error: unknown) => {
      source.runtime.logger.error({ err: describeError(error), path }, 'console request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error (see the bridge log)\n');
      else res.end();
    });
    return true;
  };
}

/** The overview's charts: files and rows per hour of the last 24 hours, every job. */
export async function overviewCharts(source: ConsoleSource, journal: Pick<OperatorActions, 'console'>): Promise<Html> {
  const step = 3_600_000;
  const from = new Date(Math.floor(Date.now() / step) * step - 23 * step).toISOString();
  return overviewChartsBlock(await journal.console.activity({ from, buckets: 24, unit: 'hour' }));
}

/** The charts of a range (24h, 7d, 30d) for every job or one: buckets end with the current hour (day). */
async function charts(source: ConsoleSource, journal: Pick<OperatorActions, 'console'>, url: URL, now = Date.now()) {
  const { config } = source.runtime.loaded;
  const range: RangeName = (url.searchParams.get('range') ?? '') in RANGES ? (url.searchParams.get('range') as RangeName) : '24h';
  const { unit, buckets } = RANGES[range];
  const step = unit === 'hour' ? 3_600_000 : 86_400_000;
  const from = new Date(Math.floor(now / step) * step - (buckets - 1) * step).toISOString();
  const name = url.searchParams.get('job') ?? undefined;
  const inbound = config.inbound.find((j) => j.name === name);
  const exportJob = config.exports.find((j) => j.name === name);
  const data = await journal.console.activity({
    from, buckets, unit,
    ...(inbound ? { drop: config.drops[inbound.drop]?.name ?? inbound.drop, mappings: inbound.mappings } : {}),
    ...(exportJob ? { workType: exportJob.work_type } : {}),
  });
  return chartsPage({
    range, job: inbound?.name ?? exportJob?.name, jobs: [...config.inbound, ...config.exports].map((j) => j.name), buckets: data,
    kind: inbound ? 'inbound' : exportJob ? 'export' : undefined,
  });
}
