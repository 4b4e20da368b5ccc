import { isDropUnreachable } from '../drops/index.js';
import { describeError, isWisbridgeError } from '../errors.js';
import type { MissedFileAlert } from '../schedule/index.js';

export type AlertKind = 'missed-file' | 'drop-unreachable' | 'authentication';

export interface ConsoleAlert {
  kind: AlertKind;
  job: string;
  message: string;
  /** Last seen. */
  at: string;
  /** Times seen in a row (a drop that stays down fails at every poll). */
  count: number;
}

/** What a failed job run means for an operator: a drop that cannot be listed, a refused token, or nothing to alert. */
export function alertKindOf(error: unknown): AlertKind | undefined {
  if (isWisbridgeError(error, 'AUTHENTICATION')) return 'authentication';
  if (isDropUnreachable(error)) return 'drop-unreachable';
  return undefined;
}

/** The alerts of this process, newest last (missed files are kept by ExpectedFiles and merged in when read). */
export class AlertLog {
  private readonly alerts: ConsoleAlert[] = [];

  constructor(private readonly now: () => number = Date.now, private readonly keep = 200) {}

  /** Records a failed run when it is worth an alert; returns whether it was. */
  noteFailure(job: string, error: unknown): boolean {
    const kind = alertKindOf(error);
    if (!kind) return false;
    const message = describeError(error);
    const at = new Date(this.now()).toISOString();
    const last = this.alerts.findLast((a) => a.job === job);
    if (last && last.kind === kind && last.message === message) {
      last.at = at;
      last.count += 1;
      return true;
    }
    this.alerts.push({ kind, job, message, at, count: 1 });
    if (this.alerts.length > this.keep) this.alerts.shift();
    return true;
  }

  /** Newest first, with the missed-file alerts. */
  list(missed: readonly MissedFileAlert[] = []): ConsoleAlert[] {
    const fromMissed = missed.map((m): ConsoleAlert => ({
      kind: 'missed-file', job: m.job, at: m.cutoff, count: 1,
      message: `expected file /${m.pattern}/ has not arrived between ${m.since} and its cut-off ${m.cutoff}`,
    }));
    return [...this.alerts, ...fromMissed].sort((a, b) => b.at.localeCompare(a.at));
  }
}
