import type { Html } from './html.js';
import { chartsPage, overviewChartsBlock, RANGES, type RangeName } from './pages-charts.js';
import { searchPage } from './pages-search.js';
import { instanceTimeline, type Journal, type OperatorActions } from '../journal/index.js';
import type { ConsoleSource } from './source.js';
import type { PageRequest } from './page-request.js';

/** Rows a search page shows: each shown block is read (docs/performance.md, "Settings chosen by measurement"). */
const SEARCH_LIMIT = 50;

// The console's read-only pages that look across files: search (`/console/search?q=`) and charts
// (`/console/charts?range=24h|7d|30d&job=NAME`), rows of the console's page table.

export async function searchPageOf(c: PageRequest): Promise<void> {
  const text = (c.url.searchParams.get('q') ?? '').trim().slice(0, 64);
  const after = c.url.searchParams.get('after') ?? undefined;
  const shown = Math.max(0, Number.parseInt(c.url.searchParams.get('shown') ?? '0', 10) || 0);
  c.show('Search', searchPage(text, text.length >= 2 ? await c.journal.console.search(text, { limit: SEARCH_LIMIT, after }) : undefined, shown));
}

export async function chartsPageOf(c: PageRequest): Promise<void> {
  c.show('Charts', await charts(c.source, c.journal, c.url));
}

/** The overview's charts: files and rows per hour of the last 24 hours, every job. */
export async function overviewCharts(journal: Pick<OperatorActions, 'console'>): Promise<Html> {
  const step = 3_600_000;
  const from = new Date(Math.floor(Date.now() / step) * step - 23 * step).toISOString();
  return overviewChartsBlock(await journal.console.activity({ from, buckets: 24, unit: 'hour' }));
}

/** The charts of a range (24h, 7d, 30d) for every job or one: buckets end with the current hour (day). */
async function charts(source: ConsoleSource, journal: Pick<OperatorActions, 'console'> & Pick<Journal, 'listInstances'>, url: URL, now = Date.now()) {
  const { config } = source.runtime.loaded;
  // Own keys only: `__proto__`, `constructor` or `toString` are not ranges.
  const asked = url.searchParams.get('range') ?? '';
  const range: RangeName = Object.hasOwn(RANGES, asked) ? (asked as RangeName) : '24h';
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
  const instances = instanceTimeline(await journal.listInstances(), config.instance.lease_ms, data.map((b) => b.start), step, now);
  return chartsPage({
    range, job: inbound?.name ?? exportJob?.name, jobs: [...config.inbound, ...config.exports].map((j) => j.name), buckets: data, instances,
    kind: inbound ? 'inbound' : exportJob ? 'export' : undefined,
  });
}
