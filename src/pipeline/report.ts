import type { FileReport, Progress } from './types.js';

/** A one-line progress bar on a TTY (rows/s); silent elsewhere. Redrawn at most every 200 ms. */
export class ProgressBar {
  private started = 0;
  private last = 0;
  private file = '';
  private shown = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr, private readonly enabled = out.isTTY === true) {}

  update(p: Progress): void {
    if (!this.enabled || p.finished) return;
    const now = Date.now();
    if (p.file !== this.file) {
      this.file = p.file;
      this.started = now;
    }
    if (now - this.last < 200) return;
    this.last = now;
    const fraction = p.size > 0 ? Math.min(1, p.bytes / p.size) : 0;
    const width = 24;
    const filled = Math.round(fraction * width);
    const rate = p.rows / Math.max(0.001, (now - this.started) / 1000);
    const line = `${p.file} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${p.rows.toLocaleString('en')} rows ${Math.round(rate).toLocaleString('en')} rows/s`;
    this.out.write(`\r${line.slice(0, (this.out.columns ?? 120) - 1)}\x1b[K`);
    this.shown = true;
  }

  done(): void {
    if (this.shown) this.out.write('\r\x1b[K');
    this.shown = false;
    this.file = '';
  }
}

/** The summary at the end of a run: one line per file, then totals by row status. */
export function summaryTable(reports: readonly FileReport[]): string {
  const header = ['job', 'file', 'outcome', 'ok', 'error', 'skipped', 'uncertain', 'requests', 'result / reason'];
  const rows = reports.map((r) => [
    r.job, r.file, r.outcome, String(r.rows.ok), String(r.rows.error), String(r.rows.skipped), String(r.rows.uncertain), String(r.requests),
    r.reason ?? r.resultFile ?? '',
  ]);
  const total = reports.reduce((t, r) => ({
    ok: t.ok + r.rows.ok, error: t.error + r.rows.error, skipped: t.skipped + r.rows.skipped,
    uncertain: t.uncertain + r.rows.uncertain, requests: t.requests + r.requests,
  }), { ok: 0, error: 0, skipped: 0, uncertain: 0, requests: 0 });
  rows.push(['total', `${reports.length} file(s)`, '', String(total.ok), String(total.error), String(total.skipped), String(total.uncertain), String(total.requests), '']);
  const widths = header.map((h, i) => Math.min(60, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const fmt = (cells: string[]) => cells.map((c, i) => (c.length > widths[i] ? `${c.slice(0, widths[i] - 1)}…` : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)].join('\n');
}

/** 0 when every row went through, 1 when some rows failed or are uncertain, or a file was rejected or interrupted. */
export function exitCodeOf(reports: readonly FileReport[]): 0 | 1 {
  const bad = reports.some((r) => r.rows.error > 0 || r.rows.uncertain > 0 || r.outcome === 'rejected' || r.outcome === 'interrupted' || r.outcome === 'failed');
  return bad ? 1 : 0;
}
