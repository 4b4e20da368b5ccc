import { intOption, parseCommandLine } from '../args.js';
import { WisbridgeError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { startEmulator, type Scale } from '../../emulator/index.js';

const HELP = `usage: wisbridge emulator [options]

Runs the Warehouse Integration Service emulator (see docs/emulator.md).

  --port N          port to listen on (default 4010; 0 picks a free port)
  --host H          address to bind (default 127.0.0.1)
  --db FILE         SQLite file for the state (default: in memory); state survives restarts on the same file
  --seed N          seed of the generated data (default 1)
  --scale S         small | medium | large (default small)
  --secret S        HS256 secret of the tokens (default: the documented dev secret, or $WISBRIDGE_EMULATOR_SECRET)
  --today DATE      the emulator's date, YYYY-MM-DD (default: the clock)
`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    port: { type: 'string' }, host: { type: 'string' }, db: { type: 'string' }, seed: { type: 'string' },
    scale: { type: 'string' }, secret: { type: 'string' }, today: { type: 'string' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const port = intOption(values.port, 'port', 4010);
  if (port > 65535) throw new WisbridgeError('USAGE', `--port must be at most 65535, got ${port}`);
  const scale = values.scale ?? 'small';
  if (!['small', 'medium', 'large'].includes(scale)) throw new WisbridgeError('USAGE', `--scale must be small, medium or large, got "${scale}"`);
  const logger = createLogger();
  const emulator = await startEmulator({
    port, host: values.host, db: values.db, seed: intOption(values.seed, 'seed', 1), scale: scale as Scale,
    secret: values.secret, today: values.today, logger,
  });
  process.stdout.write(`emulator listening on ${emulator.url}\n`);
  process.stdout.write(`admin API: ${emulator.url}/_admin/state · token: curl -s -X POST ${emulator.url}/_admin/tokens -d '{"warehouses":[1]}'\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await emulator.close();
  return 0;
}
