import { Transform, type TransformCallback } from 'node:stream';
import {
  EnvelopeValidator, SegmentTokenizer, describePlace, envelopeErrors, isAccepted,
  type EnvelopeEvent, type GroupResult, type InterchangeResult, type Segment, type SetResult,
} from '../x12/index.js';
import type { RowError } from './documents.js';
import type { X12Share } from './inbound-types.js';
import { SET_PLACE_SLOT, type X12Plan, type X12Type } from './x12-plan.js';
import { KnownInterchange, envelopeRefusal, setRefusal, type X12Reject } from './x12-verdicts.js';

/** What the X12 reader hands the mapper: a row with the segments it covers, a refusal, a skipped segment, a set's end. */
export type X12Item =
  | { kind: 'row'; row: string[]; line: number; extra: number[]; errors: RowError[] | undefined }
  | X12Reject
  | { kind: 'skip'; line: number; reason: string }
  | { kind: 'end' };

/**
 * Items per X12Batch, about. A chunk of bytes holds thousands of rows: handed on as one batch each, the few batches
 * in the pipe's buffers would outlive the young generation while a request is out, and the mapping thread would
 * collect its old generation over and over (docs/performance.md, X12 against CSV).
 */
export const ITEMS_PER_BATCH = 256;

/** Items handed on together (ITEMS_PER_BATCH), as CSV's RecordBatch: one stream write for many rows. */
export class X12Batch {
  constructor(readonly items: readonly X12Item[]) {}
}

/**
 * Where a set's items go: straight on (its verdict, known before, accepts it), nowhere (it refuses it: a refusal is
 * given at its SE), held until its interchange's verdict (none known before), or nowhere without a word (another
 * mapping of the file reads it, X12Share).
 */
type Sink = 'out' | 'drop' | 'hold' | 'elsewhere';

/** One transaction set as read. */
interface OpenSet {
  place: string;
  id: string;
  /** Its segments' numbers in the file, ST through the last read (a set's segments follow each other). */
  first: number;
  last: number;
  items: X12Item[];
  result?: SetResult;
  group?: GroupResult;
  /** Rows given so far. */
  rows: number;
  /** Errors met before the set's first row: they go with it. */
  errors: RowError[] | undefined;
  /** An ST outside any group: the envelope gives it no verdict of its own (it refuses the interchange). */
  stray: boolean;
  sink: Sink;
  /** Whether a row of the set went on: until then, its skipped segments wait (a set without rows is one refusal). */
  given: boolean;
}

interface OpenInterchange {
  index: number;
  sets: OpenSet[];
  /** The sets before these have their own verdict, and their group's (each verdict comes in the order of the sets). */
  judged: number;
  grouped: number;
  /** ISA, GS, GE, IEA and segments outside any set: reported only when their envelope is refused. */
  envelope: number[];
  /** Its verdict, when read before mapping (then its sets are judged as they start, and only it is open). */
  known: KnownInterchange | undefined;
}

/**
 * X12 bytes → rows of a mapping (x12-plan.ts), a segment's number in the file standing for a line. Within a set, the
 * segments of types listed before the row start are carried into each row (a type clears those listed after it); the
 * row start opens a row that the segments of later types join, until the next row start, a carried segment or the SE.
 * Segments the mapping does not name go with the row (or the set) they stand in. A set its envelope refuses gives no
 * row, only a refusal naming why. Given the verdicts of the file's interchanges (read by a pass before mapping, as
 * checkEnvelopes does), a set is judged at its ST and its rows go on as they are read: nothing is held but the row being
 * read (and skipped segments before a set's first row), even in a set of a million lines (`largestHeld`). Without,
 * the rows of an interchange are held until its verdict (the IEA).
 */
export class X12Rows extends Transform {
  private readonly tokenizer: SegmentTokenizer;
  private readonly validator = new EnvelopeValidator();
  private readonly segments: Segment[] = [];
  private readonly events: EnvelopeEvent[] = [];
  private readonly interchanges: OpenInterchange[] = [];
  private out: X12Item[] = [];
  private line = 0;
  private set: OpenSet | undefined;
  private inGroup = false;
  /** The carried values and the current row. */
  private row: string[];
  /** Per type: the row count when its segment was last read, -1 when cleared. */
  private readonly filledAt: Int32Array;
  private pending = false;
  private rowLine = 0;
  private rowLines: number[] = [];
  private rowErrors: RowError[] | undefined;
  private contextLines: number[] = [];
  /** The last row, given once the segments after it are known (they join its lines). */
  private last: Extract<X12Item, { kind: 'row' }> | undefined;
  private readonly known: Map<number, InterchangeResult> | undefined;
  private readonly elementOrder = new Map<X12Type, X12Type['elements']>();
  private held = 0;
  /** The most items held at once (rows of sets waiting for a verdict, skipped segments before a set's first row). */
  largestHeld = 0;

