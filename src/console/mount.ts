import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoadedConfig } from '../config/load.js';
import { ConsoleAuth } from './auth.js';
import { setDisplayZone } from './html.js';
import { createConsoleHandler } from './server.js';
import type { ConsoleSource } from './source.js';
import { SignInThrottle, throttledSignIns } from './throttle.js';

/**
 * The console's request handler for the bridge's listener. Without a `console:` section it only answers that the
 * console is off; its credentials are read here, so a missing secret stops the start with CONFIG_INVALID.
 */
/** Where refused and throttled sign-ins are counted (the service's `signInFailures` metric). */
export interface SignInCounter {
  inc(labels: { area: string; result: string }): void;
}

export async function startConsole(
  loaded: LoadedConfig, source: ConsoleSource, metrics?: { signInFailures: SignInCounter },
): Promise<(req: IncomingMessage, res: ServerResponse) => boolean> {
  const config = loaded.config.console;
  const throttle = new SignInThrottle('console', { logger: source.runtime.logger, onRefused: (area, result) => metrics?.signInFailures.inc({ area, result }) });
  const auth = config ? await ConsoleAuth.fromConfig(loaded, config) : undefined;
  setDisplayZone(config?.timezone);
  return throttledSignIns(createConsoleHandler(source, auth), throttle);
}
