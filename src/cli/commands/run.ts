import { describeError } from '../../errors.js';
import { assertConfigReady } from '../../config/check.js';
import { loadConfig } from '../../config/load.js';
import { createLogger } from '../../log.js';
import { flowRunners } from '../../service/runners.js';
import { BridgeService } from '../../service/service.js';
import { parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge run [--config FILE]

Runs the bridge as a service until SIGTERM or SIGINT: watches the inbox of every inbound job with
watch: true, runs scheduled jobs (cron with time zones), raises alerts for expected files that have
not arrived by their cut-off, and serves /metrics and /healthz when the configuration has metrics:.
Shutdown finishes the request in flight and closes the journal within shutdown_timeout_ms.
Several instances may run on one PostgreSQL journal and the same drops (instance: lease_ms, heartbeat_ms): each file
is worked on by one of them at a time and each scheduled tick runs once; a SQLite journal serves one instance, and a
second run on it exits 2 saying which instance uses it.
Before it starts, everything \`wisbridge config check\` checks must hold: the configuration, every mapping, and
every secret it references. Exit codes: 0 stopped cleanly, 2 configuration or start-up error, 3 shutdown took too long.`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const file = values.config ?? 'wisbridge.yaml';
  const loaded = await loadConfig(file);
  const mappings = await assertConfigReady(file);
  const logger = createLogger({ level: process.env.WISBRIDGE_LOG_LEVEL ?? loaded.config.log.level });
  const service = new BridgeService(loaded, { runners: flowRunners, logger, mappings });
  let signals = 0;
  let stopped: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      logger.warn({ signal }, 'second signal: exiting now');
      logger.flush();
      process.exit(130);
    }
    // A bound on real time, whatever the jobs do; unref'd so that it never keeps a finished process alive.
    setTimeout(() => {
      logger.error({ timeoutMs: loaded.config.shutdown_timeout_ms }, 'shutdown took too long: exiting');
      logger.flush();
      process.exit(3);
    }, loaded.config.shutdown_timeout_ms).unref();
    stopped = service.stop(signal);
  };
  const done = new Promise<void>((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      onSignal(signal);
      void stopped?.then(resolve);
    };
    process.on('SIGTERM', handler);
    process.on('SIGINT', handler);
  });
  try {
    await service.start();
  } catch (error) {
    // The reason first, so the log reads as a refusal and not as a shutdown of work that never started.
    logger.error({ err: describeError(error) }, 'start-up failed');
    await service.stop('start-up failed');
    throw error;
  }
  await done;
  logger.flush();
  return 0;
}
