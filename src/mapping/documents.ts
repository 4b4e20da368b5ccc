import type { ReferenceKind } from './definition-schema.js';
import type { BoundField, BoundNode } from './compile.js';
import { Fail } from './values.js';

/** One problem of one input line: carried to the result file. */
export interface RowError {
  line: number;
  column?: string;
  raw?: string;
  message: string;
}

export interface PendingRef {
  kind: ReferenceKind;
  key: string;
  target: Record<string, unknown>;
  field: string;
  keep: boolean;
  line: number;
  label: string;
  raw: string;
  /** The row the value came from (names its place in a message). */
  row: readonly string[];
}

type Obj = Record<string, unknown>;

/** Where a built object came from, recorded only when an error must be located. */
export interface Origin { line: number; row: readonly string[]; node: BoundNode }

export interface DocState {
  key: string;
  item: Obj;
  lines: number[];
  /** The rows, flat: line, row, line, row … (no object per row). */
  rows: (number | readonly string[])[];
  /** Created on the first error / reference (most rows have none). */
  errors?: RowError[];
  refs?: PendingRef[];
  /** Keyed children per list, created on first use (one-row documents never need it). */
  index?: Map<unknown[], Map<string, Obj>>;
  trace?: Map<object, Origin>;
}

export const rowCount = (doc: DocState) => doc.rows.length >> 1;

/**
 * How a message names where a value came from: a CSV file by line and column (`FILE, line 4, column QTY`), an X12 file
 * by interchange, set, segment and element (x12-plan.ts). `row` is the mapped row when the caller has it.
 */
export interface Places {
  cell(line: number, row: readonly string[] | undefined, label: string): string;
  line(line: number, row: readonly string[] | undefined): string;
}

export function csvPlaces(file: string): Places {
  return {
    cell: (line, _row, label) => (label ? `${file}, line ${line}, column ${label}` : `${file}, line ${line}`),
    line: (line) => `${file}, line ${line}`,
  };
}

export function cellMessage(places: Places, line: number, row: readonly string[] | undefined, label: string, raw: string, reason: string): string {
  return `${places.cell(line, row, label)}: "${raw}" ${reason}`;
}

/** Evaluates a key (several columns joined); a Fail carries the failing field. */
export function evalKey(fields: BoundField[], row: readonly string[]): string | { field: BoundField; fail: Fail } {
  if (fields.length === 1) {
    const v = fields[0].get(row);
    return v instanceof Fail ? { field: fields[0], fail: v } : v === undefined ? '' : String(v);
  }
  let key = '';
  for (const f of fields) {
    const v = f.get(row);
    if (v instanceof Fail) return { field: f, fail: v };
    key += (v === undefined ? '' : String(v)) + '\u0001';
  }
  return key;
}

/** Builds request items from rows, following the bound node tree. */
export class DocumentBuilder {
  readonly places: Places;

  constructor(readonly root: BoundNode, readonly fileName: string, places?: Places) {
    this.places = places ?? csvPlaces(fileName);
  }

  start(key: string, trace = false): DocState {
    const doc: DocState = { key, item: {}, lines: [], rows: [] };
    if (trace) doc.trace = new Map();
    return doc;
  }

  add(doc: DocState, row: readonly string[], line: number): void {
    const first = doc.rows.length === 0;
    // Exact-size literals for the first row: a push onto an empty array allocates room for 17.
    if (first) {
      doc.rows = [line, row];
      if (doc.lines.length === 0) doc.lines = [line];
      else doc.lines.push(line);
    } else {
      doc.rows.push(line, row);
      doc.lines.push(line);
    }
    if (first) this.fill(doc, this.root, doc.item, row, line);
    else this.sameHeader(doc, row, line);
    if (!this.lists(doc, this.root, doc.item, row, line) && this.root.lists.length > 0) {
      const lists = whenLists(this.root);
      (doc.errors ??= []).push({
        line,
        message: `${this.places.line(line, row)}: the row goes into no list of the request${lists.length ? ` (it passes none of the when conditions of ${lists.join(', ')})` : ''}, so nothing of it would be sent: map it in a list, or leave such rows out with skip`,
      });
    }
  }

