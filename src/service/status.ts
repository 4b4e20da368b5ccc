import { instanceStates, type Backlog, type ExportFile, type FileStatus, type InstanceView, type ItemRecord, type Journal, type JournalStats, type OperatorJournal, type ResultReads } from '../journal/index.js';
import { WisbridgeError } from '../errors.js';
import type { PartnerProfile } from '../config/partners.js';
import { describeInterchangeState, x12Interchanges, type X12InterchangeView } from '../export/x12-ack-states.js';
import { joinMessages } from '../util/messages.js';

export type DocumentCounts = { ok: number; error: number; skipped: number; uncertain: number };

/** A line of the recent list: a journal file, or a file met but not claimed (duplicate, rejected before a claim). */
export interface RecentFile {
  /** The journal file; for a duplicate, the file whose content it repeats; null for a file rejected before a claim. */
  fileId: number | null;
  drop: string;
  name: string;
  status: FileStatus | 'duplicate';
  /** Documents (request items, and rows the mapping rejected or skipped) by status: one document may span several input rows. */
  counts: DocumentCounts;
  claimedAt: string;
  finishedAt: string | null;
  reason: string | null;
  prunedAt: string | null;
  /** The instance that holds or last held the file's lease (null: claimed without one, or met unclaimed). */
  instance: string | null;
}

