import { checkConfigFile } from '../../config/check.js';
import { WisbridgeError } from '../../errors.js';
import { formatYamlProblem } from '../../util/yaml-document.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge config check [--config FILE] [--skip-secrets]

Validates the configuration file (default wisbridge.yaml), the mapping definitions it uses, and every secret it
references (environment variables set, token and key files readable) — what \`wisbridge run\` checks before it starts.
--skip-secrets checks the shape only (e.g. on a build machine without the production secrets).
Prints every problem as FILE:LINE:COLUMN: message; exits 1 when there is any.`;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, 'skip-secrets': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  }, true);
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (positionals[0] !== 'check' || positionals.length > 1) throw new WisbridgeError('USAGE', HELP);
  const file = values.config ?? 'wisbridge.yaml';
  const problems = await checkConfigFile(file, { secrets: values['skip-secrets'] !== true });
  for (const p of problems) process.stderr.write(formatYamlProblem(p) + '\n');
  if (problems.length > 0) return 1;
  process.stdout.write(`${file}: ok\n`);
  return 0;
}
