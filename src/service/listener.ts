import type { LoadedConfig } from '../config/load.js';
import { startConsole, type ConsoleSource } from '../console/index.js';
import type { Logger } from '../log.js';
import { endpointGuard } from './endpoint-auth.js';
import { startHealthServer, type HealthServer } from './health.js';
import type { ServiceMetrics } from './metrics.js';

/**
 * The bridge's HTTP listener: /metrics, /healthz and the console, on `metrics:`'s address (the default port when only
 * `console:` is set). Undefined when the configuration asks for neither.
 */
export async function startListener(
  loaded: LoadedConfig, console: ConsoleSource, metrics: ServiceMetrics, logger: Logger,
  healthReport: () => { healthy: boolean; body: Record<string, unknown> },
): Promise<HealthServer | undefined> {
  const { metrics: metricsConfig, console: consoleConfig } = loaded.config;
  if (!metricsConfig && !consoleConfig) return undefined;
  const listen = metricsConfig ?? { host: '127.0.0.1', port: 9464 };
  const consoleHandler = await startConsole(loaded, console, metrics);
  const guard = await endpointGuard(loaded, logger, metrics);
  return startHealthServer(listen.host, listen.port, metrics, healthReport, consoleHandler, guard);
}

/** The line that says where the listener answers. */
export function logListening(loaded: LoadedConfig, health: HealthServer, logger: Logger): void {
  const consoleUrl = loaded.config.console ? `${health.url}/console` : undefined;
  logger.info({ url: health.url, console: consoleUrl },
    `${consoleUrl ? `console on ${consoleUrl}` : 'console off (no console: section)'}; metrics on ${health.url}/metrics, health on ${health.url}/healthz`);
}
