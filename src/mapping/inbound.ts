import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CsvError, Info } from 'csv-parse';
import { csvRecords } from './csv-records.js';
import { LIMITS } from '../contract/index.js';
import { WisbridgeError } from '../errors.js';
import type { InboundDocument, ReferenceKind } from './definition-schema.js';
import { HeaderProblem, type BoundNode, type RowTest } from './compile.js';
import { createDecoder } from './decode.js';
import { DocumentBuilder, rowCount, type DocState, type RowError } from './documents.js';
import type { Mapping } from './mapping.js';
import { cachedResolver, describeKind, type ReferenceResolver } from './resolver.js';
import { contractTarget, locateIssues } from './validate.js';

/** One request item, validated against the contract, with the input lines it came from. */
export interface MappedDocument {
  endpoint: InboundDocument;
  /** The document key (e.g. the order number); '' for one-row documents and whole-file requests. */
  key: string;
  item: Record<string, unknown>;
  lines: number[];
}
/** Documents ready to send together; `body` is the request body for the endpoint. */
export interface MappedBatch { kind: 'batch'; endpoint: InboundDocument; body: Record<string, unknown>; documents: MappedDocument[] }
/** A document (or a lone row) refused before sending; every line it covers is reported. */
export interface RejectedDocument { kind: 'rejected'; endpoint: InboundDocument; key: string; lines: number[]; errors: RowError[] }
/** A row left out on purpose (a skip condition, a context record without detail rows). */
export interface SkippedRow { kind: 'skipped'; line: number; reason: string }
export type InboundOutcome = MappedBatch | RejectedDocument | SkippedRow;

export interface MapInboundOptions {
  /** File name used in error messages. */
  fileName: string;
  /** Needed when the mapping resolves references; wrapped in a cache for the run. */
  resolver?: ReferenceResolver;
  /** Items per request body (default 100, at most the contract's limit). */
  maxBatchItems?: number;
}

function hasRefs(node: BoundNode): boolean {
  return node.fields.some((f) => f.ref) || node.lists.some((l) => hasRefs(l.node));
}

/**
 * Streams a CSV file through a mapping: rows are parsed, grouped, resolved, validated and batched. One bad row
 * rejects only its document; file-level problems (undecodable CSV, missing columns, limits) throw WisbridgeError.
 */
export async function* mapInbound(source: Readable, mapping: Mapping, options: MapInboundOptions): AsyncGenerator<InboundOutcome> {
  if (!mapping.inbound) throw new WisbridgeError('USAGE', `mapping "${mapping.name}" is an export, not an inbound mapping`);
  const mapper = new InboundMapper(mapping, options, mapping.dialect.comment !== undefined);
  const d = mapping.dialect;
  // Line numbers: csv-parse's `info` costs a third of the parse time, so lines are counted here from the
  // records themselves (empty lines are skipped here too); only comment lines, which csv-parse drops
  // unseen, need `info`.
  const useInfo = d.comment !== undefined;
  const quote = d.quote === false ? '' : d.quote;
  const parser = csvRecords({
    // Comment lines need csv-parse's `info`, an explicit CRLF delimiter makes a lone LF part of a field, and a
    // quote character beyond ASCII is looked for in bytes by breakWatch: those files go through csv-parse whole.
    fastPath: !useInfo && d.record_delimiter !== 'crlf' && (quote === '' || quote.charCodeAt(0) < 128),
    parse: {
      delimiter: d.delimiter, quote, escape: d.escape, bom: true, info: useInfo,
      comment: d.comment, comment_no_infix: true, from_line: d.skip_lines + 1,
      skip_empty_lines: useInfo && d.skip_empty_lines, skip_records_with_empty_values: useInfo && d.skip_empty_lines,
      max_record_size: d.max_record_size, relax_column_count: true, relax_quotes: true,
      record_delimiter: d.record_delimiter === 'lf' ? '\n' : d.record_delimiter === 'crlf' ? '\r\n' : undefined,
    },
  });
  const watch = breakWatch(quote, mapper);
  const stages = d.encoding === 'utf-8' ? [source, watch, parser, mapper] : [source, watch, createDecoder(d.encoding), parser, mapper];
  const done = pipeline(stages as [Readable, Transform, Transform]);
  done.catch(() => undefined);
  try {
    for await (const outcome of mapper) yield outcome as InboundOutcome;
  } catch (error) {
    throw fileError(error, options.fileName);
  } finally {
    if (!mapper.readableEnded) mapper.destroy();
  }
  await done.catch((error) => {
    throw fileError(error, options.fileName);
  });
}

