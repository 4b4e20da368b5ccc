import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { WisbridgeError } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { CheckCache, type Checked } from '../util/check-cache.js';
import { formatYamlProblem, type YamlProblem } from '../util/yaml-problem.js';
import type { MappingDefinition } from './definition-schema.js';
import { mappingBase } from './mapping-base.js';
import type { Mapping } from './mapping.js';

/*
 * A mappings folder read as a whole. Apart from the definition's check and compile steps (load.ts, mapping.ts: the
 * definition's schema, the contract's, the X12 plans), which are loaded only for a definition that needs them: `run`
 * and `batch` find every definition of an unchanged folder in the cache of checked ones and compile each when a file
 * first needs it, so that their start loads none of that (docs/performance.md, start-up).
 */

export interface CheckOptions {
  /**
   * 'on-use': a definition the cache holds (checked by this build, CheckCache) is compiled when its plan is first
   * read, not now. A definition not in the cache is checked and compiled at once: its problems are reported at load
   * as always. Default 'now' (`config check`, `mappings check`: every definition compiled).
   */
  compile?: 'now' | 'on-use';
}

type Compile = (definition: MappingDefinition, name: string, file: string) => Mapping;
let compiler: Compile | undefined;

/**
 * The compile step of the definitions compiled on use, handed over by the mapping layer's index when it loads: every
 * module outside the layer that reads a plan (the pipeline, the exports) imports the index (test/architecture), so it
 * is there before a plan is first read.
 */
export function useCompiler(compile: Compile): void {
  compiler = compile;
}

/**
 * A checked definition whose plan (`inbound`, `export`) is compiled on first read; its names, direction, dialect and
 * file patterns are there at once. Its compile failing would mean the compile steps changed under the same cache
 * stamp, which a build does not do: MAPPING_INVALID names the file and sends to `wisbridge mappings check`.
 */
function compiledOnUse(checked: Checked<MappingDefinition>, file: string): Mapping {
  const name = checked.data.name ?? basename(file).replace(/\.ya?ml$/i, '');
  let compiled: Mapping | undefined;
  const plan = (): Mapping => {
    if (compiled) return compiled;
    if (!compiler) throw new Error(`the plan of mapping "${name}" was read before the mapping layer's index was loaded`);
    try {
      compiled = compiler(checked.data, name, file);
    } catch (error) {
      const at = (error as { path?: unknown }).path;
      const where = Array.isArray(at) && at.length > 0 ? `${at.join('.')}: ` : '';
      throw new WisbridgeError('MAPPING_INVALID', `${file}: ${where}${(error as Error).message} (wisbridge mappings check names its place)`, { cause: error });
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

/** Reads every *.yaml definition of a folder; checks all of them and reports every problem (`options`: CheckOptions). */
export async function checkMappings(dir: string, cache = CheckCache.open<MappingDefinition>('mappings', dir), options: CheckOptions = {}): Promise<{ mappings: Mapping[]; problems: YamlProblem[]; warnings: YamlProblem[] }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch (error) {
    throw new WisbridgeError('MAPPING_NOT_FOUND', `cannot read the mappings folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const mappings: Mapping[] = [];
  const problems: YamlProblem[] = [];
  const warnings: YamlProblem[] = [];
  const seen = new Map<string, string>();
  for (const n of names) {
    const file = join(dir, n);
    const text = await readFile(file, 'utf8');
    const checked = options.compile === 'on-use' ? cache.get(file, text) : undefined;
    const result = checked
      ? { mapping: compiledOnUse(checked, file), problems: [], warnings: checked.warnings }
      : (await import('./load.js')).parseMapping(text, file, cache);
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
    throw new WisbridgeError('MAPPING_INVALID', problems.map(formatYamlProblem).join('\n'), { details: { problems } });
  }
  return mappingSet(mappings);
}
