import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import { WisbridgeError } from '../errors.js';
import { mappingDefinitionSchema } from './definition-schema.js';
import { compileMapping, type Mapping } from './mapping.js';
import { DefinitionError } from './values.js';

/** One problem of a definition file, with its YAML position (1-based). */
export interface DefinitionProblem { file: string; line: number; col: number; message: string }

export const formatProblem = (p: DefinitionProblem) => `${p.file}:${p.line}:${p.col}: ${p.message}`;

/** Finds the deepest YAML node along a path, so an error points at the value (or its nearest parent). */
function positionOf(doc: Document, counter: LineCounter, path: readonly PropertyKey[]): { line: number; col: number } {
  let node: unknown = doc.contents;
  let offset = (doc.contents as YamlNode | null)?.range?.[0] ?? 0;
  for (const seg of path) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === seg);
      if (pair) {
        offset = (pair.key as YamlNode).range?.[0] ?? offset;
        next = pair.value;
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

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][] };

/**
 * A union failure ("Invalid input") is replaced by the issue of the branch that got furthest: for a field
 * written as an object, the object branch's own complaint (a bad `type`) is what the author needs.
 */
function specificIssue(issue: Issue): Issue {
  if (issue.code !== 'invalid_union' || !issue.errors?.length) return issue;
  const score = (branch: Issue[]) => Math.max(...branch.map((i) => (i.code === 'invalid_type' && i.path.length === 0 ? -1 : i.path.length)));
  const best = [...issue.errors].sort((a, b) => score(b) - score(a))[0];
  if (!best?.length || score(best) < 0) return issue;
  const inner = specificIssue(best[0]);
  return { ...inner, path: [...issue.path, ...inner.path] };
}

/** Parses, validates and compiles one definition; every problem found is returned (nothing thrown). */
export function parseMapping(text: string, file: string): { mapping?: Mapping; problems: DefinitionProblem[] } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const name = basename(file).replace(/\.ya?ml$/i, '');
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.slice(0, 3).map((e) => {
        const pos = counter.linePos(e.pos[0]);
        return { file, line: pos.line, col: pos.col, message: `YAML: ${e.message.split('\n')[0]}` };
      }),
    };
  }
  const parsed = mappingDefinitionSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map(specificIssue).map((issue) => ({
        file, ...positionOf(doc, counter, issue.path),
        message: `${issue.path.length ? issue.path.join('.') + ': ' : ''}${issue.message}`,
      })),
    };
  }
  try {
    return { mapping: compileMapping(parsed.data, parsed.data.name ?? name, file), problems: [] };
  } catch (error) {
    if (error instanceof DefinitionError) {
      return { problems: [{ file, ...positionOf(doc, counter, error.path), message: `${error.path.join('.')}: ${error.message}` }] };
    }
    throw error;
  }
}

export interface MappingSet {
  readonly mappings: readonly Mapping[];
  /** By name; throws MAPPING_NOT_FOUND. */
  get(name: string): Mapping;
  /** The inbound mapping whose file patterns match; undefined when none does; MAPPING_INVALID when several do. */
  find(fileName: string, direction?: 'inbound' | 'export'): Mapping | undefined;
}

export function mappingSet(mappings: readonly Mapping[]): MappingSet {
  const byName = new Map(mappings.map((m) => [m.name, m]));
  return {
    mappings,
    get(name) {
      const m = byName.get(name);
      if (!m) throw new WisbridgeError('MAPPING_NOT_FOUND', `no mapping named "${name}" (known: ${[...byName.keys()].join(', ')})`);
      return m;
    },
    find(fileName, direction = 'inbound') {
      const hits = mappings.filter((m) => m.direction === direction && m.matches(fileName));
      if (hits.length > 1) throw new WisbridgeError('MAPPING_INVALID', `file "${fileName}" matches several mappings: ${hits.map((m) => m.name).join(', ')}`);
      return hits[0];
    },
  };
}

/** Reads every *.yaml definition of a folder; checks all of them and reports every problem. */
export async function checkMappings(dir: string): Promise<{ mappings: Mapping[]; problems: DefinitionProblem[] }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch (error) {
    throw new WisbridgeError('MAPPING_NOT_FOUND', `cannot read the mappings folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const mappings: Mapping[] = [];
  const problems: DefinitionProblem[] = [];
  const seen = new Map<string, string>();
  for (const n of names) {
    const file = join(dir, n);
    const result = parseMapping(await readFile(file, 'utf8'), file);
    problems.push(...result.problems);
    if (!result.mapping) continue;
    const other = seen.get(result.mapping.name);
    if (other) {
      problems.push({ file, line: 1, col: 1, message: `name "${result.mapping.name}" is already used by ${other}` });
      continue;
    }
    seen.set(result.mapping.name, file);
    mappings.push(result.mapping);
  }
  return { mappings, problems };
}

/** Loads a folder of definitions; any problem is a MAPPING_INVALID error naming file:line:col. */
export async function loadMappings(dir: string): Promise<MappingSet> {
  const { mappings, problems } = await checkMappings(dir);
  if (problems.length > 0) {
    throw new WisbridgeError('MAPPING_INVALID', problems.map(formatProblem).join('\n'), { details: { problems } });
  }
  return mappingSet(mappings);
}

/** Loads one definition file. */
export async function loadMappingFile(file: string): Promise<Mapping> {
  const { mapping, problems } = parseMapping(await readFile(file, 'utf8'), file);
  if (!mapping) throw new WisbridgeError('MAPPING_INVALID', problems.map(formatProblem).join('\n'), { details: { problems } });
  return mapping;
}
