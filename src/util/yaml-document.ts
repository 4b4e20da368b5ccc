import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { camelToSnake } from './naming.js';
import { knownKeysAt, renameOldKeys } from './schema-keys.js';
import type { YamlProblem } from './yaml-problem.js';

export { formatYamlProblem, type YamlProblem } from './yaml-problem.js';

/** A parsed YAML document that can point at the position of any path inside it. */
export interface PositionedYaml {
  value: unknown;
  /** `atKey`: the position of the last segment's key rather than of its value. */
  positionOf(path: readonly PropertyKey[], atKey?: boolean): { line: number; col: number };
}

/** Parses YAML text; syntax errors come back as problems with positions, nothing is thrown. */
export function parseYaml(text: string, file: string): { doc?: PositionedYaml; problems: YamlProblem[] } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.slice(0, 3).map((e) => {
        const pos = counter.linePos(e.pos[0]);
        return { file, line: pos.line, col: pos.col, message: `YAML: ${e.message.split('\n')[0]}` };
      }),
    };
  }
  return { doc: { value: doc.toJS(), positionOf: (path, atKey) => positionOf(doc, counter, path, atKey) }, problems: [] };
}

/**
 * Parses YAML and validates it with a zod schema; every problem carries the position of the offending value, and an
 * unknown key is answered with the closest known one ("did you mean"). With `acceptCamelCase`, a key written in
 * camelCase where the schema knows its snake_case spelling is accepted and reported in `warnings`; so is a key
 * `renamedKeys` maps to its new name (old name → new name), where the schema knows the new one.
 */
export function parseYamlWithSchema<S extends z.ZodType>(
  text: string,
  file: string,
  schema: S,
  options: { acceptCamelCase?: boolean; renamedKeys?: Readonly<Record<string, string>> } = {},
): { data?: z.output<S>; doc?: PositionedYaml; problems: YamlProblem[]; warnings: YamlProblem[] } {
  const { doc, problems } = parseYaml(text, file);
  if (!doc) return { problems, warnings: [] };
  const warnings: YamlProblem[] = [];
  const warn = (path: PropertyKey[], newKey: string) => {
    warnings.push({ file, ...doc.positionOf(path, true), message: `${path.join('.')}: deprecated spelling; write \`${newKey}\` (the old name still works for now)` });
  };
  const { renamedKeys } = options;
  const newNameOf = (key: string) => (renamedKeys && Object.hasOwn(renamedKeys, key) ? renamedKeys[key] : undefined)
    ?? (options.acceptCamelCase ? camelToSnake(key) : undefined);
  const value = options.acceptCamelCase || renamedKeys ? renameOldKeys(schema, doc.value ?? {}, newNameOf, warn) : doc.value ?? {};
  // Without zod's compiled fast path: a file is parsed once, and generating and compiling that path for each object
  // schema cost more than walking the schema (the configuration at every start; docs/performance.md, start-up).
  const parsed = schema.safeParse(value, { jitless: true });
  if (!parsed.success) {
    return {
      doc,
      warnings,
      problems: (parsed.error.issues as Issue[]).flatMap(specificIssues).flatMap((issue) => issue.code === 'unrecognized_keys'
        ? (issue.keys ?? []).map((key) => unknownKey(file, doc, schema, value, issue.path, key))
        : [{ file, ...doc.positionOf(issue.path), message: `${issue.path.length ? issue.path.join('.') + ': ' : ''}${plainMessage(issue, value)}` }]),
    };
  }
  return { data: parsed.data, doc, problems: [], warnings };
}

function unknownKey(file: string, doc: PositionedYaml, schema: z.ZodType, value: unknown, path: PropertyKey[], key: string): YamlProblem {
  return {
    file, ...doc.positionOf([...path, key], true),
    message: `${[...path, key].join('.')}: unknown option${didYouMean(key, knownKeysAt(schema, value, path), (name) => `\`${name}\``)}`,
  };
}

/**
 * zod's message, in plainer words where it has them: an option left out is "required" (not "Invalid input: expected
 * record, received undefined"), and a value not among the allowed ones names the closest of them.
 */
function plainMessage(issue: Issue, root: unknown): string {
  if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) return 'is required';
  if (issue.code === 'invalid_type' && issue.expected !== undefined && issue.expected in EXPECTED) {
    const given = issue.path.reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key], root);
    return `expected ${EXPECTED[issue.expected]}, not ${givenValue(given)}`;
  }
  if (issue.code === 'invalid_value' && issue.values) {
    const given = issue.path.reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key], root);
    if (typeof given === 'string') return `${issue.message}${didYouMean(given, issue.values.map(String))}`;
  }
  return issue.message;
}

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][]; keys?: string[]; values?: unknown[]; expected?: string };

/** What a type is called to a person writing YAML. */
const EXPECTED: Record<string, string> = {
  boolean: 'true or false', number: 'a number', string: 'text', object: 'a section of options (key: value)', array: 'a list',
};

/**
 * What kind of value was given. Text is not echoed (it may be a secret written inline), except the words YAML 1.1
 * read as booleans and YAML 1.2 reads as text.
 */
function givenValue(value: unknown): string {
  if (typeof value === 'string') {
    return /^(yes|no|on|off|y|n)$/i.test(value) ? `"${value}", which YAML 1.2 reads as text: write true or false` : 'text';
  }
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a section';
  return `${typeof value} ${String(value)}`;
}

/**
 * A union failure ("Invalid input") is replaced by the issues of the branch that got furthest: for a field
 * written as an object, the object branch's own complaints (a bad `type`, a misspelt key beside it) are what the
 * author needs, all of them at once.
 */
function specificIssues(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return [issue];
  const score = (branch: Issue[]) => Math.max(...branch.map((i) => (i.code === 'invalid_type' && i.path.length === 0 ? -1 : i.path.length)));
  const best = [...issue.errors].sort((a, b) => score(b) - score(a))[0];
  if (!best?.length || score(best) < 0) return [issue];
  return best.flatMap(specificIssues).map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** Finds the deepest YAML node along a path, so an error points at the value (or its nearest parent). */
function positionOf(doc: Document, counter: LineCounter, path: readonly PropertyKey[], atKey = false): { line: number; col: number } {
  let node: unknown = doc.contents;
  let offset = (doc.contents as YamlNode | null)?.range?.[0] ?? 0;
  for (const [i, seg] of path.entries()) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === seg);
      if (pair) {
        offset = (pair.key as YamlNode).range?.[0] ?? offset;
        next = pair.value;
        if (atKey && i === path.length - 1) break;
      }
    } else if (isSeq(node) && typeof seg === 'number') {
      next = node.items[seg];
    }
    if (!next) break;
    node = next;
    offset = (next as YamlNode).range?.[0] ?? offset;
  }
  const pos = counter.linePos(offset);
  return { line: pos.line, col: pos.col };
}
