import type { Runtime } from '../runtime/runtime.js';
import type { ConsoleAlert } from './alerts.js';
import type { ProgressRegistry } from './progress.js';

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

/** What the console reads and acts through: the service under `wisbridge run`, or the configuration alone (`wisbridge console`). */
export interface ConsoleSource {
  readonly mode: 'run' | 'console';
  readonly runtime: Runtime;
  readonly progress: ProgressRegistry;
  jobs(): JobView[];
  alerts(): ConsoleAlert[];
}


