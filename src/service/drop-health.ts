import { describeError, isWisbridgeError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Clock } from './clock.js';
import type { ServiceMetrics } from './metrics.js';

/** A drop whose inbox cannot be listed (server down, host key changed, credentials refused, folder gone). */
export interface DropProblem {
  drop: string;
  /** The error, secret-free (`DROP_HOST_KEY: ...`). */
  reason: string;
  since: string;
  failures: number;
}

/**
 * Whether each drop can be listed, as the watchers and inbound runs find out. A drop that cannot be listed makes
 * /healthz degraded, sets `wisbridge_drop_up` to 0 and is logged at error level when it starts failing (or fails
 * differently); its recovery is logged once.
 */
export class DropHealth {
  private readonly failing = new Map<string, DropProblem>();

  constructor(private readonly metrics: ServiceMetrics, private readonly logger: Logger, private readonly clock: Clock) {}

  listed(drop: string): void {
    this.metrics.dropUp.set({ drop }, 1);
    const problem = this.failing.get(drop);
    if (!problem) return;
    this.failing.delete(drop);
    this.logger.info({ drop, failures: problem.failures, since: problem.since }, 'the drop can be listed again');
  }

  failed(drop: string, error: unknown): void {
    const reason = describeError(error);
    const code = isWisbridgeError(error) ? error.code : 'UNKNOWN';
    this.metrics.dropUp.set({ drop }, 0);
    this.metrics.dropListFailures.inc({ drop, code });
    const known = this.failing.get(drop);
    if (known && known.reason === reason) {
      known.failures += 1;
      return;
    }
    this.failing.set(drop, { drop, reason, since: new Date(this.clock.now()).toISOString(), failures: (known?.failures ?? 0) + 1 });
    this.logger.error({ drop, err: reason }, 'the drop cannot be listed: its files wait until it can');
  }

  get problems(): DropProblem[] {
    return [...this.failing.values()];
  }
}
