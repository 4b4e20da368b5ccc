import type { LoadedConfig } from '../config/load.js';
import type { InboundJob } from '../config/schema.js';
import { describeError, isWisbridgeError } from '../errors.js';
import { isDropUnreachable } from '../drops/index.js';
import type { OperatorJournal } from '../journal/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import type { MissedFileAlert } from '../schedule/index.js';
import type { JobSummary } from './types.js';
import type { Logger } from '../log.js';
import type { AlertInbox } from './alert-inbox.js';
import type { ServiceMetrics } from './metrics.js';
import { WebhookSender, type Alert } from './webhook.js';

/** A drop that keeps failing raises one alert per this period, not one per poll. */
export const DROP_ALERT_REPEAT_MS = 60 * 60 * 1000;
/** Uncertain rows listed in a rows-uncertain alert (the count is always complete). */
const ROWS_IN_ALERT = 10;

/**
 * The webhook and the notifier that feeds it, when `alerts.webhook` is configured: every delivery is counted, and one
 * the sender gave up on is raised in the console's alert inbox.
 */
export function webhookAlerts(
  loaded: LoadedConfig, runtime: NotifierRuntime,
  service: { logger: Logger; now: () => number; metrics: Pick<ServiceMetrics, 'webhookAlerts'>; inbox: Pick<AlertInbox, 'raise'> },
): { webhook: WebhookSender; notifier: AlertNotifier } | undefined {
  const config = loaded.config.alerts?.webhook;
  if (!config) return undefined;
  const webhook = new WebhookSender(loaded, config, {
    logger: service.logger, now: service.now, onResult: (kind, result) => {
      service.metrics.webhookAlerts.inc({ kind, result });
      if (result === 'failed') service.inbox.raise({ kind: 'webhook-failed', subject: 'webhook', message: `the webhook could not deliver a ${kind} alert: it gave up after its retries (see the bridge log)` });
    },
  });
  return { webhook, notifier: new AlertNotifier(webhook, runtime, service.now) };
}

type NotifierRuntime = RuntimeParts<never, Pick<OperatorJournal, 'uncertainItems'>>;

/** Turns what the service sees into webhook alerts (see docs/operations.md for the payloads). */
export class AlertNotifier {
  private readonly dropAlerted = new Map<string, number>();

  constructor(private readonly sender: WebhookSender, private readonly runtime: NotifierRuntime, private readonly now: () => number) {}

  /** Failed and rejected files, and uncertain rows, of one job run. */
  async onSummary(job: string, summary: JobSummary): Promise<void> {
    for (const f of summary.files) {
      const base = { job, file: f.name, fileId: f.fileId, rows: f.rows, resultFile: f.resultFile };
      if (f.outcome === 'rejected') {
        this.sender.send({ kind: 'file-rejected', message: `file ${f.name} was rejected as a whole: ${f.reason ?? ''}`, ...base, reason: f.reason });
        continue;
      }
      if (f.rows.error > 0) {
        this.sender.send({ kind: 'file-failed', message: `file ${f.name}: ${f.rows.error} row(s) failed`, ...base });
      }
      if (f.rows.uncertain > 0) {
        this.sender.send({
          kind: 'rows-uncertain',
          message: `file ${f.name}: ${f.rows.uncertain} row(s) with an unknown outcome: check them in the service, then wisbridge resolve`,
          ...base, uncertain: await this.uncertainRows(f.fileId),
        });
      }
    }
  }

  onMissedFile(alert: MissedFileAlert): void {
    this.sender.send({
      kind: 'expected-file-missing', message: `expected file /${alert.pattern}/ for job ${alert.job} has not arrived by its cut-off`, ...alert,
    });
  }

  /** A watched inbox could not be listed (throttled per drop). */
  onDropListError(job: InboundJob, error: unknown): void {
    this.dropUnlistable(job.name, job.drop, error);
  }

  /** A job run failed: its drop could not be reached or listed, or anything else (authentication, service down...). */
  onJobFailed(job: string, drop: string | undefined, error: unknown): void {
    if (drop !== undefined && isDropUnreachable(error)) {
      this.dropUnlistable(job, drop, error);
      return;
    }
    const alert: Alert = { kind: 'job-failed', message: `job ${job} failed: ${describeError(error)}`, job, error: describeError(error) };
    if (isWisbridgeError(error)) alert.code = error.code;
    this.sender.send(alert);
  }

  private dropUnlistable(job: string, drop: string, error: unknown): void {
    const last = this.dropAlerted.get(drop);
    const now = this.now();
    if (last !== undefined && now - last < DROP_ALERT_REPEAT_MS) return;
    this.dropAlerted.set(drop, now);
    this.sender.send({
      kind: 'drop-unlistable', message: `drop ${drop} cannot be listed: ${describeError(error)}`,
      job, drop, error: describeError(error), ...(isWisbridgeError(error) ? { code: error.code } : {}),
    });
  }

  private async uncertainRows(fileId: number | undefined): Promise<Array<{ lines: number[]; key: string | null; hint: string | null }>> {
    if (fileId === undefined) return [];
    try {
      const journal = await this.runtime.journal();
      return (await journal.uncertainItems(fileId, { limit: ROWS_IN_ALERT })).map((i) => ({ lines: i.lines, key: i.docKey, hint: i.hint }));
    } catch {
      return [];
    }
  }
}