const CSV_MESSAGES: Record<string, string> = {
  CSV_MAX_RECORD_SIZE: 'a record is longer than dialect.max_record_size (an unclosed quote?)',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed before the end of the file (its quote opens on this line; if the WMS never quotes fields, set dialect.quote: false)',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote is followed by other characters than the delimiter',
};

function fileError(error: unknown, fileName: string): unknown {
  if (error instanceof WisbridgeError) return error;
  const csv = error as CsvError & { lines?: number; startLine?: number };
  if (typeof csv?.code === 'string' && csv.code.startsWith('CSV_')) {
    const message = CSV_MESSAGES[csv.code] ?? csv.message;
    return new WisbridgeError('FILE_UNREADABLE', `${fileName}, line ${csv.startLine ?? csv.lines ?? '?'}: ${message}`, { cause: error });
  }
  return error;
}

class InboundMapper extends Transform {
  private readonly file: string;
  private readonly endpoint: InboundDocument;
  private readonly target: ReturnType<typeof contractTarget>;
  private readonly resolver?: ReferenceResolver;
  private readonly maxBatch: number;
  private root?: BoundNode;
  private skip?: RowTest;
  private width?: number;
  private builder?: DocumentBuilder;
  private prevEnd = 0;
  private lineSkew = 0;
  private current?: DocState;
  private readonly open = new Map<string, DocState>();
  private readonly closedKeys = new Set<string>();
  private pending: DocState[] = [];
  private context?: string[];
  private contextLines: number[] = [];
  /** The record type code of each context line (for the error when no detail record follows). */
  private contextCodes: string[] = [];
  /** The last physical line of the current record (> its first line when a quoted field holds line breaks). */
  private spanEnd = 0;

  private readonly skipEmpty: boolean;
  /** Set by breakWatch once the bytes hold a quote or a CR; until then no field can hold a line break. */
  mayBreak = false;

  constructor(private readonly mapping: Mapping, options: MapInboundOptions, private readonly withInfo: boolean) {
    super({ objectMode: true, highWaterMark: 4 });
    this.skipEmpty = mapping.dialect.skip_empty_lines;
    this.prevEnd = mapping.dialect.skip_lines;
    this.file = options.fileName;
    this.endpoint = mapping.document as InboundDocument;
    this.target = contractTarget(this.endpoint);
    this.resolver = options.resolver && cachedResolver(options.resolver);
    this.maxBatch = Math.min(Math.max(1, options.maxBatchItems ?? 100), LIMITS.maxItemsPerRequest);
    const plan = mapping.inbound!;
    if (plan.recordTypes || !mapping.dialect.header) this.bind(undefined);
  }

  private bind(header: string[] | undefined): void {
    const bound = this.mapping.inbound!.bind(header);
    this.root = bound.root;
    this.skip = bound.skip;
    this.width = bound.width;
    this.builder = new DocumentBuilder(bound.root, this.file);
    if (hasRefs(bound.root) && !this.resolver) {
      throw new WisbridgeError('USAGE', `mapping "${this.mapping.name}" resolves references through the API: a resolver is needed`);
    }
  }

