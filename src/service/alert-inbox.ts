import { alertKindOf } from '../console/index.js';
import { describeError } from '../errors.js';
import type { ConsoleJournal, NewAlert } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { JobSummary } from './types.js';

/**
 * The console's alert inbox in the journal, as the service fills it: one alert per subject (deduplicated there). A
 * journal that fails is logged, never thrown: an alert must not stop the run it is about.
 */
export class AlertInbox {
  constructor(
    private readonly journal: () => Promise<{ readonly console: Pick<ConsoleJournal, 'raiseAlert'> }>,
    private readonly logger: Logger,
  ) {}

  raise(alert: NewAlert): void {
    this.journal().then((j) => j.console.raiseAlert(alert)).catch((error: unknown) => {
      this.logger.warn({ err: describeError(error), alert: alert.kind }, 'could not record the alert in the journal');
    });
  }

  /** A failed run: an unreachable drop (one alert per drop), refused credentials, or any other failure of the job. */
  failure(job: string, drop: string | undefined, error: unknown): void {
    const kind = alertKindOf(error);
    const message = describeError(error);
    if (kind === 'drop-unreachable' && drop !== undefined) this.raise({ kind, subject: `drop:${drop}`, job, message: `drop ${drop} cannot be reached or listed: ${message}` });
    else this.raise({ kind: kind ?? 'job-failed', subject: `job:${job}`, job, message });
  }

  /** Files rejected, failed rows and uncertain rows of a run: one alert per file and kind. */
  summary(job: string, summary: JobSummary): void {
    for (const f of summary.files) {
      const about = { subject: f.fileId === undefined ? `file:${f.name}` : `file:${f.fileId}`, job, fileId: f.fileId ?? null };
      if (f.outcome === 'rejected') this.raise({ kind: 'file-rejected', ...about, message: `file ${f.name} was rejected as a whole: ${f.reason ?? ''}` });
      if (f.rows.error > 0) this.raise({ kind: 'file-failed', ...about, message: `file ${f.name}: ${f.rows.error} document(s) failed` });
      if (f.rows.uncertain > 0) this.raise({ kind: 'rows-uncertain', ...about, message: `file ${f.name}: ${f.rows.uncertain} document(s) with an unknown outcome: check them in the service, then resolve them` });
    }
  }
}
