import type { InboundJob } from '../config/schema.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import type { OperatorJournal } from '../journal/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import type { Clock } from './clock.js';
import { scheduleOf, type CalendarSchedule, type MissedFileAlert } from '../schedule/index.js';
import type { ServiceMetrics } from './metrics.js';
import type { ScheduleEntry } from './scheduler.js';

interface Expectation {
  job: InboundJob;
  pattern: string;
  regex: RegExp;
  /** When the file is due ("by 06:00"), on the calendar's working days. */
  due: CalendarSchedule;
  /** When a missing file is alerted: the due time plus the grace period. */
  cutoff: CalendarSchedule;
}

/**
 * Expected files (`expect:` of an inbound job). At each cut-off, a file whose name matches must have
 * arrived since the previous cut-off: seen by this process (watcher or batch), claimed in the journal,
 * or lying in the inbox. Otherwise an alert goes to the log (warn) and the metrics.
 */
export class ExpectedFiles {
  /** One per `expect:` entry of every inbound job, in the order of the configuration. */
  readonly expectations: Expectation[] = [];
  private readonly arrivals = new Map<string, Array<{ name: string; at: number }>>();
  readonly alerts: MissedFileAlert[] = [];
  /** Cut-offs checked so far (tests wait on it). */
  checked = 0;

  constructor(
    private readonly runtime: RuntimeParts<'loaded' | 'drop', Pick<OperatorJournal, 'listFiles'>>,
    private readonly clock: Clock,
    private readonly metrics: ServiceMetrics,
    private readonly logger: Logger,
    /** Pushes each missed-file alert on (the webhook). */
    private readonly notify?: (alert: MissedFileAlert) => void,
  ) {}

  add(job: InboundJob): ScheduleEntry[] {
    return job.expect.map((e, i) => {
      const { config } = this.runtime.loaded;
      const expectation: Expectation = {
        job, pattern: e.pattern, regex: new RegExp(e.pattern, 'i'), due: scheduleOf(e.cutoff, config), cutoff: scheduleOf(e.cutoff, config, e.grace_minutes * 60_000),
      };
      this.expectations.push(expectation);
      this.metrics.expectedMissing.set({ job: job.name, pattern: e.pattern }, 0);
      return { key: `expect:${job.name}#${i}`, schedule: expectation.cutoff, onTick: async (at: number, signal?: AbortSignal) => { await this.check(expectation, at, signal); } };
    });
  }

  /** A file reached the job (watcher found it, or a pass processed it). */
  noteArrival(job: string, name: string): void {
    const now = this.clock.now();
    const list = this.arrivals.get(job) ?? [];
    list.push({ name, at: now });
    // Only the window since the oldest cut-off matters; keep the list short.
    if (list.length > 1000) list.splice(0, list.length - 1000);
    this.arrivals.set(job, list);
    for (const e of this.expectations) {
      if (e.job.name === job && e.regex.test(name)) this.metrics.expectedMissing.set({ job, pattern: e.pattern }, 0);
    }
  }

  /** `signal`: the check's tick was taken over by another instance, which checks and alerts in its place. */
  async check(e: Expectation, cutoffAt: number, signal?: AbortSignal): Promise<MissedFileAlert | undefined> {
    // The window runs from the previous alert time (the previous working day's, over weekends and holidays).
    const since = e.cutoff.previous(cutoffAt - 1) ?? cutoffAt - 24 * 3600_000;
    if (await this.arrivedSince(e, since)) {
      this.metrics.expectedMissing.set({ job: e.job.name, pattern: e.pattern }, 0);
      this.checked += 1;
      return undefined;
    }
    this.checked += 1;
    if (signal?.aborted) return undefined;
    const alert: MissedFileAlert = { job: e.job.name, pattern: e.pattern, cutoff: new Date(cutoffAt).toISOString(), since: new Date(since).toISOString() };
    this.alerts.push(alert);
    if (this.alerts.length > 100) this.alerts.shift();
    this.metrics.missedFiles.inc({ job: e.job.name, pattern: e.pattern });
    this.metrics.expectedMissing.set({ job: e.job.name, pattern: e.pattern }, 1);
    this.logger.warn({ alert: 'missed-file', ...alert, timezone: e.cutoff.timezone },
      `expected file /${e.pattern}/ for job ${e.job.name} has not arrived by its cut-off`);
    this.notify?.(alert);
    return alert;
  }

  private async arrivedSince(e: Expectation, since: number): Promise<boolean> {
    if ((this.arrivals.get(e.job.name) ?? []).some((a) => a.at >= since && e.regex.test(a.name))) return true;
    try {
      const journal = await this.runtime.journal();
      const files = await journal.listFiles({ since: new Date(since).toISOString(), limit: 10_000 });
      if (files.some((f) => e.regex.test(f.name))) return true;
    } catch (error) {
      this.logger.warn({ err: describeError(error), job: e.job.name }, 'expected files: the journal could not be read');
    }
    try {
      const drop = await this.runtime.drop(e.job.drop);
      const inbox = await drop.list('inbox');
      if (inbox.some((f) => e.regex.test(f.name))) return true;
    } catch (error) {
      this.logger.warn({ err: describeError(error), job: e.job.name }, 'expected files: the inbox could not be listed');
    }
    return false;
  }
}