  override _transform(chunk: string[] | { record: string[]; info: Info }, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      let record: string[];
      let line: number;
      if (this.withInfo) {
        // info.lines is where a record ends, and csv-parse counts a quoted CRLF as two lines: correct for both.
        const c = chunk as { record: string[]; info: Info };
        record = c.record;
        const rawEnd = c.info.lines;
        line = rawEnd - this.lineSkew;
        if (rawEnd - this.prevEnd > 1) {
          const breaks = lineBreaks(record);
          this.lineSkew += breaks.crlf;
          line -= breaks.crlf + breaks.lines;
        }
        this.spanEnd = rawEnd - this.lineSkew;
        this.prevEnd = rawEnd;
      } else {
        record = chunk as string[];
        line = this.prevEnd + 1;
        this.prevEnd = this.mayBreak ? line + lineBreaks(record).lines : line;
        this.spanEnd = this.prevEnd;
        if (this.skipEmpty && isEmpty(record)) return cb();
      }
      if (!this.root) {
        this.bindHeader(record, line);
        return cb();
      }
      const rt = this.mapping.inbound!.recordTypes;
      if (rt) this.recordTyped(record, line);
      else if (this.width !== undefined && !this.mapping.inbound!.recordTypes && this.mapping.dialect.header && record.length !== this.width) {
        const span = this.spanEnd > line ? ` (a quoted field runs from line ${line} to line ${this.spanEnd}: a stray quote?)` : '';
        this.rejectLine(line, `${this.file}, line ${line}: ${record.length} fields, the header has ${this.width}${span}`);
      } else this.row(record, line, undefined);
      if (this.pendingItems() >= this.maxBatch) this.finalize().then(() => cb(), cb);
      else cb();
    } catch (error) {
      cb(error as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      this.flushContext();
      if (this.current) this.complete(this.current);
      for (const doc of this.open.values()) this.complete(doc);
      this.open.clear();
      this.finalize().then(() => cb(), cb);
    } catch (error) {
      cb(error as Error);
    }
  }

  private bindHeader(record: string[], line: number): void {
    try {
      this.bind(record);
    } catch (error) {
      if (error instanceof HeaderProblem) throw new WisbridgeError('FILE_LAYOUT', `${this.file}, line ${line}: ${error.message}`);
      throw error;
    }
  }

  private recordTyped(record: string[], line: number): void {
    const rt = this.mapping.inbound!.recordTypes!;
    const code = (record[rt.codeIndex] ?? '').trim();
    const type = rt.types.get(code);
    if (!type) {
      this.rejectLine(line, `${this.file}, line ${line}: record type "${code}" is not one of ${[...rt.types.keys()].join(', ')}`);
      return;
    }
    if (type.skip) {
      this.push({ kind: 'skipped', line, reason: `record type ${code} is skipped (record_types.types.${code}.skip)` });
      if (this.spanEnd > line) for (const l of this.continuation(line)) this.push({ kind: 'skipped', line: l, reason: `record type ${code} is skipped (record_types.types.${code}.skip)` });
      return;
    }
    if (type.level === 0) this.flushContext();
    const ctx = (this.context ??= new Array<string>(rt.width).fill(''));
    ctx.fill('', rt.levelOffsets[type.level]);
    for (let i = 0; i < type.count; i++) ctx[type.offset + i] = record[i] ?? '';
    if (type.emit) {
      const extra = this.contextLines;
      this.contextLines = [];
      this.contextCodes = [];
      const row = ctx.slice();
      // Sibling detail types (items and consumables) must not see each other's last values.
      for (const other of rt.types.values()) if (other.emit && other !== type) row.fill('', other.offset, other.offset + other.count);
      this.row(row, line, extra);
    } else {
      const lines = this.spanEnd > line ? [line, ...this.continuation(line)] : [line];
      for (const l of lines) {
        this.contextLines.push(l);
        this.contextCodes.push(code);
      }
    }
  }

  /** Context records no detail record followed: their content would go nowhere, so each is an error. */
  private flushContext(): void {
    for (let i = 0; i < this.contextLines.length; i++) {
      const line = this.contextLines[i];
      const code = this.contextCodes[i];
      this.rejectLine(line, `${this.file}, line ${line}: a ${code} record with no detail record below it, so nothing of it would be sent (if such records carry nothing to send, set record_types.types.${code}.skip: true)`);
    }
    this.contextLines = [];
    this.contextCodes = [];
  }

