import { ackExpectedWithinMs, type PartnerProfile } from '../config/partners.js';
import { overdueInterchanges } from '../export/index.js';
import type { ConsoleJournal, Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { CronSchedule } from '../schedule/index.js';
import type { ScheduleEntry } from './scheduler.js';
import type { Alert } from './webhook.js';

export const ACK_OVERDUE = 'x12-ack-overdue';
/** How often a running instance looks for interchanges whose acknowledgement is overdue. */
export const ACK_OVERDUE_CRON = '*/5 * * * *';
/** Open alerts read per look: an interchange already alerted is not alerted again while its alert is open. */
const OPEN_ALERTS = 500;

type OverdueJournal = Pick<Journal, 'x12Exports'> & { readonly console: Pick<ConsoleJournal, 'raiseAlert' | 'listAlerts'> };

/**
 * The 997/999 a partner owes (`ack_expected_within` of its profile, docs/x12.md, "Acknowledgements received"): every
 * five minutes, as a tick shared by the instances of the journal (one runs it, fenced by its lease), each written X12
 * interchange no acknowledgement came for within that time opens a warning alert in the inbox (and on the webhook),
 * once; the pipeline clears it when the acknowledgement arrives.
 */
export class OverdueAcks {
  constructor(
    private readonly journal: () => Promise<OverdueJournal>,
    private readonly partners: Readonly<Record<string, PartnerProfile>>,
    private readonly logger: Logger,
    private readonly webhook?: (alert: Alert) => void,
  ) {}

  /** Whether any partner profile asks for acknowledgements within a time: else there is nothing to look at. */
  get wanted(): boolean {
    return Object.values(this.partners).some((p) => ackExpectedWithinMs(p) !== undefined);
  }

  /** The schedule entry of the look (to run through the shared ticks). */
  entry(): ScheduleEntry {
    return { key: ACK_OVERDUE, schedule: new CronSchedule(ACK_OVERDUE_CRON, 'UTC'), onTick: async (at, signal) => { await this.check(at, signal); } };
  }

  /** The look running: looks run one after another, so two never both find an interchange not alerted yet. */
  #last: Promise<unknown> = Promise.resolve();

  /** One look at `at`: resolves the export ids alerted now. `signal`: the tick was taken over, its new owner alerts. */
  check(at: number, signal?: AbortSignal): Promise<number[]> {
    const look = this.#last.catch(() => undefined).then(() => this.#look(at, signal));
    this.#last = look;
    return look;
  }

  async #look(at: number, signal?: AbortSignal): Promise<number[]> {
    const journal = await this.journal();
    const overdue = await overdueInterchanges(journal, this.partners, at);
    if (overdue.length === 0) return [];
    const open = new Set((await journal.console.listAlerts({ limit: OPEN_ALERTS })).open.filter((a) => a.kind === ACK_OVERDUE).map((a) => a.subject));
    const alerted: number[] = [];
    for (const x of overdue) {
      if (signal?.aborted) break;
      const subject = `export:${x.exportId}`;
      if (open.has(subject)) continue;
      const message = `no 997/999 from ${x.partner} for export ${x.exportId} (${x.file}), interchange ${x.interchange}, group ${x.group}: written ${x.writtenAt}, `
        + `due by ${x.dueBy ?? '-'} (ack_expected_within of partner ${x.partner})`;
      await journal.console.raiseAlert({ kind: ACK_OVERDUE, subject, message });
      this.logger.warn({ event: 'x12.ack-overdue', export: x.exportId, file: x.file, partner: x.partner, interchange: x.interchange, group: x.group, dueBy: x.dueBy }, message);
      this.webhook?.({ kind: ACK_OVERDUE, severity: 'warning', message, export: x.exportId, file: x.file, partner: x.partner, interchange: x.interchange, group: x.group });
      alerted.push(x.exportId);
    }
    return alerted;
  }
}
