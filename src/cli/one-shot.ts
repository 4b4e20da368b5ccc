import type { LoadedConfig } from '../config/load.js';
import { isWisbridgeError, WisbridgeError } from '../errors.js';
import type { Logger } from '../log.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { InstanceLeases, newInstance } from '../service/instance.js';

/**
 * A one-shot command that writes a file's rows (retry, resolve) takes part as a short-lived instance, as `wisbridge
 * run` does: registered, its leases renewed by heartbeats while it runs, its writes and sends fenced by them. It
 * retires at its end (its leases free at once); stopped by a signal, it leaves its leases to run out, as a request
 * may have been on the wire. A SQLite journal serves one instance: beside a running one, it is refused.
 */
export async function asInstance<T>(loaded: LoadedConfig, logger: Logger, signal: AbortSignal, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const { lease_ms: leaseMs, heartbeat_ms: heartbeatMs } = loaded.config.instance;
  const leases: InstanceLeases = new InstanceLeases(() => runtime.journal(), { leaseMs, heartbeatMs }, logger, signal);
  const runtime = createRuntime(loaded, { logger, signal, journalOptions: { instance: newInstance(), leaseMs }, leases });
  try {
    try {
      await leases.start();
    } catch (error) {
      if (!isWisbridgeError(error, 'JOURNAL') || loaded.journalFile === undefined) throw error;
      throw new WisbridgeError('JOURNAL', `${error.message}; beside a running instance, re-drive and resolve from its console`, { cause: error });
    }
    const result = await work(runtime);
    await leases.retire();
    return result;
  } catch (error) {
    await (signal.aborted ? leases.halt() : leases.retire());
    throw error;
  } finally {
    await runtime.close();
  }
}
