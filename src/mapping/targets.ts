import type { z } from 'zod';
import { endpoints } from '../contract/index.js';
import type { FieldSpec, InboundDocument, NodeSpec } from './definition-schema.js';
import { DefinitionError } from './values.js';

// The fields a mapping may fill, read from the contract's request item schemas (the one source of truth): a
// misspelled or unknown field would otherwise be stripped by the contract and its value silently lost.

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; getter?: () => z.ZodType };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema without its optional / nullable / default / lazy / pipe wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const d = defOf(s);
    if (d.type === 'lazy' && d.getter) s = d.getter();
    else if (d.type === 'pipe' && d.in) s = d.in;
    else if (d.innerType && ['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(d.type)) s = d.innerType;
    else return s;
  }
  return s;
}

type Kind = { kind: 'object'; shape: Record<string, z.ZodType> } | { kind: 'list'; element: z.ZodType } | { kind: 'value' };

function kindOf(schema: z.ZodType): Kind {
  const s = unwrap(schema);
  const d = defOf(s);
  if (d.type === 'object' && d.shape) return { kind: 'object', shape: d.shape };
  if (d.type === 'array' && d.element) {
    const el = unwrap(d.element);
    if (defOf(el).type === 'object') return { kind: 'list', element: el };
  }
  return { kind: 'value' };
}

/** Every dotted field name that ends in a value (lot.number), and the list names, of one object level. */
function namesOf(shape: Record<string, z.ZodType>, prefix = ''): { values: string[]; lists: string[] } {
  const values: string[] = [];
  const lists: string[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const k = kindOf(schema);
    if (k.kind === 'object') values.push(...namesOf(k.shape, `${prefix}${name}.`).values);
    else if (k.kind === 'list') lists.push(prefix + name);
    else values.push(prefix + name);
  }
  return { values, lists };
}

export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The closest candidate, when it is close enough to be a likely misspelling. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = levenshtein(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

function unknownName(what: string, name: string, candidates: string[], where: string, path: (string | number)[]): DefinitionError {
  const guess = closest(name, candidates);
  const hint = guess ? `did you mean \`${guess}\`?` : `valid: ${candidates.join(', ') || 'none'}`;
  return new DefinitionError(`${what} "${name}" is not a field of ${where} in the contract, so its value would be lost: ${hint} (a column read only for a check: add send: false)`, path);
}

/**
 * Checks every field and list name of a request tree against the contract's item schema of `document`;
 * returns every problem found (empty when all names exist). Fields with `send: false` are only read.
 */
export function checkTargets(request: NodeSpec, document: InboundDocument): DefinitionError[] {
  const item = (endpoints[document] as { item: z.ZodType }).item;
  const problems: DefinitionError[] = [];
  checkNode(request, item, document, ['request'], problems);
  return problems;
}

function checkNode(node: NodeSpec, schema: z.ZodType, where: string, path: (string | number)[], problems: DefinitionError[]): void {
  const k = kindOf(schema);
  if (k.kind !== 'object') return;
  const names = namesOf(k.shape);
  for (const [name, f] of Object.entries(node.fields ?? {})) {
    if (typeof f === 'object' && (f as FieldSpec).send === false) continue;
    const at = [...path, 'fields', name];
    if (names.values.includes(name)) continue;
    if (names.lists.includes(name)) problems.push(new DefinitionError(`"${name}" is a list in the contract: map it under lists, not fields`, at));
    else if (names.values.some((v) => v.startsWith(`${name}.`))) {
      problems.push(new DefinitionError(`"${name}" is an object in the contract: name its fields (${names.values.filter((v) => v.startsWith(`${name}.`)).join(', ')})`, at));
    } else problems.push(unknownName('field', name, names.values, where, at));
  }
  for (const [name, child] of Object.entries(node.lists ?? {})) {
    const at = [...path, 'lists', name];
    const target = k.shape[name];
    const tk = target && kindOf(target);
    if (!tk || tk.kind !== 'list') {
      if (tk && tk.kind === 'value') problems.push(new DefinitionError(`"${name}" is a single value in the contract: map it under fields, not lists`, at));
      else problems.push(unknownName('list', name, names.lists, where, at));
      continue;
    }
    checkNode(child, tk.element, `${where} ${name}`, at, problems);
  }
}
