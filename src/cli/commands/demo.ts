import { runDemo } from '../../demo/demo.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge demo [--dir DIR] [--keep-emulator]

Runs the bridge end to end on this machine, with nothing but loopback: starts the service emulator
in this process, makes a fresh folder (default ./demo, wiped on every run), writes a configuration,
copies the sample WMS files into the inbox, runs an export pass and an inbound pass, and prints
where the work lists and result files are, with a summary per export and per file.
--keep-emulator  keep the emulator serving afterwards (prints its URL and a token) until Ctrl-C.`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, { dir: { type: 'string' }, 'keep-emulator': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const keep = values['keep-emulator'] === true;
  const result = await runDemo({ dir: values.dir ?? 'demo', out: process.stdout, keepEmulator: keep });
  if (!keep) return result.exitCode;
  const token = result.emulator.mintToken([1, 2], 24 * 3600);
  process.stdout.write([
    '',
    `the emulator keeps serving at ${result.emulator.url} until Ctrl-C. Try:`,
    `  curl -H "Authorization: Bearer $TOKEN" ${result.emulator.url}/v1/customer-shipments.json`,
    `  curl ${result.emulator.url}/_admin/state?only=inventory`,
    `  wisbridge status --config ${result.config}`,
    `TOKEN=${token}`,
    '',
  ].join('\n'));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await result.emulator.close();
  return result.exitCode;
}
