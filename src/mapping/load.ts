import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { WisbridgeError } from '../errors.js';
import { INBOUND_DOCUMENTS, mappingDefinitionSchema, type InboundDocument, type NodeSpec } from './definition-schema.js';
import { compileMapping, mappingBase, type Mapping } from './mapping.js';
import { DefinitionError, DefinitionErrors } from './values.js';
import { didYouMean } from '../util/did-you-mean.js';
import { formatYamlProblem, parseYamlWithSchema, type PositionedYaml, type YamlProblem } from '../util/yaml-document.js';
import { isRecord } from '../util/schema-keys.js';
import { checkTargets } from './targets.js';
import { CheckCache, type CheckedDefinition } from './check-cache.js';

/** One problem of a definition file, with its YAML position (1-based). */
export type DefinitionProblem = YamlProblem;

export const formatProblem = formatYamlProblem;

/** Keys of the definition format that were renamed (old name → new name): the old one is still read, with a warning. */
const RENAMED_KEYS: Readonly<Record<string, string>> = { resolve: 'id_of' };

/**
 * Parses, validates and compiles one definition; every problem found is returned (nothing thrown). `warnings`
 * (a key under its old name) do not stop it; the mapping carries them too, for whoever loads it to report.
 */
export function parseMapping(text: string, file: string, cache?: CheckCache, options: ParseOptions = {}): { mapping?: Mapping; problems: DefinitionProblem[]; warnings: DefinitionProblem[] } {
  const checked = cache?.get(file, text);
  if (checked && options.compile === 'on-use') return { mapping: compiledOnUse(checked, text, file), problems: [], warnings: checked.warnings };
  if (checked) {
    try {
      const mapping = compileMapping(checked.data, checked.data.name ?? basename(file).replace(/\.ya?ml$/i, ''), file);
      return { mapping: checked.warnings.length > 0 ? { ...mapping, warnings: checked.warnings } : mapping, problems: [], warnings: checked.warnings };
    } catch {
      // a compile step that changed since: the full check below names the place
    }
  }
  const { data, doc, problems, warnings } = parseYamlWithSchema(text, file, mappingDefinitionSchema, { renamedKeys: RENAMED_KEYS });
  if (!doc) return { problems, warnings };
  if (!data) {
    const targets = targetProblems(doc, file, problems);
    return { problems: targets.length === 0 ? problems : [...problems, ...targets].sort((a, b) => a.line - b.line || a.col - b.col), warnings };
  }
  try {
    const mapping = compileMapping(data, data.name ?? basename(file).replace(/\.ya?ml$/i, ''), file);
    cache?.set(file, text, { data, warnings });
    return { mapping: warnings.length > 0 ? { ...mapping, warnings } : mapping, problems: [], warnings };
  } catch (error) {
    const errors = error instanceof DefinitionErrors ? error.errors : error instanceof DefinitionError ? [error] : undefined;
    if (errors) return { problems: errors.map((e) => ({ file, ...doc.positionOf(e.path), message: `${e.path.join('.')}: ${e.message}` })), warnings };
    throw error;
  }
}

export interface ParseOptions {
  /**
   * 'on-use': a definition the cache holds (checked by this build, CheckCache) is compiled when its plan is first
   * read, not now, so that a command that maps no file does not compile every definition of the folder
   * (docs/performance.md, start-up). A definition not in the cache is checked and compiled at once: its problems
   * are reported at load as always. Default 'now'.
   */
  compile?: 'now' | 'on-use';
}

/**
 * A checked definition whose plan (`inbound`, `export`) is compiled on first read; its names, direction, dialect and
 * file patterns are there at once. A compile that fails (a compile step changed under the same cache stamp, which a
 * build does not do) checks the file's text in full and throws its problems as MAPPING_INVALID.
 */
function compiledOnUse(checked: CheckedDefinition, text: string, file: string): Mapping {
  const name = checked.data.name ?? basename(file).replace(/\.ya?ml$/i, '');
  let compiled: Mapping | undefined;
  const plan = (): Mapping => {
    if (compiled) return compiled;
    try {
      compiled = compileMapping(checked.data, name, file);
    } catch {
      const { mapping, problems } = parseMapping(text, file);
      if (!mapping) throw new WisbridgeError('MAPPING_INVALID', problems.map(formatProblem).join('\n'), { details: { problems } });
      compiled = mapping;
    }
    return compiled;
  };
  return {
    ...mappingBase(checked.data, name, file),
    get inbound() {
      return plan().inbound;
    },
    get export() {
      return plan().export;
    },
    ...(checked.warnings.length > 0 ? { warnings: checked.warnings } : {}),
  };
}

/**
 * The request's field and list names against the contract, for a definition whose shape was refused (a misspelt
 * option, a wrong type): the misspelt field is then reported in the same run, not in the next one after the shape is
 * mended. Only when `document` is a write the contract knows; a name already reported for its shape is not again.
 */
