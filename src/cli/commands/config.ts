import { readFile } from 'node:fs/promises';
import { checkConfigText, bindConfig } from '../../config/load.js';
import { WisbridgeError } from '../../errors.js';
import { checkMappings } from '../../mapping/load.js';
import { formatYamlProblem, type YamlProblem } from '../../util/yaml-document.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge config check [--config FILE]

Validates the configuration file (default wisbridge.yaml) and the mapping definitions it uses.
Prints every problem as FILE:LINE:COLUMN: message; exits 1 when there is any.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } }, true);
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (positionals[0] !== 'check' || positionals.length > 1) throw new WisbridgeError('USAGE', HELP);
  const file = values.config ?? 'wisbridge.yaml';
  const problems = await checkConfigFile(file);
  for (const p of problems) process.stderr.write(formatYamlProblem(p) + '\n');
  if (problems.length > 0) return 1;
  process.stdout.write(`${file}: ok\n`);
  return 0;
}

/** Every problem of a configuration file and of the mappings its jobs name. */
export async function checkConfigFile(file: string): Promise<YamlProblem[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new WisbridgeError('CONFIG_INVALID', `cannot read the configuration file ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const { config, problems, doc } = checkConfigText(text, file);
  if (!config || !doc) return problems;
  const loaded = bindConfig(config, file);
  const { mappings, problems: mappingProblems } = await checkMappings(loaded.mappingsDir);
  const known = new Map(mappings.map((m) => [m.name, m]));
  const missing: YamlProblem[] = [];
  const names = [
    ...config.inbound.flatMap((job, i) =>
      (job.mappings ?? []).map((m, j) => ({ mapping: m, direction: 'inbound' as const, path: ['inbound', i, 'mappings', j] }))),
    ...config.exports.map((job, i) => ({ mapping: job.mapping, direction: 'export' as const, path: ['exports', i, 'mapping'] })),
  ];
  for (const { mapping, direction, path } of names) {
    const found = known.get(mapping);
    const at = { file, ...doc.positionOf(path) };
    if (!found) missing.push({ ...at, message: `${path.join('.')}: no mapping named "${mapping}" in ${loaded.mappingsDir}` });
    else if (found.direction !== direction) missing.push({ ...at, message: `${path.join('.')}: "${mapping}" is an ${found.direction} mapping, not ${direction}` });
  }
  return [...mappingProblems, ...missing];
}
