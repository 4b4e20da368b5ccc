import { AlertLog, startConsole } from '../../console/index.js';
import { standaloneSource } from '../../service/standalone-console.js';
import { loadConfig } from '../../config/load.js';
import { WisbridgeError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { createRuntime } from '../../runtime/runtime.js';
import { endpointGuard } from '../../service/endpoint-auth.js';
import { startHealthServer } from '../../service/health.js';
import { drainOrAbort } from '../../service/shutdown.js';
import { ServiceMetrics } from '../../service/metrics.js';
import { intOption, parseCommandLine } from '../args.js';

const HELP = `usage: wisbridge console [--config FILE] [--host HOST] [--port N]

Serves the operations console (and /metrics, /healthz) without running any job: see every file, row and export
in the journal, re-drive failed rows, resolve uncertain rows, re-process rejected files. The configuration needs
a console: section (credentials by reference); the address is the metrics: one (default 127.0.0.1:9464) unless
--host / --port are given. Stops on SIGINT or SIGTERM. See docs/console.md.`;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    config: { type: 'string', short: 'c' }, host: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  const loaded = await loadConfig(values.config ?? 'wisbridge.yaml');
  if (!loaded.config.console) throw new WisbridgeError('USAGE', `${loaded.file} has no console: section: the console is off (see docs/console.md)`);
  const logger = createLogger({ level: process.env.WISBRIDGE_LOG_LEVEL ?? loaded.config.log.level });
  const controller = new AbortController();
  const metrics = new ServiceMetrics(async () => (await runtime.journal()).backlog());
  const runtime = createRuntime(loaded, {
    logger, signal: controller.signal,
    onFileConcluded: (event) => {
      metrics.onConcluded(event);
      logger.info({ ...event }, 'file concluded again');
    },
  });
  // Opened before the console starts: a journal that cannot be opened stops the command here.
  await runtime.journal();
  const startedAt = Date.now();
  const host = values.host ?? loaded.config.metrics?.host ?? '127.0.0.1';
  const port = intOption(values.port, 'port', loaded.config.metrics?.port ?? 9464);
  const source = standaloneSource(runtime, new AlertLog());
  const handler = await startConsole(loaded, source, metrics);
  const server = await startHealthServer(host, port, metrics, () => ({
    healthy: true, body: { status: 'ok', mode: 'console', uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) },
  }), handler, await endpointGuard(loaded, logger, metrics));
  logger.info({ url: `${server.url}/console` }, 'console ready (no jobs run in this process)');
  process.stdout.write(`console: ${server.url}/console\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  // A re-drive under way finishes (its requests are recorded as sent; the journal must stay open for their answers),
  // within the shutdown bound of `wisbridge run`; then what is still in flight is aborted.
  const abort = () => controller.abort(new Error('console stopped'));
  await drainOrAbort(source.actions.close(), loaded.config.shutdown_timeout_ms, abort, () => logger.warn('console stop: a re-drive is still running; aborting its requests'));
  abort();
  await runtime.close();
  logger.flush();
  return 0;
}