export interface StatusReport {
  journal: string;
  /** The bridge instances that registered in the journal (`wisbridge run`), newest heartbeat first, each with its state. */
  instances: InstanceView[];
  stats: JournalStats;
  backlog: Backlog;
  files: RecentFile[];
  /** Files and file events in the journal: `files` shows the newest of them. */
  filesTotal: number;
  exports: ExportFile[];
  exportsTotal: number;
  /** The X12 interchanges written, newest first, with what their partners acknowledged (docs/x12.md, "Acknowledgements received"). */
  x12: X12InterchangeView[];
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
const NO_COUNTS: DocumentCounts = { ok: 0, error: 0, skipped: 0, uncertain: 0 };

/** The newest journal files and file events, merged by time. */
async function recentFiles(journal: StatusJournal, limit: number): Promise<RecentFile[]> {
  const files: RecentFile[] = [];
  for (const f of await journal.listFiles({ limit })) {
    const s = f.summary ?? await journal.fileSummary(f.fileId).catch(() => null);
    files.push({
      fileId: f.fileId, drop: f.drop, name: f.name, status: f.status, claimedAt: f.claimedAt, finishedAt: f.finishedAt, reason: f.reason, prunedAt: f.prunedAt,
      instance: f.lease?.owner ?? null,
      counts: s ? { ok: s.ok, error: s.error, skipped: s.skipped, uncertain: s.uncertain } : NO_COUNTS,
    });
  }
  const events: RecentFile[] = (await journal.recentFileEvents(limit)).map((e) => ({
    fileId: e.originalFileId, drop: e.drop, name: e.name, status: e.kind, counts: NO_COUNTS, claimedAt: e.at, finishedAt: e.at, reason: e.reason, prunedAt: null,
    instance: null,
  }));
  return [...files, ...events].sort((a, b) => (a.claimedAt < b.claimedAt ? 1 : a.claimedAt > b.claimedAt ? -1 : 0)).slice(0, limit);
}

/** The journal `wisbridge status` reads. */
export type StatusJournal = OperatorJournal & ResultReads & Pick<Journal, 'listInstances' | 'x12Exports'>;

/**
 * What `wisbridge status` shows: instances, backlog, recent files with counts, failed and uncertain rows. `leaseMs`:
 * the configuration's lease (`instance.lease_ms`), beyond which a silent instance that did not stop is lost.
 */
export async function statusReport(
  journal: StatusJournal, options: { limit: number; rows: number; leaseMs: number; partners?: Readonly<Record<string, PartnerProfile>>; now?: number },
): Promise<StatusReport> {
  const files = await recentFiles(journal, options.limit);
  const names = new Map<number, string>();
  const nameOf = async (fileId: number) => {
    let name = names.get(fileId);
    if (name === undefined) names.set(fileId, (name = (await journal.getFile(fileId)).name));
    return name;
  };
  const failed: RowLine[] = [];
  for (const f of files) {
    if (failed.length >= options.rows) break;
    if (f.counts.error === 0 || f.fileId === null || f.status === 'duplicate') continue;
    for (const item of await journal.failedItems(f.fileId, { limit: options.rows - failed.length })) {
      failed.push({ fileId: f.fileId, file: f.name, lines: linesOf(item), key: item.docKey, message: joinMessages(item.messages) });
    }
  }
  const uncertain: RowLine[] = [];
  for (const item of await journal.uncertainItems(undefined, { limit: options.rows })) {
    uncertain.push({
      fileId: item.fileId, file: await nameOf(item.fileId), lines: linesOf(item), key: item.docKey,
      message: [joinMessages(item.messages), item.hint ? `check: ${item.hint}` : ''].filter(Boolean).join(' — '),
    });
  }
  return {
    journal: journal.location, instances: instanceStates(await journal.listInstances(), options.leaseMs), stats: await journal.journalStats(), backlog: await journal.backlog(),
    files, filesTotal: await journal.countFiles() + await journal.countFileEvents(),
    exports: await journal.listExports({ limit: options.limit }), exportsTotal: await journal.countExports(),
    x12: await x12Interchanges(journal, options.partners ?? {}, options.now ?? Date.now(), { limit: options.limit }), failed, uncertain,
  };
}

/**
 * An operator forgets an instance gone for good (`status --forget-instance`): refused while it is live, since a live
 * instance would only register again at its next heartbeat. Its open lost alert is cleared at the next look.
 */
export async function forgetInstance(journal: Pick<Journal, 'listInstances' | 'forgetInstance'>, id: string, leaseMs: number): Promise<InstanceView> {
  const instance = instanceStates(await journal.listInstances(), leaseMs).find((i) => i.id === id);
  if (!instance) throw new WisbridgeError('USAGE', `no instance ${id} in the journal's list (wisbridge status lists them)`);
  if (instance.state === 'live') throw new WisbridgeError('USAGE', `instance ${id} is live (heartbeat ${instance.heartbeatAt}): stop it first`);
  if (!(await journal.forgetInstance(id, instance.heartbeatAt))) throw new WisbridgeError('USAGE', `instance ${id} heartbeated just now: it is live again`);
  return instance;
}

/** The instances table as the journal lists them (newest heartbeat first), and what a lost one calls for. */
function formatInstances(instances: InstanceView[]): string[] {
  const title = `instances (${instances.length}); files and jobs are the leases each holds now:`;
  if (instances.length === 0) return [title, '  (none registered: no wisbridge run has used this journal yet)'];
  const lost = instances.filter((i) => i.state === 'lost');
  return [title, formatTable(
    ['id', 'state', 'host', 'pid', 'version', 'started', 'last heartbeat', 'stopped', 'files', 'jobs'],
    instances.map((i) => [i.id, i.state, i.host, String(i.pid), i.version, i.startedAt.slice(0, 19), i.heartbeatAt.slice(0, 19), i.stoppedAt?.slice(0, 19) ?? '-', String(i.files), String(i.jobs)]),
    80,
  ), ...(lost.length === 0 ? [] : [`${lost.length} instance(s) lost: no heartbeat for longer than a lease, never stopped (killed, crashed, host gone); `
    + 'other instances take their files over. Once its host is gone for good: wisbridge status --config FILE --forget-instance ID'])];
}

export function formatTable(header: string[], rows: string[][], maxWidth = 60): string {
  const widths = header.map((h, i) => Math.min(maxWidth, Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length))));
  const fmt = (cells: string[]) => cells.map((c, i) => (c.length > widths[i] ? `${c.slice(0, widths[i] - 1)}…` : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)].join('\n');
}

/** "(N)" when the list is whole, "(showing N of M)" when it was cut. */
export function shownOf(shown: number, total: number): string {
  return shown < total ? `(showing ${shown} of ${total})` : `(${shown})`;
}

export const showLines = (lines: number[]) => (lines.length <= 3 ? lines.join(',') : `${lines[0]}-${lines[lines.length - 1]} (${lines.length})`);

const MIB = 1024 * 1024;

