import type { Backlog, ExportFile, FileRecord, ItemRecord, Journal } from '../journal/index.js';

export interface StatusReport {
  journal: string;
  backlog: Backlog;
  files: Array<FileRecord & { counts: { ok: number; error: number; skipped: number; uncertain: number } }>;
  exports: ExportFile[];
  failed: Array<RowLine>;
  uncertain: Array<RowLine>;
}

export interface RowLine {
  fileId: number;
  file: string;
  lines: number[];
  key: string | null;
  message: string;
}

const linesOf = (item: ItemRecord) => item.lines;

/** What `wisbridge status` shows: backlog, recent files with counts, failed and uncertain rows. */
export function statusReport(journal: Journal, options: { limit: number; rows: number }): StatusReport {
  const files = journal.listFiles({ limit: options.limit }).map((f) => {
    const s = f.summary ?? (() => {
      try {
        return journal.fileSummary(f.fileId);
      } catch {
        return null;
      }
    })();
    return { ...f, counts: { ok: s?.ok ?? 0, error: s?.error ?? 0, skipped: s?.skipped ?? 0, uncertain: s?.uncertain ?? 0 } };
  });
  const names = new Map<number, string>();
  const nameOf = (fileId: number) => {
    let name = names.get(fileId);
    if (name === undefined) names.set(fileId, (name = journal.getFile(fileId).name));
    return name;
  };
  const failed: RowLine[] = [];
  for (const f of files) {
    if (failed.length >= options.rows) break;
    if (f.counts.error === 0) continue;
    for (const item of journal.failedItems(f.fileId, { limit: options.rows - failed.length })) {
      failed.push({ fileId: f.fileId, file: f.name, lines: linesOf(item), key: item.docKey, message: item.messages.join(' | ') });
    }
  }
  const uncertain = journal.uncertainItems(undefined, { limit: options.rows }).map((item) => ({
    fileId: item.fileId, file: nameOf(item.fileId), lines: linesOf(item), key: item.docKey,
    message: [item.messages.join(' | '), item.hint ? `check: ${item.hint}` : ''].filter(Boolean).join(' — '),
  }));
  const exports = journal.listExports({ limit: options.limit });
  return { journal: journal.path, backlog: journal.backlog(), files, exports, failed, uncertain };
}

export function formatTable(header: string[], rows: string[][], maxWidth = 60): string {
  const widths = header.map((h, i) => Math.min(maxWidth, Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))));
  const fmt = (cells: string[]) => cells.map((c, i) => (c.length > widths[i] ? `${c.slice(0, widths[i] - 1)}…` : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)].join('\n');
}

const showLines = (lines: number[]) => (lines.length <= 3 ? lines.join(',') : `${lines[0]}-${lines[lines.length - 1]} (${lines.length})`);

export function formatStatus(report: StatusReport): string {
  const b = report.backlog;
  const out = [
    `journal: ${report.journal}`,
    `backlog: ${b.processingFiles} file(s) processing, ${b.pendingRequests} request(s) pending (${b.pendingItems} items), ` +
      `${b.sentRequests} sent awaiting an answer (${b.sentItems} items), ${b.uncertainItems} uncertain row(s), ${b.errorItems} failed row(s), ` +
      `${b.acknowledgementsPending} acknowledgement(s) pending, ${b.awaitingConfirmation} awaiting WMS confirmation`,
    '',
    `recent files (${report.files.length}):`,
    report.files.length === 0 ? '  (none yet)' : formatTable(
      ['id', 'drop', 'file', 'status', 'ok', 'error', 'skipped', 'uncertain', 'claimed', 'finished'],
      report.files.map((f) => [String(f.fileId), f.drop, f.name, f.status, String(f.counts.ok), String(f.counts.error), String(f.counts.skipped),
        String(f.counts.uncertain), f.claimedAt.slice(0, 19), f.finishedAt?.slice(0, 19) ?? (f.reason ? '' : '-')]),
    ),
  ];
  out.push('', `recent exports (${report.exports.length}):`);
  out.push(report.exports.length === 0 ? '  (none yet)' : formatTable(
    ['id', 'work type', 'kind', 'file', 'records', 'policy', 'status', 'created'],
    report.exports.map((e) => [String(e.exportId), e.workType, e.kind, e.fileName, String(e.recordCount), e.policy, e.status, e.createdAt.slice(0, 19)]),
  ));
  const rowTable = (title: string, rows: RowLine[], hint: string) => {
    out.push('', `${title} (${rows.length}):`);
    if (rows.length === 0) out.push('  (none)');
    else out.push(formatTable(['file id', 'file', 'line', 'key', 'message'], rows.map((r) => [String(r.fileId), r.file, showLines(r.lines), r.key ?? '', r.message]), 100), hint);
  };
  rowTable('failed rows', report.failed, 'fix the cause, then: wisbridge retry --config FILE --file ID');
  rowTable('uncertain rows', report.uncertain, 'check each in the service, then: wisbridge resolve --config FILE --file ID --lines N --applied|--not-applied --note TEXT');
  return out.join('\n');
}
