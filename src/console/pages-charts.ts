import type { ActivityBucket, InstanceBucket } from '../journal/index.js';
import { html, num, query, raw, when, zoneLabel, type Html } from './html.js';
import { labelledBars, niceTicks } from './chart-axes.js';

export const RANGES = {
  '24h': { label: 'last 24 hours', unit: 'hour', buckets: 24 },
  '7d': { label: 'last 7 days', unit: 'hour', buckets: 168 },
  '30d': { label: 'last 30 days', unit: 'day', buckets: 30 },
} as const;
export type RangeName = keyof typeof RANGES;

/** What a chart's bars are drawn from: a bucket's start, and whatever its series read. */
type Bucket = { start: string };

interface Series<B extends Bucket = ActivityBucket> {
  label: string;
  color: string;
  value: (b: B) => number;
}

const W = 1000;
const H = 170;
const LEFT = 48;
const BOTTOM = 20;

/** A stacked bar chart as inline SVG: readable without JavaScript; each bar's `<title>` (hover) gives its numbers. */
function barChart<B extends Bucket>(id: string, title: string, buckets: readonly B[], series: ReadonlyArray<Series<B>>, unit: 'hour' | 'day'): Html {
  const totals = buckets.map((b) => series.reduce((n, s) => n + s.value(b), 0));
  const yTicks = niceTicks(Math.max(0, ...totals));
  const max = yTicks[yTicks.length - 1];
  const plotW = W - LEFT - 8;
  const plotH = H - BOTTOM - 8;
  const slot = plotW / buckets.length;
  const barW = Math.max(1, slot - (slot > 4 ? 1 : 0));
  const bars: string[] = [];
  buckets.forEach((b, i) => {
    let y = 8 + plotH;
    const x = LEFT + i * slot;
    const parts = series.map((s) => `${s.label} ${num(s.value(b))}`).join(', ');
    const label = `${when(b.start).slice(0, unit === 'hour' ? 16 : 10)}: ${parts}`;
    const rects: string[] = [];
    for (const s of series) {
      const v = s.value(b);
      if (v <= 0) continue;
      const h = (v / max) * plotH;
      y -= h;
      rects.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${s.color}"/>`);
    }
    // A transparent full-height rect carries the hover text even where the bar is empty.
    bars.push(`<g class="bar" data-start="${b.start}" data-total="${totals[i]}"><title>${escapeText(label)}</title>`
      + `<rect x="${x.toFixed(1)}" y="8" width="${slot.toFixed(1)}" height="${plotH}" fill="transparent"/>${rects.join('')}</g>`);
  });
  const ticks = yTicks.map((v) => {
    const y = 8 + plotH - (v / max) * plotH;
    return `<text x="${LEFT - 4}" y="${(y + 4).toFixed(1)}" text-anchor="end">${num(v)}</text><line x1="${LEFT}" x2="${W - 8}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#dde1e8"/>`;
  });
  const xLabels = xAxis(buckets, totals, slot, unit);
  const legend = series.map((s) => html`<span class="key"><span class="swatch" style="background:${s.color}"></span>${s.label}</span>`);
  return html`<figure class="chart" id="${id}"><figcaption><b>${title}</b> ${legend}</figcaption>
<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${title}" font-size="10" font-family="system-ui,sans-serif" fill="#1d2433">${raw(ticks.join(''))}${raw(bars.join(''))}${raw(xLabels)}</svg></figure>`;
}

/** X labels under the bars' centres, each the bar's hour (or day) in the console's zone. */
function xAxis(buckets: readonly Bucket[], totals: readonly number[], slot: number, unit: 'hour' | 'day'): string {
  const text = (b: Bucket) => (unit === 'hour' ? `${when(b.start).slice(5, 13)}h` : when(b.start).slice(5, 10));
  // A label is about 50 units wide at this font size; a regular one every 3rd, 6th, 12th … hour of the zone.
  const gap = Math.ceil(60 / slot);
  const hourStep = [1, 3, 6, 12, 24].find((h) => h >= gap) ?? 24;
  const regular = (i: number) => (unit === 'hour' ? Number(when(buckets[i].start).slice(11, 13)) % hourStep === 0 : i % gap === 0);
  return labelledBars(totals, regular, gap).map((i) => {
    const centre = LEFT + (i + 0.5) * slot;
    // Centred under its bar unless half a label would not fit inside the chart.
    const anchor = centre < 26 ? 'start' : centre > W - 26 ? 'end' : 'middle';
    return `<text class="x" data-bar="${i}" x="${centre.toFixed(1)}" y="${H - 6}" text-anchor="${anchor}">${escapeText(text(buckets[i]))}</text>`;
  }).join('');
}