  private row(row: readonly string[], line: number, extraLines: number[] | undefined): void {
    if (this.skip && this.skip(row)) {
      if (extraLines) for (const l of extraLines) this.push({ kind: 'skipped', line: l, reason: 'all its detail records were skipped' });
      this.push({ kind: 'skipped', line, reason: 'skip condition' });
      if (this.spanEnd > line) for (const l of this.continuation(line)) this.push({ kind: 'skipped', line: l, reason: `skip condition (part of the record that starts on line ${line})` });
      return;
    }
    const plan = this.mapping.inbound!;
    const grouping = this.mapping.definition.grouping;
    const root = this.root!;
    let doc: DocState;
    if (plan.wholeFile) {
      doc = this.current ??= this.builder!.start('');
    } else if (root.key.length === 0) {
      doc = this.builder!.start('');
      this.add(doc, row, line, extraLines);
      this.complete(doc);
      return;
    } else {
      const key = keyOf(root, row);
      if (typeof key !== 'string') {
        this.rejectLine(line, `${this.file}, line ${line}, column ${key.label}: "${key.raw}" ${key.reason}`, extraLines);
        return;
      }
      if (grouping.sorted) {
        if (this.current?.key !== key) {
          if (this.current) {
            // Detection of a key coming back is kept for the last million documents (bounded memory).
            if (this.closedKeys.size >= 1_000_000) this.closedKeys.clear();
            this.closedKeys.add(this.current.key);
            this.complete(this.current);
          }
          if (this.closedKeys.has(key)) {
            this.current = undefined;
            this.rejectLine(line, `${this.file}, line ${line}: document "${key}" appears again after other documents; the file is not sorted by its key (set grouping.sorted: false)`, extraLines, key);
            return;
          }
          this.current = this.builder!.start(key);
        }
        doc = this.current;
      } else {
        let open = this.open.get(key);
        if (!open) {
          if (this.open.size >= grouping.max_open_documents) {
            throw new WisbridgeError('GROUPING_LIMIT', `${this.file}, line ${line}: more than ${grouping.max_open_documents} documents open at once; sort the file by its key and set grouping.sorted: true, or raise grouping.max_open_documents`);
          }
          this.open.set(key, (open = this.builder!.start(key)));
        }
        doc = open;
      }
    }
    this.add(doc, row, line, extraLines);
  }

  private add(doc: DocState, row: readonly string[], line: number, extraLines: number[] | undefined): void {
    if (extraLines) doc.lines.push(...extraLines);
    const rows = rowCount(doc);
    if (rows >= this.mapping.definition.grouping.max_rows_per_document) {
      if (rows === this.mapping.definition.grouping.max_rows_per_document) {
        (doc.errors ??= []).push({ line, message: `${this.file}, line ${line}: the document has more than ${rows} rows (grouping.max_rows_per_document)` });
      }
      doc.lines.push(line);
    } else {
      this.builder!.add(doc, row, line);
    }
    if (this.spanEnd > line) doc.lines.push(...this.continuation(line));
  }

  /**
   * The lines after the first of a record whose quoted field holds line breaks. They share the record's outcome,
   * so every input line has a row in the result file and a stray quote that swallowed lines shows on each of them.
   */
  private continuation(line: number): number[] {
    const out: number[] = [];
    for (let l = line + 1; l <= this.spanEnd; l++) out.push(l);
    return out;
  }

  private rejectLine(line: number, message: string, extraLines: number[] = [], key = ''): void {
    const lines = [...extraLines, line];
    if (this.spanEnd > line) lines.push(...this.continuation(line));
    this.push({ kind: 'rejected', endpoint: this.endpoint, key, lines, errors: [{ line, message }] });
  }

  private complete(doc: DocState): void {
    this.pending.push(doc);
  }

  private pendingItems(): number {
    return this.pending.length;
  }

  private async finalize(): Promise<void> {
    const docs = this.pending;
    this.pending = [];
    if (docs.length === 0) return;
    await this.resolveRefs(docs);
    const good: MappedDocument[] = [];
    for (const doc of docs) {
      if (!ascending(doc.lines)) doc.lines.sort((a, b) => a - b);
      if (!doc.errors) {
        const r = this.target.schema.safeParse(doc.item);
        if (r.success) {
          good.push({ endpoint: this.endpoint, key: doc.key, item: r.data as Record<string, unknown>, lines: doc.lines });
          continue;
        }
        (doc.errors ??= []).push(...locateIssues(doc, this.root!, this.file, r.error.issues));
      }
      this.push({ kind: 'rejected', endpoint: this.endpoint, key: doc.key, lines: doc.lines, errors: doc.errors ?? [] });
    }
    if (good.length === 0) return;
    const bodyKey = this.target.bodyKey;
    if (!bodyKey) {
      for (const d of good) this.push({ kind: 'batch', endpoint: this.endpoint, body: d.item, documents: [d] });
      return;
    }
    // Documents completed together (a grouped file's end, say) can outnumber maxBatch: never a bigger body.
    for (let i = 0; i < good.length; i += this.maxBatch) {
      const documents = good.length <= this.maxBatch ? good : good.slice(i, i + this.maxBatch);
      this.push({ kind: 'batch', endpoint: this.endpoint, body: { [bodyKey]: documents.map((d) => d.item) }, documents });
    }
  }

