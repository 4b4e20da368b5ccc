import type { Config } from '../config/schema.js';
import type { AlertLog, ProgressRegistry } from '../console/index.js';
import { isDropUnreachable } from '../drops/index.js';
import { describeError, isWisbridgeError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Schedule as TickSchedule } from '../schedule/index.js';
import type { AlertInbox } from './alert-inbox.js';
import type { AlertNotifier } from './alerts.js';
import type { Clock } from './clock.js';
import type { DropHealth } from './drop-health.js';
import type { ServiceMetrics } from './metrics.js';
import { logRowsNeedingAttention } from './row-log.js';
import type { JobSlot, Trigger } from './slot.js';
import type { JobSummary } from './types.js';

export interface LastRun {
  trigger: Trigger;
  startedAt: string;
  finishedAt: string;
  /** partial: the run finished, but some files were rejected or some rows failed or are uncertain. */
  result: 'ok' | 'partial' | 'failed' | 'aborted';
  files: number;
  rows: { ok: number; error: number; skipped: number; uncertain: number };
  exports: number;
  records: number;
  error?: string;
}

/** A configured job as the service runs it: its slot (one run at a time), its schedule, and its last run. */
export interface JobState {
  name: string;
  kind: 'inbound' | 'export';
  /** The drop an inbound job lists (its health is the drop's). */
  drop?: string;
  slot: JobSlot;
  schedule?: TickSchedule;
  catchUp: boolean;
  run: (signal: AbortSignal) => Promise<JobSummary>;
  last?: LastRun;
}

/** Where a job run's outcome goes: the log, metrics, alerts (webhook, console), the drops' health, the live progress. */
export interface RunReporting {
  readonly config: Config;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: ServiceMetrics;
  readonly drops: DropHealth;
  readonly progress: ProgressRegistry;
  readonly alertLog: AlertLog;
  readonly alertInbox: AlertInbox;
  readonly alerts: AlertNotifier | undefined;
  /** The soft stop: a run that fails once it aborted was aborted, not failed. */
  readonly stopSignal: AbortSignal;
  readonly journal: Parameters<typeof logRowsNeedingAttention>[0];
}

/** The bookkeeping of a job's runs: each run's summary becomes its LastRun, its metrics, log lines and alerts. */
export class JobRuns {
  constructor(private readonly to: RunReporting) {}

  /**
   * One run of a job; `file`: the one file it works on (a watched file), whose live progress ends with it; `signal`:
   * what stops it (the soft stop, and a scheduled run's tick taken over by another instance).
   */
  async execute(job: JobState, trigger: Trigger, run: JobState['run'], file?: string, signal = this.to.stopSignal): Promise<boolean> {
    const { clock, metrics, drops, alertLog, alertInbox, alerts } = this.to;
    const log = this.to.logger.child({ job: job.name });
    const startedAt = new Date(clock.now()).toISOString();
    log.info({ event: 'job.run.started', trigger }, 'job run started');
    let summary: JobSummary = { files: [], exports: [] };
    let result: LastRun['result'] = 'ok';
    let error: string | undefined;
    try {
      summary = await run(signal);
      if (job.drop !== undefined && trigger !== 'watch') drops.listed(job.drop);
      metrics.onSummary(job.name, summary);
      await logRowsNeedingAttention(this.to.journal, log, summary);
      if (summary.files.some(needsAttention)) result = 'partial';
      await alerts?.onSummary(job.name, summary);
      alertInbox.summary(job.name, summary);
    } catch (e) {
      result = signal.aborted && (isWisbridgeError(e, 'ABORTED') || isWisbridgeError(e, 'LEASE_LOST') || isAbort(e)) ? 'aborted' : 'failed';
      error = describeError(e);
      if (job.drop !== undefined && isDropUnreachable(e)) drops.failed(job.drop, e);
      if (result === 'failed') {
        log.error({ event: 'job.run.failed', trigger, err: isWisbridgeError(e) ? error : e }, 'job run failed');
        alertLog.noteFailure(job.name, e);
        const config = [...this.to.config.inbound, ...this.to.config.exports].find((j) => j.name === job.name);
        alerts?.onJobFailed(job.name, config?.drop, e);
        alertInbox.failure(job.name, config?.drop, e);
      }
    } finally {
      this.to.progress.end(job.name, file);
    }
    const rows = { ok: 0, error: 0, skipped: 0, uncertain: 0 };
    for (const f of summary.files) for (const k of Object.keys(rows) as Array<keyof typeof rows>) rows[k] += f.rows[k];
    job.last = {
      trigger, startedAt, finishedAt: new Date(clock.now()).toISOString(), result, files: summary.files.length, rows,
      exports: summary.exports.filter((e) => e.kind !== 'result').length, records: summary.exports.reduce((n, e) => n + (e.kind === 'result' ? 0 : e.records), 0),
      ...(error === undefined ? {} : { error }),
    };
    metrics.jobRuns.inc({ job: job.name, trigger, result });
    metrics.lastRun.set({ job: job.name }, clock.now() / 1000);
    const finished = { event: 'job.run.finished', trigger, result, files: job.last.files, rows, exports: job.last.exports, records: job.last.records };
    if (result === 'partial') log.warn(finished, 'job run finished: some files were rejected or some rows need attention');
    else if (result !== 'failed') log.info(finished, 'job run finished');
    return result === 'ok' || result === 'partial';
  }

  /** A run not started because the job's previous run is still busy: counted and logged. */
  skipped(job: JobState, trigger: Trigger): void {
    this.to.metrics.skippedRuns.inc({ job: job.name });
    this.to.logger.warn({ job: job.name, trigger, busyWith: job.slot.runningTrigger }, 'run skipped: the previous run of this job is still busy');
  }
}

/** A file rejected as a whole, or with rows that failed or whose outcome is unknown. */
function needsAttention(file: JobSummary['files'][number]): boolean {
  return file.outcome === 'rejected' || file.outcome === 'failed' || file.rows.error > 0 || file.rows.uncertain > 0;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
