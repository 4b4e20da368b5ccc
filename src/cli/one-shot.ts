import type { LoadedConfig } from '../config/load.js';
import { isWisbridgeError, WisbridgeError } from '../errors.js';
import type { Logger } from '../log.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../runtime/runtime.js';
import { InstanceLeases, newInstance } from '../service/instance.js';

/** What a one-shot command tells its user to do instead when a SQLite journal's instance runs. */
export interface OneShotOptions {
  /** E.g. `re-drive and resolve from its console`. */
  besideRunning: string;
  /** The mappings folder already loaded and checked (batch checks it before it starts). */
  mappings?: RuntimeOptions['mappings'];
}

/** retry and resolve. */
export const RE_DRIVE: OneShotOptions = { besideRunning: 're-drive and resolve from its console' };

/**
 * A one-shot command that writes (batch, process, retry, resolve) takes part as a short-lived instance, as `wisbridge
 * run` does: registered, its leases renewed by heartbeats while it runs, its claims, writes and sends fenced by them.
 * It retires at its end (its leases free at once); stopped by a signal, it leaves its leases to run out, as a request
 * may have been on the wire. A SQLite journal serves one instance: beside a running one, it is refused.
 */
export async function asInstance<T>(loaded: LoadedConfig, logger: Logger, signal: AbortSignal, options: OneShotOptions, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const { lease_ms: leaseMs, heartbeat_ms: heartbeatMs } = loaded.config.instance;
  const leases: InstanceLeases = new InstanceLeases(() => runtime.journal(), { leaseMs, heartbeatMs }, logger, signal);
  const runtime = createRuntime(loaded, { logger, signal, mappings: options.mappings, journalOptions: { instance: newInstance(), leaseMs }, leases });
  try {
    try {
      await leases.start();
    } catch (error) {
      if (!isWisbridgeError(error, 'JOURNAL') || loaded.journalFile === undefined) throw error;
      throw new WisbridgeError('JOURNAL', `${error.message}; beside a running instance, ${options.besideRunning}`, { cause: error });
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
