import type { FileOwnerChange, FileRecord, ItemStatus, OperatorActions, OperatorJournal, ResultReads } from '../journal/index.js';
import { findFile, readEnvelope, recordedAck, type FileEnvelopes, type SetEnvelope } from '../pipeline/index.js';
import { formatTable, shownOf } from './status.js';
import { joinMessages } from '../util/messages.js';
import { ROW_STATUSES } from './row-statuses.js';

/** One input row of a file, as the result file has it. */
export interface FileRow {
  line: number;
  key: string | null;
  status: ItemStatus;
  /** What the service returned for an ok row (ids, numbers...). */
  returned: unknown;
  error: string;
  hint: string | null;
  resolution: string | null;
}

/** An X12 file's envelopes in short: its totals, its acknowledgement's name, and its first refused sets. */
export interface X12Summary {
  totals: FileEnvelopes;
  ack: string | null;
  refused: Array<Pick<SetEnvelope, 'interchange' | 'group' | 'id' | 'control' | 'refusals' | 'refusedBy'>>;
}

/** Refused sets named by `status --file` (the console lists them all). */
const REFUSED_SHOWN = 10;
const ENVELOPE_PAGE = 500;

/** The envelopes the journal recorded for an X12 file (x12_envelopes); undefined for any other file. */
async function x12Summary(pages: Pick<OperatorActions['console'], 'x12Envelopes'>, file: FileRecord): Promise<X12Summary | undefined> {
  let page = await pages.x12Envelopes(file.fileId, { limit: ENVELOPE_PAGE });
  const first = page.entries[0];
  if (!first) return undefined;
  const refused: X12Summary['refused'] = [];
  for (;;) {
    for (const entry of page.entries) {
      const e = readEnvelope(entry);
      if (e.level !== 'set' || e.detail.accepted) continue;
      const { interchange, group, id, control, refusals, refusedBy } = e.detail;
      refused.push({ interchange, group, id, control, refusals, ...(refusedBy ? { refusedBy } : {}) });
    }
    if (refused.length >= REFUSED_SHOWN || page.next === null) break;
    page = await pages.x12Envelopes(file.fileId, { after: page.next, limit: ENVELOPE_PAGE });
  }
  return { totals: readEnvelope(first).detail as FileEnvelopes, ack: recordedAck(file)?.name ?? null, refused: refused.slice(0, REFUSED_SHOWN) };
}

export interface FileRowsReport {
  file: FileRecord;
  /** An X12 file's interchanges, groups and sets in short. */
  x12?: X12Summary;
  /** Input rows by status: the same counts as `batch` and the result file. */
  rows: Partial<Record<ItemStatus, number>>;
  total: number;
  /** Rows of the statuses asked for (all when none). */
  matching: number;
  shown: FileRow[];
  /** Every instance that took the file's lease, oldest first: its claim and each takeover (from whom, why, the token). */
  owners: FileOwnerChange[];
}

/** The rows of one journal file (by id or name) in line order: counts of all, the first `limit` of those matching `statuses`. */
export async function fileRowsReport(journal: OperatorJournal & ResultReads & Pick<OperatorActions, 'console'>, ref: string, options: { statuses?: readonly ItemStatus[]; limit: number }): Promise<FileRowsReport> {
  const file = await findFile(journal, ref);
  const x12 = await x12Summary(journal.console, file);
  const wanted = options.statuses ? new Set(options.statuses) : undefined;
  const rows: Partial<Record<ItemStatus, number>> = {};
  const shown: FileRow[] = [];
  let total = 0;
  let matching = 0;
  for await (const o of journal.iterateLineOutcomes(file.fileId)) {
    total++;
    rows[o.status] = (rows[o.status] ?? 0) + 1;
    if (wanted && !wanted.has(o.status)) continue;
    matching++;
    if (shown.length < options.limit) {
      shown.push({ line: o.line, key: o.docKey, status: o.status, returned: o.result ?? null, error: joinMessages(o.messages, o.line), hint: o.hint, resolution: o.resolution });
    }
  }
  return { file, ...(x12 ? { x12 } : {}), rows, total, matching, shown, owners: await journal.console.fileOwners(file.fileId) };
}

export function formatFileRows(report: FileRowsReport): string {
  const f = report.file;
  const counts = ROW_STATUSES.filter((s) => report.rows[s]).map((s) => `${report.rows[s]} ${s}`).join(', ') || 'none';
  const out = [
    `file ${f.fileId}: ${f.name} (drop ${f.drop}, mapping ${f.mapping}) — ${f.status}${f.redrives > 0 ? `, re-driven ${f.redrives}×` : ''}`,
    `claimed ${f.claimedAt.slice(0, 19)}, finished ${f.finishedAt?.slice(0, 19) ?? '-'}${f.reason ? `; reason: ${f.reason}` : ''}`,
    `input rows: ${report.total} (${counts})`,
    ...ownerLines(report.owners),
  ];
  if (report.x12) out.push(...formatX12(report.x12));
  if (f.prunedAt) {
    const s = f.summary;
    out.push(`its rows were pruned on ${f.prunedAt.slice(0, 19)} (journal retention)` +
      (s ? `; documents then: ${s.ok} ok, ${s.error} error, ${s.skipped} skipped, ${s.uncertain} uncertain` : ''));
    return out.join('\n');
  }
  out.push('', `rows ${shownOf(report.shown.length, report.matching)}:`);
  if (report.shown.length === 0) out.push('  (none)');
  else {
    out.push(formatTable(['line', 'key', 'status', 'returned', 'error'], report.shown.map((r) => [
      String(r.line), r.key ?? '', r.resolution ? `${r.status} (resolved ${r.resolution})` : r.status,
      r.returned === null ? '' : JSON.stringify(r.returned),
      [r.error, r.hint ? `check: ${r.hint}` : ''].filter(Boolean).join(' — '),
    ]), 100));
  }
  return out.join('\n');
}

/** The instances that took the file, one line each: who, when, from whom and why, and the fencing token taken. */
function ownerLines(owners: readonly FileOwnerChange[]): string[] {
  if (owners.length === 0) return [];
  return ['instances:', ...owners.map((o) => `  ${o.at.slice(0, 19)} ${o.instance} ${o.reason === 'claim' ? 'claimed it' : `took it from ${o.from ?? 'no instance'} (${o.reason})`}, fencing token ${o.token}`)];
}

function formatX12(x: X12Summary): string[] {
  const t = x.totals;
  const out = [`X12: ${t.interchanges} interchange(s), ${t.groups} group(s), ${t.sets} set(s), ${t.refused} refused; acknowledgement ${x.ack ?? '(none written)'}`];
  for (const s of x.refused) {
    const why = [...s.refusals.map((r) => `${r.detail} (${r.reason}${r.code === undefined ? '' : `, code ${r.code}`})`), ...(s.refusedBy ? [`refused with its ${s.refusedBy}`] : [])];
    out.push(`  refused: interchange ${s.interchange}, group ${s.group}, set ${s.control} (${s.id}): ${why.join('; ')}`);
  }
  if (x.refused.length < t.refused) out.push(`  (the console's file page lists all ${t.refused} refused sets)`);
  return out;
}