function targetProblems(doc: PositionedYaml, file: string, reported: readonly DefinitionProblem[]): DefinitionProblem[] {
  const raw = doc.value as { document?: unknown; request?: unknown } | null | undefined;
  const document = raw?.document;
  if (typeof document !== 'string' || !(INBOUND_DOCUMENTS as readonly string[]).includes(document)) return [];
  const request = requestNode(raw?.request);
  if (!request) return [];
  const seen = new Set(reported.map((p) => `${p.line}:${p.col}`));
  return checkTargets(request, document as InboundDocument)
    .map((e) => ({ file, ...doc.positionOf(e.path), message: `${e.path.join('.')}: ${e.message}` }))
    .filter((p) => !seen.has(`${p.line}:${p.col}`));
}

/** A request level as checkTargets reads it (its fields' names, its lists), from YAML that did not pass the schema. */
function requestNode(value: unknown): NodeSpec | undefined {
  if (!isRecord(value)) return undefined;
  const lists: Record<string, NodeSpec> = {};
  if (isRecord(value.lists)) {
    for (const [name, child] of Object.entries(value.lists)) {
      const node = requestNode(child);
      if (node) lists[name] = node;
    }
  }
  return { fields: isRecord(value.fields) ? value.fields : undefined, lists } as unknown as NodeSpec;
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
      if (!m) throw new WisbridgeError('MAPPING_NOT_FOUND', `no mapping named "${name}"${didYouMean(name, [...byName.keys()])} (known: ${[...byName.keys()].join(', ')})`);
      return m;
    },
    find(fileName, direction = 'inbound') {
      const hits = mappings.filter((m) => m.direction === direction && m.matches(fileName));
      if (hits.length > 1) throw new WisbridgeError('MAPPING_INVALID', `file "${fileName}" matches several mappings: ${hits.map((m) => m.name).join(', ')}`);
      return hits[0];
    },
  };
}

/**
 * Reads every *.yaml definition of a folder; checks all of them and reports every problem (`options.compile`: see
 * ParseOptions).
 */
export async function checkMappings(dir: string, cache = CheckCache.open(dir), options: ParseOptions = {}): Promise<{ mappings: Mapping[]; problems: DefinitionProblem[]; warnings: DefinitionProblem[] }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch (error) {
    throw new WisbridgeError('MAPPING_NOT_FOUND', `cannot read the mappings folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const mappings: Mapping[] = [];
  const problems: DefinitionProblem[] = [];
  const warnings: DefinitionProblem[] = [];
  const seen = new Map<string, string>();
  for (const n of names) {
    const file = join(dir, n);
    const result = parseMapping(await readFile(file, 'utf8'), file, cache, options);
    problems.push(...result.problems);
    warnings.push(...result.warnings);
    if (!result.mapping) continue;
    const other = seen.get(result.mapping.name);
    if (other) {
      problems.push({ file, line: 1, col: 1, message: `name "${result.mapping.name}" is already used by ${other}` });
      continue;
    }
    seen.set(result.mapping.name, file);
    mappings.push(result.mapping);
  }
  cache.save(names.map((n) => join(dir, n)));
  return { mappings, problems, warnings };
}

/** Loads a folder of definitions; any problem is a MAPPING_INVALID error naming file:line:col. */
export async function loadMappings(dir: string): Promise<MappingSet> {
  const { mappings, problems } = await checkMappings(dir);
  if (problems.length > 0) {
    throw new WisbridgeError('MAPPING_INVALID', problems.map(formatProblem).join('\n'), { details: { problems } });
  }
  return mappingSet(mappings);
}

/**
 * The definition named `name` read from its own file, `<dir>/<name>.yaml` (or `.yml`), when that file declares no
 * other name; undefined when there is no such file or it names another mapping (the caller then loads the folder).
 * A problem in that file is MAPPING_INVALID, like loadMappings'. Other files are not read: a job that needs one
 * mapping does not pay for reading the folder (docs/performance.md, "Settings chosen by measurement"), nor fails on
 * another file's problem.
 */
export async function loadNamedMapping(dir: string, name: string): Promise<Mapping | undefined> {
  for (const ext of ['.yaml', '.yml']) {
    const file = join(dir, name + ext);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    const { mapping, problems } = parseMapping(text, file);
    if (!mapping) throw new WisbridgeError('MAPPING_INVALID', problems.map(formatProblem).join('\n'), { details: { problems } });
    return mapping.name === name ? mapping : undefined;
  }
  return undefined;
}

/** Loads one definition file. */
export async function loadMappingFile(file: string): Promise<Mapping> {
  const { mapping, problems } = parseMapping(await readFile(file, 'utf8'), file);
  if (!mapping) throw new WisbridgeError('MAPPING_INVALID', problems.map(formatProblem).join('\n'), { details: { problems } });
  return mapping;
}
