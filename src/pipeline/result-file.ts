import { Readable } from 'node:stream';
import { RETURNED_FIELDS } from '../contract/index.js';
import { fitName } from '../drops/index.js';
import { CsvWriter, RFC4180 } from '../util/csv.js';
import type { ItemStatus, LineOutcome, ResultReads } from '../journal/index.js';
import { joinMessages } from '../util/messages.js';
import { digitsOf, TextBuffer } from '../util/text-buffer.js';

/**
 * The result file a WMS imports: one row per input line, plain CSV (comma, CRLF, UTF-8 without BOM, a header),
 * formula-safe. The mapping schema has no result section yet, so the name and columns are fixed (docs/pipeline.md).
 */
export const RESULT_COLUMNS = [
  'line', 'document', 'status', 'id', 'acknowledged_at', 'shipped_at', 'move_id', 'count_number', 'returned', 'message', 'check',
] as const;

export { resultFileName } from '../util/file-name.js';

/** `KORR_20261120.csv` → `KORR_20261120.csv.error.txt` (within the file name limit, see fitName). */
export function errorFileName(name: string): string {
  return fitName(name, '.error.txt');
}

const RESULT_CSV = new CsvWriter(RFC4180);

/** One cell of a result file: formula-neutralized text, quoted when needed (src/util/csv.ts). */
export function csvField(value: unknown): string {
  return RESULT_CSV.cell(value);
}

export function csvRow(values: readonly unknown[]): string {
  return RESULT_CSV.cells(values);
}

/** Fields with a column of their own (`errors` is the message column). */
const PROMOTED = new Set<string>([...RETURNED_FIELDS, 'errors']);

/** The fields of an answer that have no column of their own, as `key=value; …`. */
function restOf(r: Record<string, unknown>): string {
  let rest = '';
  for (const k in r) {
    const v = r[k];
    if (v === null || v === undefined || PROMOTED.has(k)) continue;
    rest += `${rest ? '; ' : ''}${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
  }
  return rest;
}

export interface ResultRowOverride {
  status: string;
  message: string;
}

/** What a result row says of a line: the outcome of the document the line belongs to. */
export type RowOutcome = Pick<LineOutcome, 'docKey' | 'status' | 'result' | 'hint'> & { messages: readonly string[] };

/** Told of each row of a result file as it is written (its line, its item's seq, status and messages), in line order. */
export interface ResultRowWatch {
  row(line: number, seq: number, status: ItemStatus, messages: readonly string[]): void;
}

const isUndecided = (o: Pick<RowOutcome, 'status'>) => o.status === 'pending' || o.status === 'sent';

/** The status a result row shows: a row still pending or sent when the file ended is uncertain. */
function rowStatus(o: Pick<RowOutcome, 'status'>): string {
  return isUndecided(o) ? 'uncertain' : o.status;
}

/** A cell of a value: empty for none, numbers as they are, text neutralized and quoted when needed (csvField). */
function valueCell(out: TextBuffer, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'number') out.number(value);
  else out.text(csvField(value));
}

/** A cell of text (csvField), without its work when the text is empty or one of the few statuses. */
function textCell(out: TextBuffer, text: string): void {
  if (text === '') return;
  out.text(text === 'ok' || text === 'error' || text === 'skipped' || text === 'uncertain' ? text : csvField(text));
}

/** The six cells of the service's answer (id ... returned), each followed by its comma. */
function resultCells(out: TextBuffer, r: Record<string, unknown>): void {
  valueCell(out, r.id);
  valueCell(out.ascii(','), r.acknowledged_at);
  valueCell(out.ascii(','), r.shipped_at);
  valueCell(out.ascii(','), r.move_id);
  valueCell(out.ascii(','), r.number);
  textCell(out.ascii(','), restOf(r));
  out.ascii(',');
}

/**
 * One row of a result file, CRLF included, written into `out`; `counts` receives its status. Runs once per line of a
 * file, so it writes bytes and makes no string for the empty cells, the status, a number or a cell that needs no
 * quoting: built from one template string a row, a big file left a mass of short strings on the thread that sends
 * its requests (docs/performance.md, "Settings chosen by measurement"). Columns as in RESULT_COLUMNS.
 */
export function writeResultRow(out: TextBuffer, line: number, o: RowOutcome, override?: ResultRowOverride, counts?: Record<string, number>): void {
  const undecided = isUndecided(o);
  const status = override?.status ?? rowStatus(o);
  if (counts) counts[status] = (counts[status] ?? 0) + 1;
  const message = override ? override.message : joinMessages(o.messages, line);
  const hint = override ? '' : o.hint ?? (undecided ? 'the bridge stopped before this row was decided' : '');
  const r = o.result !== null && typeof o.result === 'object' ? (o.result as Record<string, unknown>) : undefined;
  textCell(out.number(line).ascii(','), o.docKey ?? '');
  textCell(out.ascii(','), status);
  out.ascii(',');
  if (r) resultCells(out, r);
  else out.ascii(',,,,,,');
  textCell(out, message);
  textCell(out.ascii(','), hint);
  out.ascii('\r\n');
}

/**
 * The rows of a record's lines (ascending), each saying its outcome: with no message, which may name a line, the rows
 * differ only by their line, so the first is written and the others copy its bytes after the line number (an X12 row
 * is two lines or more, a CSV document of several lines as many).
 */
export function writeResultRows(out: TextBuffer, lines: readonly number[], o: RowOutcome, counts?: Record<string, number>): void {
  if (lines.length === 1 || o.messages.length > 0) {
    for (const line of lines) writeResultRow(out, line, o, undefined, counts);
    return;
  }
  const start = out.length;
  writeResultRow(out, lines[0], o, undefined, counts);
  const end = out.length;
  const tail = start + digitsOf(lines[0]);
  const status = rowStatus(o);
  for (let i = 1; i < lines.length; i++) {
    out.number(lines[i]).again(tail, end);
    if (counts) counts[status] = (counts[status] ?? 0) + 1;
  }
}

const rowText = new TextBuffer(1024);

/** One row of a result file as a string (writeResultRow). */
export function resultRow(line: number, o: RowOutcome, override?: ResultRowOverride, counts?: Record<string, number>): string {
  rowText.clear();
  writeResultRow(rowText, line, o, override, counts);
  return rowText.toString();
}

/** The header row of every result file. */
export const RESULT_HEADER = csvRow(RESULT_COLUMNS);

/** Result rows are handed on in chunks of about this many bytes. */
export const RESULT_CHUNK = 64 * 1024;

/**
 * The result file of a journal file, generated while streaming (constant memory); `counts` receives rows per status,
 * `watch` each row.
 */
export function resultStream(journal: ResultReads, fileId: number, override?: ResultRowOverride, counts?: Record<string, number>, watch?: ResultRowWatch): Readable {
  async function* lines(): AsyncGenerator<Buffer> {
    const chunk = new TextBuffer(2 * RESULT_CHUNK);
    chunk.text(RESULT_HEADER);
    for await (const o of journal.iterateLineOutcomes(fileId)) {
      writeResultRow(chunk, o.line, o, override, counts);
      watch?.row(o.line, o.seq, o.status, o.messages);
      if (chunk.length >= RESULT_CHUNK) {
        yield Buffer.from(chunk.bytes());
        chunk.clear();
      }
    }
    if (chunk.length > 0) yield Buffer.from(chunk.bytes());
  }
  return Readable.from(lines(), { objectMode: false });
}
