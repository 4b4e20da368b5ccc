import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoadedConfig } from '../config/load.js';
import { ConsoleAuth } from './auth.js';
import { createConsoleHandler } from './server.js';
import type { ConsoleSource } from './source.js';

/**
 * The console's request handler for the bridge's listener. Without a `console:` section it only answers that the
 * console is off; its credentials are read here, so a missing secret stops the start with CONFIG_INVALID.
 */
export async function startConsole(loaded: LoadedConfig, source: ConsoleSource): Promise<(req: IncomingMessage, res: ServerResponse) => boolean> {
  const config = loaded.config.console;
  const auth = config ? await ConsoleAuth.fromConfig(loaded, config) : undefined;
  return createConsoleHandler(source, auth);
}
