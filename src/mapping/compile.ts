import type { ConditionTree, FieldSpec, NodeSpec, ReferenceKind } from './definition-schema.js';
import { compileParse, compileTransform, DefinitionError, Fail, identity, type Parse, type TextStep } from './values.js';

/** Where a column reference points once the columns of a file are known. */
export interface ColumnSlot { index: number; label: string }
/** Resolves a column reference; throws DefinitionError (load time) or HeaderProblem (header of a file). */
export type Binder = (ref: string | number, path: (string | number)[]) => ColumnSlot;

/** A header that does not fit the mapping (a named column missing, a name given twice): the file is refused. */
export class HeaderProblem extends Error {}

export interface BoundField {
  readonly path: readonly string[];
  /** Column label used in error messages ('' for constants). */
  readonly label: string;
  readonly ref?: { kind: ReferenceKind; keep: boolean };
  /** false: read and checked, never put into the request (send: false). */
  readonly send: boolean;
  /** The value, undefined (empty: the field is left out), or a Fail. */
  get(row: readonly string[]): unknown;
  raw(row: readonly string[]): string;
}

export type FieldInput = string | number | FieldSpec;
type Tables = Record<string, Record<string, string>>;

/** Compiles once at load (patterns, regexes, tables are checked here); binding to columns happens per file. */
export function compileField(name: string, input: FieldInput, tables: Tables, path: (string | number)[]): (bind: Binder) => BoundField {
  const spec: FieldSpec = typeof input === 'object' ? input : { column: input };
  const sources = [spec.column !== undefined, spec.value !== undefined, spec.concat !== undefined].filter(Boolean).length;
  if (sources > 1) throw new DefinitionError(`field "${name}": give only one of column, value, concat`, path);
  if (sources === 0 && spec.default === undefined) throw new DefinitionError(`field "${name}" needs a column, a value, a concat or a default`, path);
  if (spec.id_of && spec.check) throw new DefinitionError(`field "${name}": id_of and check exclude each other`, path);
  const steps: TextStep[] = (spec.transforms ?? []).map((t, i) => compileTransform(t, tables, [...path, 'transforms', i]));
  const parse = compileParse(spec, path);
  const outPath = name.split('.');
  const ref = spec.id_of ? { kind: spec.id_of, keep: false } : spec.check ? { kind: spec.check, keep: true } : undefined;
  const constant = (v: string | number | boolean, where: string): unknown => {
    if (typeof v !== 'string') return v;
    if (v === '') return undefined;
    const r = parse(v);
    if (r instanceof Fail) throw new DefinitionError(`field "${name}": ${where} "${v}" ${r.reason}`, [...path, where]);
    return r;
  };
  const fallback = spec.default === undefined ? undefined : constant(spec.default, 'default');
  const split = spec.split;
  const send = spec.send !== false;

  return (bind) => {
    let source: (row: readonly string[]) => string;
    let label = '';
    let columnIndex = -1;
    if (spec.value !== undefined) {
      const v = constant(spec.value, 'value');
      return { path: outPath, label, ref, send, get: () => v, raw: () => String(spec.value) };
    } else if (spec.column !== undefined) {
      const slot = bind(spec.column, [...path, 'column']);
      const i = (columnIndex = slot.index);
      label = slot.label;
      source = (row) => row[i] ?? '';
    } else if (spec.concat) {
      const parts = spec.concat.map((c, k) => (typeof c === 'object' ? { value: c.value } : { slot: bind(c, [...path, 'concat', k]) }));
      const sep = spec.separator ?? '';
      label = parts.map((p) => p.slot?.label).filter(Boolean).join('+');
      source = (row) => {
        let out = '';
        let first = true;
        for (const p of parts) {
          const v = p.slot ? (row[p.slot.index] ?? '') : p.value!;
          if (v === '') continue;
          out += first ? v : sep + v;
          first = false;
        }
        return out;
      };
    } else {
      source = () => '';
    }
    const get = fieldGetter(source, columnIndex, steps, fallback, split, parse);
    return { path: outPath, label, ref, send, get, raw: source };
  };
}

/**
 * One closure per field for the common shapes (a column, no split; transforms composed into one step), so a row
 * does not go through the source closure, a transform loop and an identity parse; the general form handles the rest.
 */
function fieldGetter(source: (row: readonly string[]) => string, i: number, steps: TextStep[], fallback: unknown, split: string | undefined, parse: Parse): (row: readonly string[]) => unknown {
  const plain = parse === identity;
  if (i >= 0 && split === undefined && steps.length === 0) {
    return plain
      ? (row) => { const s = row[i]; return s === undefined || s === '' ? fallback : s; }
      : (row) => { const s = row[i]; return s === undefined || s === '' ? fallback : parse(s); };
  }
  if (i >= 0 && split === undefined && steps.length >= 1) {
    const step = steps.reduce(composeSteps);
    return (row) => {
      const r = step(row[i] ?? '');
      if (typeof r !== 'string') return r;
      return r === '' ? fallback : plain ? r : parse(r);
    };
  }
  return (row) => {
    let s = source(row);
    for (let k = 0; k < steps.length; k++) {
      const r = steps[k](s);
      if (r instanceof Fail) return r;
      s = r;
    }
    if (s === '') return fallback;
    if (split !== undefined) {
      const out: unknown[] = [];
      for (const part of s.split(split)) {
        const p = part.trim();
        if (p === '') continue;
        const v = parse(p);
        if (v instanceof Fail) return v;
        out.push(v);
      }
      return out.length ? out : fallback;
    }
    return parse(s);
  };
}

