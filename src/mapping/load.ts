import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { WisbridgeError } from '../errors.js';
import { INBOUND_DOCUMENTS, mappingDefinitionSchema, type InboundDocument, type MappingDefinition, type NodeSpec } from './definition-schema.js';
import { compileMapping, type Mapping } from './mapping.js';
import { DefinitionError, DefinitionErrors } from './values.js';
import { formatYamlProblem, parseYamlWithSchema, type PositionedYaml, type YamlProblem } from '../util/yaml-document.js';
import { isRecord } from '../util/schema-keys.js';
import { checkTargets } from './targets.js';
import type { CheckCache } from '../util/check-cache.js';

/** One problem of a definition file, with its YAML position (1-based). */
export type DefinitionProblem = YamlProblem;

export const formatProblem = formatYamlProblem;

/** Keys of the definition format that were renamed (old name → new name): the old one is still read, with a warning. */
const RENAMED_KEYS: Readonly<Record<string, string>> = { resolve: 'id_of' };

/**
 * Parses, validates and compiles one definition; every problem found is returned (nothing thrown). `warnings`
 * (a key under its old name) do not stop it; the mapping carries them too, for whoever loads it to report.
 */
export function parseMapping(text: string, file: string, cache?: CheckCache<MappingDefinition>): { mapping?: Mapping; problems: DefinitionProblem[]; warnings: DefinitionProblem[] } {
  const checked = cache?.get(file, text);
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