  constructor(private readonly plan: X12Plan, private readonly file: string, private readonly mapping: string, verdicts?: readonly InterchangeResult[], private readonly share?: X12Share) {
    super({ readableObjectMode: true, readableHighWaterMark: 4 });
    this.tokenizer = new SegmentTokenizer({ file });
    if (verdicts) this.known = new Map(verdicts.map((v) => [v.index, v]));
    this.row = new Array<string>(plan.width).fill('');
    this.filledAt = new Int32Array(plan.types.length).fill(-1);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      this.tokenizer.push(chunk, this.segments);
      this.readSegments();
      cb();
    } catch (error) {
      cb(error as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      this.tokenizer.end(this.segments);
      this.readSegments();
      if (this.set) this.endSet();
      if (this.known) {
        const open = this.interchanges.pop();
        if (open) this.closeKnown(open);
      } else {
        this.validator.end(this.events);
        this.verdicts();
      }
      this.hand();
      cb();
    } catch (error) {
      cb(error as Error);
    }
  }

  private readSegments(): void {
    for (const segment of this.segments) {
      this.segment(segment, ++this.line);
      if (!this.known) {
        this.validator.push(segment, this.events);
        this.verdicts();
      }
      if (this.out.length >= ITEMS_PER_BATCH) this.hand();
    }
    this.segments.length = 0;
    this.hand();
  }

  private hand(): void {
    if (this.out.length === 0) return;
    this.push(new X12Batch(this.out));
    this.out = [];
  }

  private segment(segment: Segment, line: number): void {
    switch (segment.id) {
      case 'ISA':
        if (this.set) this.endSet();
        this.inGroup = false;
        if (this.known && this.interchanges.length > 0) this.closeKnown(this.interchanges.pop()!);
        this.interchanges.push(this.opened(segment.envelopes.interchangeIndex, [line]));
        return;
      case 'GS': case 'GE': case 'IEA': {
        if (this.set) this.endSet();
        this.inGroup = segment.id === 'GS';
        const open = this.interchangeOf(segment);
        open.envelope.push(line);
        if (open.known === undefined) return;
        if (segment.id === 'GS') open.known.startGroup();
        else if (segment.id === 'GE') open.known.endGroup();
        else {
          this.interchanges.pop();
          this.closeKnown(open);
        }
        return;
      }
      case 'ST':
        if (this.set) this.endSet();
        this.startSet(segment, line);
        return;
      case 'SE':
        if (!this.set) return void this.interchangeOf(segment).envelope.push(line);
        this.set.last = line;
        (this.pending ? this.rowLines : this.contextLines).push(line);
        this.endSet();
        return;
    }
    const set = this.set;
    if (!set) return void this.interchangeOf(segment).envelope.push(line);
    set.last = line;
    if (set.sink === 'elsewhere' || (set.id !== this.plan.transactionSet && this.plan.transactionSet !== undefined)) return;
    const type = this.plan.typeOf(segment);
    if (!type) return void (this.pending ? this.rowLines : this.contextLines).push(line);
    if (type.skip) return this.give(set, { kind: 'skip', line, reason: `segment ${type.key} is skipped (record_types.types.${type.key}.skip)` });
    const start = this.plan.start;
    if (type.index > start.index) return this.rowSegment(type, segment, line);
    this.flushRow();
    const repeated = this.filledAt[type.index] === set.rows && type !== start;
    if (repeated) {
      (set.errors ??= []).push({ line, message: `${this.placeOf(segment)}: a second ${type.key} before any ${start.key} took the first one's values, which would be lost` });
    }
    this.clearFrom(type.index);
    this.fill(type, segment);
    if (type === start) {
      this.pending = true;
      this.rowLine = line;
      this.rowErrors = set.errors;
      set.errors = undefined;
    } else {
      this.contextLines.push(line);
    }
  }

  /** A segment of a type listed after the row start: it belongs to the current row. */
  private rowSegment(type: X12Type, segment: Segment, line: number): void {
    const set = this.set!;
    if (!this.pending) {
      (set.errors ??= []).push({ line, message: `${this.placeOf(segment)}: a ${type.key} before any ${this.plan.start.key}, so it belongs to no row` });
      this.contextLines.push(line);
      return;
    }
    this.rowLines.push(line);
    if (this.filledAt[type.index] === set.rows) {
      if (type.join === undefined) {
        (this.rowErrors ??= []).push({ line, message: `${this.placeOf(segment)}: a second ${type.key} in one ${this.plan.start.key} row; to take several, set record_types.types.${type.key}.join` });
        return;
      }
      const row = this.row;
      for (const e of type.elements) {
        const v = valueOf(segment, e.element, e.component);
        if (v !== '') row[e.slot] = row[e.slot] === '' ? v : row[e.slot] + type.join + v;
      }
      return;
    }
    this.fill(type, segment);
  }

