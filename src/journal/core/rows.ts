import { WisbridgeError, type JournalStateDetails } from '../../errors.js';
import type { ItemStatus, RecordedRequest, RequestStatus, Resolution, StatusCounts, StoredItem } from './types.js';

/** Sorted, de-duplicated seqs as [from, to] ranges: a 500-item batch is usually one range. */
export function toRanges(seqs: readonly number[]): Array<[number, number]> {
  // A mapped batch comes in ascending order: checked in one pass instead of copied and sorted, a cost on every batch
  // (docs/performance.md, "Settings chosen by measurement").
  let ascending = true;
  for (let i = 1; i < seqs.length && ascending; i++) ascending = seqs[i] > seqs[i - 1];
  const sorted = ascending ? seqs : Float64Array.from(seqs).sort();
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < sorted.length; i++) {
    const seq = sorted[i];
    if (!Number.isSafeInteger(seq) || seq < 0) throw stateError(`invalid seq ${seq}`);
    const last = ranges[ranges.length - 1];
    if (last && seq === last[1]) throw stateError(`seq ${seq} is listed twice`);
    if (last && seq === last[1] + 1) last[1] = seq;
    else ranges.push([seq, seq]);
  }
  return ranges;
}

export function fromRanges(ranges: ReadonlyArray<readonly [number, number]>): number[] {
  const seqs: number[] = [];
  for (const [from, to] of ranges) for (let seq = from; seq <= to; seq++) seqs.push(seq);
  return seqs;
}

export function stateError(message: string, details?: JournalStateDetails): WisbridgeError<'JOURNAL_STATE'> {
  return new WisbridgeError('JOURNAL_STATE', message, details ? { details } : undefined);
}

/**
 * A journal whose schema a newer wisbridge migrated (in a rolling upgrade: an instance already upgraded): this one
 * refuses it, saying what to do. A journal is never migrated backwards.
 */
export function newerSchemaError(version: number, known: number): WisbridgeError {
  return new WisbridgeError('JOURNAL', `the journal has schema version ${version}, newer than this bridge (${known}): `
    + 'upgrade wisbridge, or point it at a journal of its own version (a journal is never migrated backwards)');
}

export function parseJson(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

export function parseMessages(text: string | null): string[] {
  return text === null ? [] : (JSON.parse(text) as string[]);
}

export function messagesJson(messages: readonly string[] | undefined): string | null {
  return messages && messages.length > 0 ? JSON.stringify(messages) : null;
}

/** first/last line, plus the full list only when the lines are not one contiguous ascending run. */
export function encodeLines(lines: readonly number[]): { first: number; last: number; list: string | null } {
  if (lines.length === 0) throw stateError('an item needs at least one input line');
  let contiguous = true;
  let min = lines[0];
  let max = lines[0];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line !== lines[i - 1] + 1) contiguous = false;
    if (line < min) min = line;
    if (line > max) max = line;
  }
  return { first: min, last: max, list: contiguous ? null : JSON.stringify([...new Set(lines)].sort((a, b) => a - b)) };
}

export function decodeLines(first: number, last: number, list: string | null): number[] {
  if (list !== null) return JSON.parse(list) as number[];
  const lines: number[] = [];
  for (let line = first; line <= last; line++) lines.push(line);
  return lines;
}

export interface ItemRow {
  id: number;
  file_id: number;
  seq: number;
  endpoint: string | null;
  doc_key: string | null;
  first_line: number;
  last_line: number;
  lines: string | null;
  status: ItemStatus;
  rejected: number;
  request_id: number | null;
  attempt: number;
  messages: string | null;
  hint: string | null;
  resolution: Resolution | null;
  resolution_note: string | null;
  resolved_by: string | null;
  resolved_at: string | null;
  request_status: string | null;
}

export const ITEM_COLUMNS = `id, file_id, seq, endpoint, doc_key, first_line, last_line, lines, status, rejected,
  request_id, attempt, messages, hint, resolution, resolution_note, resolved_by, resolved_at,
  CASE WHEN status = 'pending' AND request_id IS NOT NULL
    THEN (SELECT r.status FROM requests r WHERE r.id = items.request_id) END AS request_status`;

/**
 * An item row keeps `pending` while its request is in flight and when it came back ok: `sent` and
 * the bulk `ok` are states of the request (one write per batch, not per item). Only exceptions
 * (error, uncertain, skipped, resolved) are written on the item row itself.
 */
export function effectiveStatus(status: ItemStatus, requestStatus: string | null): ItemStatus {
  if (status !== 'pending' || requestStatus === null) return status;
  if (requestStatus === 'sent') return 'sent';
  return requestStatus === 'done' || requestStatus === 'failed' || requestStatus === 'uncertain' ? 'ok' : 'pending';
}

export function toItem(row: ItemRow, result: unknown = null): StoredItem {
  return {
    itemId: row.id,
    fileId: row.file_id,
    seq: row.seq,
    endpoint: row.endpoint,
    docKey: row.doc_key,
    lines: decodeLines(row.first_line, row.last_line, row.lines),
    status: effectiveStatus(row.status, row.request_status),
    rejected: row.rejected === 1,
    requestId: row.request_id,
    attempt: row.attempt,
    result,
    messages: parseMessages(row.messages),
    hint: row.hint,
    resolution: row.resolution,
    resolutionNote: row.resolution_note,
    resolvedBy: row.resolved_by,
    resolvedAt: row.resolved_at,
  };
}

export function emptyCounts(): StatusCounts {
  return { pending: 0, sent: 0, ok: 0, error: 0, uncertain: 0, skipped: 0 };
}

export interface RequestRow {
  id: number;
  file_id: number;
  endpoint: string;
  attempt: number;
  seqs: string;
  item_count: number;
  status: RequestStatus;
  sent_at: string | null;
}

export function toRequest(row: RequestRow): RecordedRequest {
  return {
    requestId: row.id,
    fileId: row.file_id,
    endpoint: row.endpoint,
    attempt: row.attempt,
    seqs: fromRanges(JSON.parse(row.seqs) as Array<[number, number]>),
    status: row.status,
    sentAt: row.sent_at,
  };
}

export function bodyJson(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

export function inRanges(ranges: ReadonlyArray<readonly [number, number]>, seq: number): boolean {
  for (const [from, to] of ranges) if (seq >= from && seq <= to) return true;
  return false;
}
