import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { inspectConfigFile } from '../../config/check.js';
import { loadConfig } from '../../config/load.js';
import type { Config, SecretRef } from '../../config/schema.js';
import { SECRET_DROP_OPTIONS } from '../../drops/index.js';
import { WisbridgeError } from '../../errors.js';
import { camelToSnake, renameKeys } from '../../util/naming.js';
import { redactUrl } from '../../util/redact-url.js';
import { formatYamlProblem } from '../../util/yaml-document.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge config check [--config FILE] [--skip-secrets]
       wisbridge config show  [--config FILE]

check  validates the configuration file (default wisbridge.yaml), the mapping definitions it uses, every
       secret it references (environment variables set, token and key files readable) and the journal (the
       SQLite file opens, or its folder can be written; PostgreSQL accepts the login and the database exists;
       its schema is not newer than this bridge's), changing nothing: what \`wisbridge run\` and \`batch\` check
       before they start; and that each local drop's inbox is a folder the bridge can read (\`run\` starts
       without it and reports the drop unreachable until it appears). Prints every problem as FILE:LINE:COLUMN: message and exits 1 when there is any;
       warnings (an old spelling of an option) are printed too but do not fail.
       --skip-secrets checks the shape only (e.g. on a build machine without the production secrets, the
       database or the drops' folders).
show   prints the effective configuration: defaults filled in, environment overrides applied
       (WISBRIDGE_LOG_LEVEL, WISBRIDGE_METRICS_PORT), secrets shown only by where they come from.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, 'skip-secrets': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  }, true);
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
  const { problems, warnings } = await inspectConfigFile(file, { secrets: values['skip-secrets'] !== true, folders: values['skip-secrets'] !== true });
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
  const journal = typeof config.journal === 'string' ? config.journal : { ...config.journal, password: shownSecret(config.journal.password) };
  const webhook = config.alerts?.webhook;
  const alerts = config.alerts && {
    ...config.alerts,
    webhook: webhook && { ...webhook, url: typeof webhook.url === 'string' ? redactUrl(webhook.url) : shownSecret(webhook.url) },
  };
  return { ...config, journal, services, drops, ...(alerts ? { alerts } : {}) };
}