  private fill(type: X12Type, segment: Segment): void {
    const row = this.row;
    // The segment's number in its set: x12Places makes the place of a message from it, only when one is needed.
    row[type.placeSlot] = indexText(segment.index);
    segment.readElements(this.inOrder(type), row);
    this.filledAt[type.index] = this.set!.rows;
  }

  /** A type's elements in element order (Segment.readElements), sorted once: the mapping binds them in its own order. */
  private inOrder(type: X12Type): X12Type['elements'] {
    let sorted = this.elementOrder.get(type);
    if (!sorted) this.elementOrder.set(type, (sorted = [...type.elements].sort((a, b) => a.element - b.element || a.component - b.component)));
    return sorted;
  }

  private placeOf(segment: Segment): string {
    return `${this.set!.place}, segment ${segment.index} (${segment.id})`;
  }

  /**
   * Clears the values of a type and of the types listed after it that a row took already (a new LX clears the last
   * W12's lot). One no row took yet stays: a head segment sent out of the standard's order (W27 before N9) is kept.
   */
  private clearFrom(index: number): void {
    const types = this.plan.types;
    const rows = this.set!.rows;
    for (let i = index; i < types.length; i++) {
      if (this.filledAt[i] < 0 || (i > index && this.filledAt[i] === rows)) continue;
      this.filledAt[i] = -1;
      this.row[types[i].placeSlot] = '';
      for (const e of types[i].elements) this.row[e.slot] = '';
    }
  }

  /** Gives the current row (the one before it first, now that no segment can join it). */
  private flushRow(): void {
    if (!this.pending) return;
    const set = this.set!;
    if (this.last) this.give(set, this.last);
    // The row keeps one of the two lists as its extra lines (the other is emptied for the next row), or both joined.
    const context = this.contextLines;
    const rowLines = this.rowLines;
    const extra = context.length === 0 ? rowLines : rowLines.length === 0 ? context : [...context, ...rowLines];
    this.last = { kind: 'row', row: this.row.slice(), line: this.rowLine, extra, errors: this.rowErrors };
    if (extra === context) this.contextLines = [];
    else context.length = 0;
    if (extra === rowLines) this.rowLines = [];
    else rowLines.length = 0;
    this.rowErrors = undefined;
    this.pending = false;
    set.rows++;
  }

  /** An item of the set, given on, dropped or held as its verdict says. */
  private give(set: OpenSet, item: X12Item): void {
    if (set.sink === 'drop' || set.sink === 'elsewhere') return;
    if (set.sink === 'out' && (set.given || item.kind !== 'skip')) {
      if (set.items.length > 0) {
        this.held -= set.items.length;
        for (const held of set.items) this.out.push(held);
        set.items = [];
      }
      set.given = true;
      this.out.push(item);
      return;
    }
    set.items.push(item);
    if (++this.held > this.largestHeld) this.largestHeld = this.held;
  }

  private startSet(st: Segment, line: number): void {
    const place = describePlace({ file: this.file, interchange: st.envelopes.interchange, set: st.envelopes.set });
    const stray = !this.inGroup;
    const open = this.interchangeOf(st);
    this.set = { place, id: st.element(1), first: line, last: line, items: [], rows: 0, errors: undefined, stray, sink: 'hold', given: false };
    if (open.known) {
      const verdict = open.known.startSet(this.set.id, st.element(2));
      this.set.result = verdict.result;
      this.set.group = verdict.group;
      this.set.sink = !this.reads(open.index, this.set.id) ? 'elsewhere' : verdict.accepted ? 'out' : 'drop';
    } else {
      open.sets.push(this.set);
    }
    this.row.fill('');
    this.row[SET_PLACE_SLOT] = place;
    this.filledAt.fill(-1);
    this.contextLines = [line];
  }

