import { Transform, type TransformCallback } from 'node:stream';
import type { Info } from 'csv-parse';
import { LIMITS } from '../contract/index.js';
import { WisbridgeError } from '../errors.js';
import type { InboundDocument, ReferenceKind } from './definition-schema.js';
import { HeaderProblem, type BoundNode, type RowTest } from './compile.js';
import { DocumentBuilder, csvPlaces, rowCount, type DocState, type Places, type RowError } from './documents.js';
import type { InboundOutcome, MapInboundOptions, MappedDocument } from './inbound-types.js';
import type { Mapping } from './mapping.js';
import { cachedReferenceIds, describeKind, type ReferenceIds } from './reference-ids.js';
import { contractTarget, locateIssues } from './validate.js';
import { TotalsTracker } from './control-totals.js';
import { isEmpty, lineBreaks } from './record-lines.js';
import { RecordBatch } from './csv-records.js';
import { X12Batch, type X12Item } from './x12-rows.js';
import { x12Places } from './x12-plan.js';

function hasRefs(node: BoundNode): boolean {
  return node.fields.some((f) => f.ref) || node.lists.some((l) => hasRefs(l.node));
}

/** A plain record, or csv-parse's with its info. */
type RecordChunk = string[] | { record: string[]; info: Info };

/** Records (string[], csv-parse's {record, info}, or a RecordBatch of plain ones) in, InboundOutcome objects out. */
export class InboundMapper extends Transform {
  private readonly file: string;
  private readonly endpoint: InboundDocument;
  private readonly target: ReturnType<typeof contractTarget>;
  private readonly referenceIds?: ReferenceIds;
  private readonly maxBatch: number;
  private root?: BoundNode;
  private skip?: RowTest;
  private width?: number;
  private builder?: DocumentBuilder;
  private places: Places;
  /** X12: a transaction set is a document, completed at its end (X12Rows says when). */
  private readonly x12: boolean;
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
  /** Control totals of this file, when the mapping has them. */
  private totals?: TotalsTracker;
  /** Outcomes held until the control totals are checked at the end of the file (nothing is sent before). */
  private held?: InboundOutcome[];
  /** With a footer line: the last record seen, processed once the next one shows it was not the last. */
  private footerHeld?: { record: string[]; line: number; spanEnd: number };

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
    this.referenceIds = options.referenceIds && cachedReferenceIds(options.referenceIds);
    this.maxBatch = Math.min(Math.max(1, options.maxBatchItems ?? 100), LIMITS.maxItemsPerRequest);
    const plan = mapping.inbound!;
    this.x12 = plan.x12 !== undefined;
    this.places = plan.x12 ? x12Places(plan.x12, this.file) : csvPlaces(this.file);
    if (plan.positional) this.bind(undefined);
  }

  private bind(header: string[] | undefined): void {
    const bound = this.mapping.inbound!.bind(header);
    this.root = bound.root;
    this.skip = bound.skip;
    this.width = bound.width;
    this.builder = new DocumentBuilder(bound.root, this.file, this.places);
    const plan = this.mapping.inbound!.totals;
    if (plan && bound.totals) {
      this.totals = new TotalsTracker(plan, bound.totals, this.file);
      if (plan.holdFile) this.held = [];
    }
    if (hasRefs(bound.root) && !this.referenceIds) {
      throw new WisbridgeError('USAGE', `mapping "${this.mapping.name}" replaces references with their ids through the API: a source of reference ids is needed`,
        { details: { needs: 'references', mapping: this.mapping.name } });
    }
  }

  override _transform(chunk: RecordChunk | RecordBatch | X12Batch, _enc: BufferEncoding, cb: TransformCallback): void {
    if (chunk instanceof X12Batch) this.mapX12(chunk.items, 0, cb);
    else this.mapRecords(chunk instanceof RecordBatch ? chunk.records : [chunk], 0, cb);
  }

  /** The items of an X12 file from `from` on (x12-rows.ts), the documents completed finalized every maxBatch items. */
  private mapX12(items: readonly X12Item[], from: number, cb: TransformCallback): void {
    try {
      for (let i = from; i < items.length; i++) {
        const item = items[i];
        if (item.kind === 'row') this.row(item.row, item.line, item.extra.length > 0 ? item.extra : undefined, item.errors);
        else if (item.kind === 'skip') this.out({ kind: 'skipped', line: item.line, reason: item.reason });
        else if (item.kind === 'reject') this.out({ kind: 'rejected', endpoint: this.endpoint, key: '', lines: item.lines, errors: item.errors });
        else if (this.current && !this.mapping.inbound!.wholeFile) {
          this.complete(this.current);
          this.current = undefined;
        }
        if (this.pendingItems() >= this.maxBatch) {
          this.finalize().then(() => this.mapX12(items, i + 1, cb), cb);
          return;
        }
      }
      cb();
    } catch (error) {
      cb(error as Error);
    }
  }

  /** The records from `from` on, the documents completed finalized every maxBatch items. */
  private mapRecords(records: readonly RecordChunk[], from: number, cb: TransformCallback): void {
    try {
      for (let i = from; i < records.length; i++) {
        this.mapRecord(records[i]);
        if (this.pendingItems() >= this.maxBatch) {
          this.finalize().then(() => this.mapRecords(records, i + 1, cb), cb);
          return;
        }
      }
      cb();
    } catch (error) {
      cb(error as Error);
    }
  }

  /** One record. */
  private mapRecord(chunk: RecordChunk): void {
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
      if (this.skipEmpty && isEmpty(record)) return;
    }
    if (!this.root) {
      this.bindHeader(record, line);
      return;
    }
    if (this.mapping.inbound!.totals?.footer) {
      const held = this.footerHeld;
      this.footerHeld = { record, line, spanEnd: this.spanEnd };
      if (!held) return;
      ({ record, line } = held);
      this.spanEnd = held.spanEnd;
    }
    const rt = this.mapping.inbound!.recordTypes;
    if (!rt) this.totals?.record('', record, line);
    if (rt) this.recordTyped(record, line);
    else if (this.width !== undefined && this.mapping.dialect.header && record.length !== this.width) {
      const span = this.spanEnd > line ? ` (a quoted field runs from line ${line} to line ${this.spanEnd}: a stray quote?)` : '';
      this.rejectLine(line, `${this.file}, line ${line}: ${record.length} fields, the header has ${this.width}${span}`);
    } else this.row(record, line, undefined);
  }

  override _flush(cb: TransformCallback): void {
    try {
      this.flushContext();
      if (this.footerHeld) this.footer(this.footerHeld);
      if (this.current) this.complete(this.current);
      for (const doc of this.open.values()) this.complete(doc);
      this.open.clear();
      this.finalize().then(() => this.release(), cb).then(() => cb(), cb);
    } catch (error) {
      cb(error as Error);
    }
  }

  /** One outcome out, or held while the file's control totals are still unchecked. */
  private out(o: InboundOutcome): void {
    if (this.held) this.held.push(o);
    else this.push(o);
  }

  /** At the end of the file: a control total that does not match refuses the file, before any outcome leaves. */
  private release(): void {
    const problems = this.totals?.finish() ?? [];
    if (problems.length > 0) throw new WisbridgeError('FILE_LAYOUT', problems.join('; '));
    const held = this.held ?? [];
    this.held = undefined;
    for (const o of held) this.push(o);
  }

  private footer(held: { record: string[]; line: number; spanEnd: number }): void {
    this.spanEnd = held.spanEnd;
    this.totals?.trailer(held.record, held.line, held.spanEnd);
    const lines = this.spanEnd > held.line ? [held.line, ...this.continuation(held.line)] : [held.line];
    for (const line of lines) this.out({ kind: 'skipped', line, reason: 'footer line: its control totals were checked' });
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
      const trailer = this.mapping.inbound!.totals?.trailer === code;
      if (trailer) this.totals?.trailer(record, line, this.spanEnd);
      else this.totals?.record(code, NO_ROW, line);
      const reason = trailer ? `control record ${code}: its totals were checked` : `record type ${code} is skipped (record_types.types.${code}.skip)`;
      this.out({ kind: 'skipped', line, reason });
      if (this.spanEnd > line) for (const l of this.continuation(line)) this.out({ kind: 'skipped', line: l, reason });
      return;
    }
    if (type.level === 0) this.flushContext();
    const ctx = (this.context ??= new Array<string>(rt.width).fill(''));
    ctx.fill('', rt.levelOffsets[type.level]);
    for (let i = 0; i < type.count; i++) ctx[type.offset + i] = record[i] ?? '';
    this.totals?.record(code, ctx, line);
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

  private row(row: readonly string[], line: number, extraLines: number[] | undefined, errors?: RowError[]): void {
    if (this.skip && this.skip(row)) {
      if (extraLines) for (const l of extraLines) this.out({ kind: 'skipped', line: l, reason: 'all its detail records were skipped' });
      this.out({ kind: 'skipped', line, reason: 'skip condition' });
      if (this.spanEnd > line) for (const l of this.continuation(line)) this.out({ kind: 'skipped', line: l, reason: `skip condition (part of the record that starts on line ${line})` });
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
      this.add(doc, row, line, extraLines, errors);
      this.complete(doc);
      return;
    } else {
      const key = keyOf(root, row);
      if (typeof key !== 'string') {
        this.rejectLine(line, `${this.places.cell(line, row, key.label)}: "${key.raw}" ${key.reason}`, extraLines);
        return;
      }
      // X12: each set is a document of its own (its end completes it), so a key may come back in a later set.
      if (grouping.sorted || this.x12) {
        if (this.current?.key !== key) {
          if (this.current && !this.x12) {
            // Detection of a key coming back is kept for the last million documents (bounded memory).
            if (this.closedKeys.size >= 1_000_000) this.closedKeys.clear();
            this.closedKeys.add(this.current.key);
            this.complete(this.current);
          } else if (this.current) this.complete(this.current);
          if (!this.x12 && this.closedKeys.has(key)) {
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
    this.add(doc, row, line, extraLines, errors);
  }

  private add(doc: DocState, row: readonly string[], line: number, extraLines: number[] | undefined, errors?: RowError[]): void {
    if (extraLines) doc.lines.push(...extraLines);
    if (errors) (doc.errors ??= []).push(...errors);
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
    this.out({ kind: 'rejected', endpoint: this.endpoint, key, lines, errors: [{ line, message }] });
  }

  private complete(doc: DocState): void {
    const first = this.totals ? Math.min(doc.lines[0] ?? 0, (doc.rows[0] as number | undefined) ?? 0) : 0;
    const mismatch = this.totals?.document(doc.rows, doc.key, first);
    if (mismatch) {
      if (this.mapping.inbound!.totals!.onMismatch === 'document') (doc.errors ??= []).push({ line: first, message: mismatch });
      else this.totals!.problems.push(mismatch);
    }
    this.pending.push(doc);
  }

  private pendingItems(): number {
    return this.pending.length;
  }

  private async finalize(): Promise<void> {
    const docs = this.pending;
    this.pending = [];
    if (docs.length === 0) return;
    await this.fillReferenceIds(docs);
    const good: MappedDocument[] = [];
    for (const doc of docs) {
      if (!ascending(doc.lines)) doc.lines.sort((a, b) => a - b);
      if (!doc.errors) {
        const r = this.target.schema.safeParse(doc.item);
        if (r.success) {
          good.push({ endpoint: this.endpoint, key: doc.key, item: r.data as Record<string, unknown>, lines: doc.lines });
          continue;
        }
        (doc.errors ??= []).push(...locateIssues(doc, this.root!, this.file, r.error.issues, this.places));
      }
      this.out({ kind: 'rejected', endpoint: this.endpoint, key: doc.key, lines: doc.lines, errors: doc.errors ?? [], item: doc.item });
    }
    if (good.length === 0) return;
    const bodyKey = this.target.bodyKey;
    if (!bodyKey) {
      for (const d of good) this.out({ kind: 'batch', endpoint: this.endpoint, body: d.item, documents: [d] });
      return;
    }
    // Documents completed together (a grouped file's end, say) can outnumber maxBatch: never a bigger body.
    for (let i = 0; i < good.length; i += this.maxBatch) {
      const documents = good.length <= this.maxBatch ? good : good.slice(i, i + this.maxBatch);
      this.out({ kind: 'batch', endpoint: this.endpoint, body: { [bodyKey]: documents.map((d) => d.item) }, documents });
    }
  }

  private async fillReferenceIds(docs: DocState[]): Promise<void> {
    if (!this.referenceIds) return;
    const byKind = new Map<ReferenceKind, Set<string>>();
    for (const doc of docs) for (const ref of doc.refs ?? []) {
      let s = byKind.get(ref.kind);
      if (!s) byKind.set(ref.kind, (s = new Set()));
      s.add(ref.key);
    }
    if (byKind.size === 0) return;
    const found = new Map<string, ReadonlyMap<string, number>>();
    for (const [kind, keys] of byKind) found.set(kind, await this.referenceIds.idsOf(kind, [...keys]));
    for (const doc of docs) for (const ref of doc.refs ?? []) {
      const id = found.get(ref.kind)?.get(ref.key);
      if (id === undefined) {
        (doc.errors ??= []).push({ line: ref.line, column: ref.label, raw: ref.raw, message: `${this.places.cell(ref.line, ref.row, ref.label)}: "${ref.raw}" is not a known ${describeKind(ref.kind)}` });
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

const NO_ROW: readonly string[] = [];