  /**
   * A document takes its own fields from its first row: a later row whose value for such a field differs would
   * lose it silently, so it is a row error. Raw texts are compared first (cheap, and almost always equal).
   */
  private sameHeader(doc: DocState, row: readonly string[], line: number): void {
    const firstRow = doc.rows[1] as readonly string[];
    const firstLine = doc.rows[0] as number;
    const fields = this.root.fields;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      if (!f.label) continue;
      const raw = f.raw(row);
      const was = f.raw(firstRow);
      if (raw === was) continue;
      const a = f.get(row);
      const b = f.get(firstRow);
      if (!(a instanceof Fail) && (a === b || (a !== null && typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b)))) continue;
      const reason = a instanceof Fail ? a.reason : `differs from "${was}" on line ${firstLine}, the first row of the document: ${f.path.join('.')} comes from the first row, so this value would be lost`;
      (doc.errors ??= []).push({ line, column: f.label, raw, message: cellMessage(this.places, line, row, f.label, raw, reason) });
    }
  }

  private fill(doc: DocState, node: BoundNode, obj: Obj, row: readonly string[], line: number): void {
    doc.trace?.set(obj, { line, row, node });
    const fields = node.fields;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      const v = f.get(row);
      if (v === undefined) continue;
      if (v instanceof Fail) {
        const raw = f.raw(row);
        (doc.errors ??= []).push({ line, column: f.label || undefined, raw, message: cellMessage(this.places, line, row, f.label, raw, v.reason) });
        continue;
      }
      // A field read only for a check (send: false) writes into a scratch object that is dropped.
      const dest = f.send ? obj : {};
      const target = f.path.length === 1 ? ((dest[f.path[0]] = v), dest) : setPath(dest, f.path, v);
      if (f.ref) {
        const field = f.path[f.path.length - 1];
        if (Array.isArray(v)) {
          (doc.errors ??= []).push({ line, column: f.label, message: `${this.places.cell(line, row, f.label)}: a list has no reference id` });
        } else {
          (doc.refs ??= []).push({ kind: f.ref.kind, key: String(v), target, field, keep: f.ref.keep, line, label: f.label, raw: f.raw(row), row });
        }
      }
    }
  }

  /** Adds the row to every list whose `when` holds; false when it reached no level without lists of its own. */
  private lists(doc: DocState, node: BoundNode, obj: Obj, row: readonly string[], line: number): boolean {
    let used = false;
    for (const { name, node: child } of node.lists) {
      if (child.when && !child.when(row)) continue;
      if (this.addTo(doc, child, obj, name, row, line)) used = true;
    }
    return used;
  }

  private addTo(doc: DocState, node: BoundNode, parent: Obj, name: string, row: readonly string[], line: number): boolean {
    let arr = parent[name] as Obj[] | undefined;
    if (!arr) parent[name] = arr = [];
    if (node.key.length === 0) {
      const el: Obj = {};
      arr.push(el);
      this.fill(doc, node, el, row, line);
      return node.lists.length === 0 || this.lists(doc, node, el, row, line);
    }
    const key = evalKey(node.key, row);
    if (typeof key !== 'string') {
      const raw = key.field.raw(row);
      (doc.errors ??= []).push({ line, column: key.field.label, raw, message: cellMessage(this.places, line, row, key.field.label, raw, key.fail.reason) });
      return true; // reported
    }
    if (key === '' && node.optionalLevel) {
      const inner = node.lists[node.passThrough].node;
      return (!inner.when || inner.when(row)) && this.addTo(doc, inner, parent, name, row, line);
    }
    const lists = (doc.index ??= new Map());
    let index = lists.get(arr);
    if (!index) lists.set(arr, (index = new Map()));
    let el = index.get(key);
    if (!el) {
      el = {};
      arr.push(el);
      index.set(key, el);
      this.fill(doc, node, el, row, line);
    }
    return node.lists.length === 0 || this.lists(doc, node, el, row, line);
  }
}

/** The names of the lists that select rows with `when` (for the message of a row that fed none). */
function whenLists(node: BoundNode): string[] {
  return node.lists.flatMap(({ name, node: child }) => [...(child.when ? [name] : []), ...whenLists(child)]);
}

function setPath(obj: Obj, path: readonly string[], v: unknown): Obj {
  let o = obj;
  for (let i = 0; i < path.length - 1; i++) {
    let next = o[path[i]] as Obj | undefined;
    if (next === undefined || typeof next !== 'object') o[path[i]] = next = {};
    o = next;
  }
  o[path[path.length - 1]] = v;
  return o;
}