  private endSet(): void {
    const set = this.set!;
    this.flushRow();
    const last = this.last;
    this.last = undefined;
    this.set = undefined;
    if (set.sink === 'elsewhere') {
      this.contextLines = [];
      return;
    }
    if (set.sink === 'drop') {
      this.contextLines = [];
      this.out.push(setRefusal(this.interchanges[this.interchanges.length - 1].known!.envelopeErrors(), set.place, linesOf(set), set.result));
      return;
    }
    if (this.plan.transactionSet !== undefined && set.id !== this.plan.transactionSet) {
      this.replace(set, { kind: 'reject', lines: linesOf(set), errors: [{ line: set.first, message: `${set.place}: a ${set.id} transaction set; mapping ${this.mapping} reads ${this.plan.transactionSet}` }] });
    } else if (!last) {
      const errors = [...(set.errors ?? []), { line: set.first, message: `${set.place}: the set has no ${this.plan.start.key} segment, so nothing of it would be sent` }];
      this.replace(set, { kind: 'reject', lines: linesOf(set), errors });
    } else {
      const leftover = this.contextLines;
      if (leftover.length > 0) {
        last.extra = [...last.extra, ...leftover];
        last.errors = [...(last.errors ?? []), ...(set.errors ?? []), { line: leftover[0], message: `${set.place}: segments after the last ${this.plan.start.key} that no ${this.plan.start.key} follows (from segment ${leftover[0]} of the file), so nothing of them would be sent` }];
      }
      this.give(set, last);
    }
    this.contextLines = [];
    // What is left of a set given on is none of its rows, or the one refusal that replaced them.
    if (set.sink === 'out') this.out.push(...set.items, END);
  }

  /** What a set held gives way to: one refusal, which waits with the set's verdict if it has none yet. */
  private replace(set: OpenSet, item: X12Item): void {
    this.held -= set.items.length;
    set.items = [item];
    if (set.sink === 'hold') this.held++;
  }

  private opened(index: number, envelope: number[]): OpenInterchange {
    let known: KnownInterchange | undefined;
    if (this.known) {
      const result = this.known.get(index);
      if (!result) throw new Error(`${this.file}: interchange ${index} of the file was not read before mapping`);
      known = new KnownInterchange(result, this.file);
    }
    return { index, sets: [], envelope, judged: 0, grouped: 0, known };
  }

  private interchangeOf(segment: Segment): OpenInterchange {
    const index = segment.envelopes.interchangeIndex;
    let open = this.interchanges[this.interchanges.length - 1];
    if (!open || open.index !== index) this.interchanges.push((open = this.opened(index, [])));
    return open;
  }

  /** Whether this mapping reads a set of this ST01 in this interchange (X12Share), or another pass does. */
  private reads(interchange: number, id: string): boolean {
    const share = this.share;
    if (!share) return true;
    if (share.only) return share.only[interchange]?.includes(id) === true;
    return share.except?.[interchange]?.includes(id) !== true;
  }

  /** The end of an interchange whose verdict was known: its envelope's refusal, if it has one (one pass reports it). */
  private closeKnown(open: OpenInterchange): void {
    if (this.share?.only) return;
    const refusal = envelopeRefusal(open.known!.envelopeErrors(), open.envelope);
    if (refusal) this.out.push(refusal);
  }

  /** The envelope's verdicts: a set's and a group's are noted, an interchange's releases or refuses what it holds. */
  private verdicts(): void {
    for (const event of this.events) {
      if (event.kind === 'set') {
        for (const open of this.interchanges) while (open.judged < open.sets.length && open.sets[open.judged].stray) open.judged++;
        const open = this.interchanges.find((i) => i.judged < i.sets.length);
        if (open) open.sets[open.judged++].result = event.set;
      } else if (event.kind === 'group') {
        for (const open of this.interchanges) while (open.grouped < open.judged) open.sets[open.grouped++].group = event.group;
      } else {
        const at = this.interchanges.findIndex((i) => i.index === event.interchange.index);
        if (at >= 0) this.settle(this.interchanges.splice(at, 1)[0], event.interchange);
      }
    }
    this.events.length = 0;
  }

  /** An interchange's verdict, come with its IEA: what it held goes on, or gives way to a refusal. */
  private settle(open: OpenInterchange, interchange: InterchangeResult): void {
    const errors = envelopeErrors(interchange, this.file);
    for (const set of open.sets) {
      this.held -= set.items.length;
      const { result, group } = set;
      if (result && group && isAccepted(result, group, interchange)) this.out.push(...set.items, END);
      else this.out.push(setRefusal(errors, set.place, linesOf(set), result));
    }
    const refusal = envelopeRefusal(errors, open.envelope);
    if (refusal) this.out.push(refusal);
  }
}

const END: X12Item = { kind: 'end' };

/** A set's lines, for a refusal that reports each of them. */
function linesOf(set: OpenSet): number[] {
  return Array.from({ length: set.last - set.first + 1 }, (_, i) => set.first + i);
}

/** A segment's number in its set as text, made once for each number (every row keeps its start segment's). */
const INDEX_TEXTS: string[] = [];
function indexText(index: number): string {
  return index < 65_536 ? (INDEX_TEXTS[index] ??= String(index)) : String(index);
}

function valueOf(segment: Segment, element: number, component: number): string {
  return component === 0 ? segment.element(element) : segment.component(element, component);
}
