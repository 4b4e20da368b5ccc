import type { RedriveJournal, ResolveJournal } from '../pipeline/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import type { ConsoleAlert } from './alerts.js';
import type { ProgressRegistry } from './progress.js';
import type { ConsoleSide } from './respond.js';

/**
 * What the console takes of the runtime: the parts its pages and actions use, and the journal as its pages read it and
 * as a re-drive and a resolution use it.
 */
export type ConsoleRuntime = RuntimeParts<'loaded' | 'logger' | 'client' | 'drop' | 'onFileConcluded' | 'leases', ConsoleSide & RedriveJournal & ResolveJournal>;

export interface JobView {
  name: string;
  kind: 'inbound' | 'export';
  drop: string;
  /** `0 2 * * * (Europe/Berlin)`, or null without a schedule. */
  schedule: string | null;
  watch: boolean;
  nextRun: string | null;
  lastRun: { at: string; result?: string; trigger?: string; files?: number; rows?: Record<string, number>; error?: string } | null;
  running: boolean;
}

/**
 * Operator actions under way (a re-drive sends requests and rewrites a result file): the process waits for them
 * before it closes the journal, and starts none once it is stopping.
 */
export class ActionsInFlight {
  readonly #running = new Set<Promise<void>>();
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  run<T>(action: () => Promise<T>): Promise<T> {
    const started = action();
    const settled: Promise<void> = started.then(() => undefined, () => undefined).finally(() => this.#running.delete(settled));
    this.#running.add(settled);
    return started;
  }

  /** No new action from now on; resolves once those under way have ended. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#running]);
  }
}

/** What the console reads and acts through: the service under `wisbridge run`, or the configuration alone (`wisbridge console`). */
export interface ConsoleSource {
  readonly mode: 'run' | 'console';
  readonly runtime: ConsoleRuntime;
  readonly progress: ProgressRegistry;
  readonly actions: ActionsInFlight;
  jobs(): Promise<JobView[]>;
  alerts(): ConsoleAlert[];
}