  private async resolveRefs(docs: DocState[]): Promise<void> {
    if (!this.resolver) return;
    const byKind = new Map<ReferenceKind, Set<string>>();
    for (const doc of docs) for (const ref of doc.refs ?? []) {
      let s = byKind.get(ref.kind);
      if (!s) byKind.set(ref.kind, (s = new Set()));
      s.add(ref.key);
    }
    if (byKind.size === 0) return;
    const found = new Map<string, ReadonlyMap<string, number>>();
    for (const [kind, keys] of byKind) found.set(kind, await this.resolver.resolve(kind, [...keys]));
    for (const doc of docs) for (const ref of doc.refs ?? []) {
      const id = found.get(ref.kind)?.get(ref.key);
      if (id === undefined) {
        (doc.errors ??= []).push({ line: ref.line, column: ref.label, raw: ref.raw, message: `${this.file}, line ${ref.line}, column ${ref.label}: "${ref.raw}" is not a known ${describeKind(ref.kind)}` });
      } else if (!ref.keep) {
        ref.target[ref.field] = id;
      }
    }
  }
}

function keyOf(root: BoundNode, row: readonly string[]): string | { label: string; raw: string; reason: string } {
  let key = '';
  for (const f of root.key) {
    const v = f.get(row);
    if (v !== null && typeof v === 'object' && 'reason' in v) return { label: f.label, raw: f.raw(row), reason: (v as { reason: string }).reason };
    key += root.key.length === 1 ? String(v ?? '') : `${String(v ?? '')}\u0001`;
  }
  return key;
}

function ascending(lines: number[]): boolean {
  for (let i = 1; i < lines.length; i++) if (lines[i] < lines[i - 1]) return false;
  return true;
}

function isEmpty(record: string[]): boolean {
  for (let i = 0; i < record.length; i++) if (record[i] !== '' && record[i].trim() !== '') return false;
  return true;
}

/**
 * Only a quoted field holds an LF, and a CR stays in a field only when it is quoted or not part of the record
 * delimiter. Counting line breaks costs two scans per field, so it starts only once the bytes (seen before
 * csv-parse gets them) hold the quote character or a CR; the flag never goes back, so it is conservative.
 * Quote and CR are ASCII, so this holds for UTF-8, windows-1252 and ISO-8859-1 bytes alike.
 */
function breakWatch(quote: string, mapper: InboundMapper): Transform {
  const q = quote === '' ? -1 : quote.charCodeAt(0);
  if (q > 127) mapper.mayBreak = true;
  return new Transform({
    transform(chunk: Buffer | string, _enc, cb) {
      if (!mapper.mayBreak) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        if ((q >= 0 && bytes.indexOf(q) >= 0) || bytes.indexOf(13) >= 0) mapper.mayBreak = true;
      }
      cb(null, chunk);
    },
  });
}

const NO_BREAKS = { lines: 0, crlf: 0 };
function lineBreaks(record: string[]): { lines: number; crlf: number } {
  let lines = 0;
  let crlf = 0;
  for (let k = 0; k < record.length; k++) {
    const f = record[k];
    if (f.length === 0 || (f.indexOf('\n') < 0 && f.indexOf('\r') < 0)) continue;
    for (let i = 0; i < f.length; i++) {
      const c = f.charCodeAt(i);
      if (c === 13) {
        lines++;
        if (f.charCodeAt(i + 1) === 10) {
          crlf++;
          i++;
        }
      } else if (c === 10) lines++;
    }
  }
  return lines === 0 ? NO_BREAKS : { lines, crlf };
}