/** The expected files with their next due and alert times (`status`). */
export function formatExpected(expected: ReadonlyArray<{ job: string; pattern: string; schedule: string; nextDue: string | null; alertAt: string | null; todayOff?: string }>): string {
  const at = (iso: string | null) => iso?.slice(0, 16).replace('T', ' ') ?? '-';
  return `expected files (${expected.length}), times UTC:\n` + formatTable(['job', 'pattern', 'next due', 'alert at', 'due', 'today'],
    expected.map((e) => [e.job, e.pattern, at(e.nextDue), at(e.alertAt), e.schedule, e.todayOff ? `no file due: ${e.todayOff}` : '']), 70);
}

export function formatStatus(report: StatusReport): string {
  const b = report.backlog;
  const s = report.stats;
  const out = [
    `journal: ${report.journal} (${(s.bytes / MIB).toFixed(1)} MiB, oldest entry ${s.oldestEntry?.slice(0, 19) ?? '-'}, ` +
      `${s.prunedFiles} of ${s.files} file(s) pruned${s.prunedFiles > 0 ? `, rows kept since ${s.oldestDetail?.slice(0, 19) ?? '-'}` : ''})`,
    `backlog: ${b.processingFiles} file(s) processing, ${b.pendingRequests} request(s) pending (${b.pendingItems} documents), ` +
      `${b.sentRequests} sent awaiting an answer (${b.sentItems} documents), ${b.uncertainItems} uncertain document(s), ${b.errorItems} failed document(s), ` +
      `${b.acknowledgementsPending} acknowledgement(s) pending, ${b.awaitingConfirmation} awaiting WMS confirmation`,
    '',
    ...formatInstances(report.instances),
    '',
    `recent files ${shownOf(report.files.length, report.filesTotal)}; counts are documents (a document may span several input rows; ` +
      'batch and result files count input rows: wisbridge status --file ID lists them):',
    report.files.length === 0 ? '  (none yet)' : formatTable(
      ['id', 'drop', 'file', 'status', 'ok docs', 'error docs', 'skipped docs', 'uncertain docs', 'claimed', 'finished / reason', 'instance'],
      report.files.map((f) => [f.fileId === null ? '-' : String(f.fileId), f.drop, f.name, f.prunedAt ? `${f.status} (pruned)` : f.status,
        String(f.counts.ok), String(f.counts.error), String(f.counts.skipped), String(f.counts.uncertain), f.claimedAt.slice(0, 19),
        f.status === 'duplicate' || f.status === 'rejected' ? (f.reason ?? '') : (f.finishedAt?.slice(0, 19) ?? '-'), f.instance ?? '-']),
    ),
  ];
  out.push('', `recent exports ${shownOf(report.exports.length, report.exportsTotal)}:`);
  out.push(report.exports.length === 0 ? '  (none yet)' : formatTable(
    ['id', 'work type', 'kind', 'file', 'records', 'policy', 'status', 'created'],
    report.exports.map((e) => [String(e.exportId), e.workType, e.kind, e.fileName, String(e.recordCount), e.policy, e.status, e.createdAt.slice(0, 19)]),
  ));
  if (report.x12.length > 0) {
    out.push('', `X12 interchanges written, and what their partners acknowledged (${report.x12.length}):`, formatTable(
      ['export', 'file', 'partner', 'ISA13', 'GS06', 'sets', 'written', 'acknowledgement'],
      report.x12.map((x) => [String(x.exportId), x.file, x.partner, x.interchange, String(x.group), String(x.sets), x.writtenAt.slice(0, 19), describeInterchangeState(x)]), 200,
    ));
  }
  const rowTable = (title: string, rows: RowLine[], total: number, hint: string) => {
    out.push('', `${title} ${shownOf(rows.length, Math.max(total, rows.length))}:`);
    if (rows.length === 0) out.push('  (none)');
    else out.push(formatTable(['file id', 'file', 'line', 'key', 'message'], rows.map((r) => [String(r.fileId), r.file, showLines(r.lines), r.key ?? '', r.message]), 100), hint);
  };
  rowTable('failed documents', report.failed, b.errorItems, 'fix the cause, then: wisbridge retry --config FILE --file ID');
  rowTable('uncertain documents', report.uncertain, b.uncertainItems,
    'check each in the service, then: wisbridge resolve --config FILE --file ID --lines N --applied|--not-applied --note TEXT');
  return out.join('\n');
}