function escapeText(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export interface ChartsView {
  range: RangeName;
  job?: string;
  jobs: string[];
  buckets: ActivityBucket[];
  /** The journal's instances live and lost at the end of each bucket (every job's: instances serve them all). */
  instances?: InstanceBucket[];
  /** Whether the job is an export job (its charts are the export records). */
  kind?: 'inbound' | 'export';
}

/** Files, rows, throughput, uncertain backlog and export records over the last 24 h, 7 or 30 days. */
export function chartsPage(v: ChartsView): Html {
  const unit = RANGES[v.range].unit;
  const per = unit === 'hour' ? 'hour' : 'day';
  const rangeLinks = (Object.keys(RANGES) as RangeName[]).map((r) => (r === v.range
    ? html`<b>${RANGES[r].label}</b>` : html`<a href="/console/charts${query({ range: r, job: v.job })}">${RANGES[r].label}</a>`));
  const jobLinks = [html`${v.job ? html`<a href="/console/charts${query({ range: v.range })}">all jobs</a>` : html`<b>all jobs</b>`}`,
    ...v.jobs.map((j) => (j === v.job ? html`<b>${j}</b>` : html`<a href="/console/charts${query({ range: v.range, job: j })}">${j}</a>`))];
  const totalRows = (b: ActivityBucket) => b.rows.ok + b.rows.error + b.rows.uncertain + b.rows.skipped;
  const sum = (f: (b: ActivityBucket) => number) => v.buckets.reduce((n, b) => n + f(b), 0);
  const inbound = v.kind !== 'export';
  const outbound = v.kind !== 'inbound';
  return html`<p class="chart-nav">${rangeLinks.map((l, i) => html`${i ? ' · ' : ''}${l}`)}<br>${jobLinks.map((l, i) => html`${i ? ' · ' : ''}${l}`)}</p>
<p class="muted small">Per ${per}, in ${zoneLabel()}; hover a bar for its numbers. Drawn by the bridge from the journal (files by when they were claimed,
rows by their file's summary). Totals: ${num(sum((b) => b.files.done + b.files.failed + b.files.rejected + b.files.processing))} file(s),
${num(sum(totalRows))} row(s), ${num(sum((b) => b.exportRecords))} export record(s).</p>
${inbound ? barChart('chart-files', `Files per ${per}`, v.buckets, [
    { label: 'done', color: '#2e8b57', value: (b) => b.files.done },
    { label: 'failed', color: '#c0392b', value: (b) => b.files.failed },
    { label: 'rejected', color: '#7d3c98', value: (b) => b.files.rejected },
    { label: 'processing', color: '#e0a800', value: (b) => b.files.processing },
  ], unit) : ''}
${inbound ? barChart('chart-rows', `Rows per ${per} (throughput)`, v.buckets, [
    { label: 'ok', color: '#2e8b57', value: (b) => b.rows.ok },
    { label: 'error', color: '#c0392b', value: (b) => b.rows.error },
    { label: 'uncertain', color: '#e0a800', value: (b) => b.rows.uncertain },
    { label: 'skipped', color: '#95a5a6', value: (b) => b.rows.skipped },
  ], unit) : ''}
${inbound ? barChart('chart-backlog', `Uncertain rows open at the end of each ${per}`, v.buckets, [
    { label: 'uncertain open', color: '#e0a800', value: (b) => b.uncertainBacklog },
  ], unit) : ''}
${outbound ? barChart('chart-exports', `Export records handed over per ${per}`, v.buckets, [
    { label: 'records', color: '#2f6fde', value: (b) => b.exportRecords },
  ], unit) : ''}
${v.instances ? instancesChart(v.instances, per, unit) : ''}`;
}

/**
 * The instances of the journal's list at the end of each hour (day): live ones, and lost ones (silent for longer than
 * a lease, never stopped) stacked on them, so that a kill -9 shows as red from the hour it happened until the
 * instance is back, replaced on its host or forgotten.
 */
function instancesChart(instances: readonly InstanceBucket[], per: string, unit: 'hour' | 'day'): Html {
  return barChart('chart-instances', `Instances at the end of each ${per} (every job)`, instances, [
    { label: 'live', color: '#2e8b57', value: (b) => b.alive },
    { label: 'lost', color: '#c0392b', value: (b) => b.lost },
  ], unit);
}

/** On the overview: files and rows of the last 24 hours, linking to the charts page. */
export function overviewChartsBlock(buckets: readonly ActivityBucket[]): Html {
  return html`<h2>Last 24 hours <a class="small" href="/console/charts">charts: 7 and 30 days, per job →</a></h2>
${barChart('overview-files', 'Files per hour', buckets, [
    { label: 'done', color: '#2e8b57', value: (b) => b.files.done },
    { label: 'failed', color: '#c0392b', value: (b) => b.files.failed },
    { label: 'rejected', color: '#7d3c98', value: (b) => b.files.rejected },
    { label: 'processing', color: '#e0a800', value: (b) => b.files.processing },
  ], 'hour')}
${barChart('overview-rows', 'Rows per hour', buckets, [
    { label: 'ok', color: '#2e8b57', value: (b) => b.rows.ok },
    { label: 'error', color: '#c0392b', value: (b) => b.rows.error },
    { label: 'uncertain', color: '#e0a800', value: (b) => b.rows.uncertain },
    { label: 'skipped', color: '#95a5a6', value: (b) => b.rows.skipped },
  ], 'hour')}`;
}