/** Two transforms as one (a Fail of the first stops the second), composed at load time. */
const composeSteps = (a: TextStep, b: TextStep): TextStep => (s) => {
  const r = a(s);
  return typeof r === 'string' ? b(r) : r;
};

export type RowTest = (row: readonly string[]) => boolean;

export function compileConditions(input: ConditionTree | ConditionTree[] | undefined, path: (string | number)[], mode: 'all' | 'any'): ((bind: Binder) => RowTest) | undefined {
  if (input === undefined) return undefined;
  const list = Array.isArray(input) ? input : [input];
  const tests = list.map((c, i) => compileTree(c, Array.isArray(input) ? [...path, i] : path));
  return combine(tests, mode);
}

function combine(tests: ((bind: Binder) => RowTest)[], mode: 'all' | 'any'): (bind: Binder) => RowTest {
  return (bind) => {
    const bound = tests.map((t) => t(bind));
    if (bound.length === 1) return bound[0];
    return mode === 'all' ? (row) => bound.every((t) => t(row)) : (row) => bound.some((t) => t(row));
  };
}

function compileTree(c: ConditionTree, path: (string | number)[]): (bind: Binder) => RowTest {
  if ('any' in c) return combine(c.any.map((x, i) => compileTree(x, [...path, 'any', i])), 'any');
  if ('all' in c) return combine(c.all.map((x, i) => compileTree(x, [...path, 'all', i])), 'all');
  return compileCondition(c, path);
}

function compileCondition(c: Exclude<ConditionTree, { any: unknown } | { all: unknown }>, path: (string | number)[]): (bind: Binder) => RowTest {
  const checks: ((v: string) => boolean)[] = [];
  if (c.equals !== undefined) checks.push((v) => v === c.equals);
  if (c.not_equals !== undefined) checks.push((v) => v !== c.not_equals);
  if (c.in) { const s = new Set(c.in); checks.push((v) => s.has(v)); }
  if (c.not_in) { const s = new Set(c.not_in); checks.push((v) => !s.has(v)); }
  if (c.empty !== undefined) checks.push((v) => (v.trim() === '') === c.empty);
  if (c.matches !== undefined) {
    let re: RegExp;
    try { re = new RegExp(c.matches); } catch (e) { throw new DefinitionError(`invalid regular expression: ${(e as Error).message}`, [...path, 'matches']); }
    checks.push((v) => re.test(v));
  }
  if (checks.length === 0) throw new DefinitionError('a condition needs at least one test (equals, not_equals, in, not_in, empty, matches)', path);
  return (bind) => {
    const i = bind(c.column, [...path, 'column']).index;
    return (row) => {
      const v = row[i] ?? '';
      for (const t of checks) if (!t(v)) return false;
      return true;
    };
  };
}

export interface BoundNode {
  readonly key: BoundField[];
  readonly when?: RowTest;
  readonly optionalLevel: boolean;
  /** With optionalLevel: the nested list that takes a row whose key is empty. */
  readonly passThrough: number;
  readonly fields: BoundField[];
  readonly lists: { name: string; node: BoundNode }[];
}

export function compileNode(spec: NodeSpec, tables: Tables, path: (string | number)[]): (bind: Binder) => BoundNode {
  const keyRefs = spec.key === undefined ? [] : Array.isArray(spec.key) ? spec.key : [spec.key];
  const keys = keyRefs.map((k, i) => compileField('key', { column: k, transforms: ['trim'] }, tables, [...path, 'key', ...(Array.isArray(spec.key) ? [i] : [])]));
  const when = compileConditions(spec.when, [...path, 'when'], 'all');
  const fields = Object.entries(spec.fields ?? {}).map(([name, f]) => compileField(name, f as FieldInput, tables, [...path, 'fields', name]));
  const lists = Object.entries(spec.lists ?? {}).map(([name, n]) => ({ name, node: compileNode(n, tables, [...path, 'lists', name]) }));
  let passThrough = 0;
  if (spec.optional_level) {
    if (keys.length === 0) throw new DefinitionError('optional_level needs a key', [...path, 'optional_level']);
    if (typeof spec.optional_level === 'string') {
      passThrough = lists.findIndex((l) => l.name === spec.optional_level);
      if (passThrough < 0) throw new DefinitionError(`optional_level names "${spec.optional_level}", which is not one of the nested lists (${lists.map((l) => l.name).join(', ') || 'none'})`, [...path, 'optional_level']);
    } else if (lists.length !== 1) {
      throw new DefinitionError('optional_level: true needs exactly one nested list; with several, name the one that takes rows with an empty key (optional_level: children)', [...path, 'optional_level']);
    }
  }
  const names = new Set<string>();
  for (const name of [...Object.keys(spec.fields ?? {}), ...Object.keys(spec.lists ?? {})]) {
    const top = name.split('.')[0];
    if (names.has(name)) throw new DefinitionError(`"${name}" is both a field and a list`, path);
    names.add(top);
  }
  return (bind) => ({
    key: keys.map((k) => k(bind)),
    when: when?.(bind),
    optionalLevel: spec.optional_level !== undefined && spec.optional_level !== false,
    passThrough,
    fields: fields.map((f) => f(bind)),
    lists: lists.map((l) => ({ name: l.name, node: l.node(bind) })),
  });
}
