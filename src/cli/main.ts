import { describeError, isWisbridgeError } from '../errors.js';
import { checkFailpoints } from '../failpoints.js';
import { applyV8Flags } from '../runtime/v8-flags.js';
import { didYouMean } from '../util/did-you-mean.js';
import { version } from '../util/version.js';

/** One entry per subcommand; each lives in ./commands/<name>.ts and exports `run(argv): Promise<number>`. */
export interface Command {
  summary: string;
  load: () => Promise<{ run: (argv: string[]) => Promise<number> }>;
}

export const COMMANDS: Record<string, Command> = {
  // command registry — one line per command, alphabetical
  batch: { summary: 'one pass over every configured inbound drop (and export job), then exit', load: () => import('./commands/batch.js') },
  config: { summary: 'check the configuration file and the mappings it uses, or show it in effect (secrets hidden)', load: () => import('./commands/config.js') },
  console: { summary: 'serve the operations console (web pages on the journal) without running jobs', load: () => import('./commands/console.js') },
  demo: { summary: 'the bridge end to end on this machine: emulator, samples, exports and inbound (no arguments)', load: () => import('./commands/demo.js') },
  emulator: { summary: 'run the Warehouse Integration Service emulator', load: () => import('./commands/emulator.js') },
  export: { summary: 'one export pass: work lists to the outbox, then acknowledge', load: () => import('./commands/export.js') },
  journal: { summary: 'journal retention (prune --older-than 30d), size (stats), and the move to PostgreSQL (migrate)', load: () => import('./commands/journal.js') },
  map: { summary: 'dry run: print the requests a CSV file would produce', load: () => import('./commands/map.js') },
  mappings: { summary: 'check mapping definitions, or test them on their samples', load: () => import('./commands/mappings.js') },
  process: { summary: 'process local files through the inbound pipeline (or --dry-run)', load: () => import('./commands/process.js') },
  resolve: { summary: 'mark uncertain rows applied or not applied after a person checked them', load: () => import('./commands/resolve.js') },
  retry: { summary: 're-drive the failed rows of a file once the cause is fixed', load: () => import('./commands/retry.js') },
  run: { summary: 'run the bridge as a service: inbox watchers, schedules, alerts, /metrics', load: () => import('./commands/run.js') },
  status: { summary: 'summarize the journal: backlog, recent files, failed and uncertain rows', load: () => import('./commands/status.js') },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(18)}${c.summary}`);
  return ['usage: wisbridge <command> [options]', '       wisbridge --version', '', 'commands:', ...lines, '', 'wisbridge <command> --help for its options'].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  applyV8Flags();
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`wisbridge ${version()}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`wisbridge: unknown command "${name}"${didYouMean(name, Object.keys(COMMANDS))}\n\n${usage()}\n`);
    return 2;
  }
  try {
    checkFailpoints();
    const module = await command.load();
    return await module.run(rest);
  } catch (error) {
    // User mistakes (typed errors) get one clear line; anything else is a bug and keeps its stack.
    if (isWisbridgeError(error)) {
      process.stderr.write(`wisbridge ${name}: ${describeError(error)}\n`);
    } else {
      process.stderr.write(`wisbridge ${name}: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    }
    return 2;
  }
}
