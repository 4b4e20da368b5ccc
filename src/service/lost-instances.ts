import { describeError } from '../errors.js';
import { instanceStates, type ConsoleJournal, type Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { PeriodicLook } from './periodic-look.js';
import type { Alert } from './webhook.js';

export const INSTANCE_LOST = 'instance-lost';

type WatchedJournal = Pick<Journal, 'listInstances'> & { readonly console: Pick<ConsoleJournal, 'raiseAlert' | 'listAlerts' | 'acknowledgeAlert'> };

/** Open alerts read per look: instance-lost alerts beyond the newest this many open ones are cleared a look later. */
const OPEN_ALERTS = 500;

/**
 * Watches the journal's list of instances for lost ones (instanceStates): a lost instance opens a critical alert in the
 * inbox (and on the webhook), once; the alert is cleared (acknowledged by wisbridge) when the instance is not lost any
 * more: it heartbeats again, an instance runs on its host again, or an operator forgot it. Every instance looks, so a
 * lost one is alerted whichever instances survive; the inbox keeps one open alert per instance.
 */
export class LostInstanceAlerts {
  readonly #periodic = new PeriodicLook(() => this.#look(), (error: unknown) => {
    this.logger.warn({ err: describeError(error) }, 'could not check the instances for lost ones');
  });

  constructor(
    private readonly journal: () => Promise<WatchedJournal>,
    private readonly leaseMs: number,
    private readonly logger: Logger,
    private readonly webhook?: (alert: Alert) => void,
  ) {}

  /** One look now (tests; the timer calls it too); a journal that fails is logged, the next look tries again. */
  look(): Promise<void> {
    return this.#periodic.look();
  }

  start(everyMs: number): void {
    this.#periodic.start(everyMs);
  }

  stop(): Promise<void> {
    return this.#periodic.stop();
  }

  async #look(): Promise<void> {
    const journal = await this.journal();
    const instances = instanceStates(await journal.listInstances(), this.leaseMs);
    const open = (await journal.console.listAlerts({ limit: OPEN_ALERTS })).open.filter((a) => a.kind === INSTANCE_LOST);
    for (const i of instances) {
      const subject = `instance:${i.id}`;
      if (i.state !== 'lost' || open.some((a) => a.subject === subject)) continue;
      const message = `instance ${i.id} (${i.host}, pid ${i.pid}) is lost: no heartbeat since ${i.heartbeatAt} and it never stopped; `
        + 'other instances take its files over. Once its host is gone for good, forget it: wisbridge status --forget-instance ID';
      await journal.console.raiseAlert({ kind: INSTANCE_LOST, subject, message });
      this.logger.error({ event: 'instance.lost', instance: i.id, host: i.host, pid: i.pid, heartbeatAt: i.heartbeatAt }, 'instance lost: no heartbeat for longer than a lease');
      this.webhook?.({ kind: INSTANCE_LOST, message, instance: i.id, host: i.host, pid: i.pid, heartbeatAt: i.heartbeatAt });
    }
    for (const alert of open) {
      const instance = instances.find((i) => `instance:${i.id}` === alert.subject);
      if (instance?.state === 'lost') continue;
      const why = instance ? `${instance.state} again` : 'forgotten';
      if (await journal.console.acknowledgeAlert(alert.id, `wisbridge (instance ${why})`)) {
        this.logger.info({ event: 'instance.lost-cleared', instance: alert.subject.slice('instance:'.length), why }, 'lost instance alert cleared');
      }
    }
  }
}
