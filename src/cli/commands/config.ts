import { access } from 'node:fs/promises';
import { isAbsolute, resolve, dirname } from 'node:path';
import { stringify } from 'yaml';
import { bindConfig, checkConfigText, loadConfig, readConfigText } from '../../config/load.js';
import type { Config, SecretRef } from '../../config/schema.js';
import { SECRET_DROP_OPTIONS } from '../../drops/options.js';
import { WisbridgeError } from '../../errors.js';
import { checkMappings } from '../../mapping/load.js';
import { camelToSnake, renameKeys } from '../../util/naming.js';
import { formatYamlProblem, type PositionedYaml, type YamlProblem } from '../../util/yaml-document.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge config check [--config FILE]
       wisbridge config show  [--config FILE]

check  validates the configuration file (default wisbridge.yaml) and the mapping definitions it uses.
       Prints every problem as FILE:LINE:COLUMN: message and exits 1 when there is any; warnings (an old
       spelling of an option, a secret's variable or file missing here) are printed too but do not fail.
show   prints the effective configuration: defaults filled in, environment overrides applied
       (WISBRIDGE_LOG_LEVEL, WISBRIDGE_METRICS_PORT), secrets shown only by where they come from.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } }, true);
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const file = values.config ?? 'wisbridge.yaml';
  if (positionals[0] === 'show' && positionals.length === 1) {
    const loaded = await loadConfig(file);
    for (const w of loaded.warnings) process.stderr.write(`${formatYamlProblem(w)} (warning)\n`);
    process.stdout.write(`# effective configuration of ${resolve(file)}: defaults filled in, secrets not shown\n${stringify(effectiveConfig(loaded.config))}`);
    return 0;
  }
  if (positionals[0] !== 'check' || positionals.length > 1) throw new WisbridgeError('USAGE', HELP);
  const { problems, warnings } = await inspectConfigFile(file);
  for (const w of warnings) process.stderr.write(`${formatYamlProblem(w)} (warning)\n`);
  for (const p of problems) process.stderr.write(formatYamlProblem(p) + '\n');
  if (problems.length > 0) return 1;
  process.stdout.write(`${file}: ok\n`);
  return 0;
}

const shownSecret = (ref: SecretRef | undefined) => ref && ('env' in ref ? `[secret from environment variable ${ref.env}]` : `[secret from file ${ref.file}]`);

/** The configuration as the file would write it (snake_case), every secret replaced by where it comes from. */
export function effectiveConfig(config: Config): Record<string, unknown> {
  const services = Object.fromEntries(Object.entries(config.services).map(([name, s]) => [name, { ...s, token: shownSecret(s.token) }]));
  const drops = Object.fromEntries(Object.entries(config.drops).map(([name, drop]) => {
    const shown: Record<string, unknown> = { ...drop };
    for (const key of SECRET_DROP_OPTIONS) if (shown[key] !== undefined) shown[key] = shownSecret(shown[key] as SecretRef);
    return [name, renameKeys(shown, camelToSnake)];
  }));
  return { ...config, services, drops };
}

/** Every problem of a configuration file and of the mappings its jobs name. */
export async function checkConfigFile(file: string): Promise<YamlProblem[]> {
  return (await inspectConfigFile(file)).problems;
}

/** Problems (the file cannot be used) and warnings (old spellings, secrets not reachable from here). */
export async function inspectConfigFile(file: string): Promise<{ problems: YamlProblem[]; warnings: YamlProblem[] }> {
  const text = await readConfigText(file);
  const { config, problems, warnings, doc } = checkConfigText(text, file);
  if (!config || !doc) return { problems, warnings };
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
  return { problems: [...mappingProblems, ...missing], warnings: [...warnings, ...(await unreachableSecrets(config, file, doc))] };
}

/** Secrets whose variable is not set or whose file cannot be read here (the service would fail to start with them). */
async function unreachableSecrets(config: Config, file: string, doc: PositionedYaml): Promise<YamlProblem[]> {
  const refs: Array<{ path: (string | number)[]; ref: SecretRef }> = [
    ...Object.entries(config.services).map(([name, s]) => ({ path: ['services', name, 'token'], ref: s.token })),
    ...Object.entries(config.drops).flatMap(([name, drop]) => SECRET_DROP_OPTIONS
      .filter((key) => (drop as Record<string, unknown>)[key] !== undefined)
      .map((key) => ({ path: ['drops', name, camelToSnake(key)], ref: (drop as Record<string, unknown>)[key] as SecretRef }))),
  ];
  const warnings: YamlProblem[] = [];
  for (const { path, ref } of refs) {
    let reason: string | undefined;
    if ('env' in ref) reason = process.env[ref.env]?.trim() ? undefined : `environment variable ${ref.env} is not set here`;
    else {
      const target = isAbsolute(ref.file) ? ref.file : resolve(dirname(resolve(file)), ref.file);
      reason = await access(target).then(() => undefined, () => `file ${target} cannot be read here`);
    }
    if (reason) warnings.push({ file, ...doc.positionOf(path), message: `${path.join('.')}: ${reason}` });
  }
  return warnings;
}
