import { once } from 'node:events';
import type { LoadedConfig } from '../config/load.js';
import type { ExportJob, InboundJob, Schedule } from '../config/schema.js';
import { ActionsInFlight, AlertLog, ProgressRegistry, type JobView } from '../console/index.js';
import { describeError } from '../errors.js';
import type { InstanceInfo, Journal } from '../journal/index.js';
import { silentLogger, type Logger } from '../log.js';
import type { MappingSet } from '../mapping/index.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { systemClock, type Clock } from './clock.js';
import { CronSchedule, scheduleOf, type Schedule as TickSchedule } from '../schedule/index.js';
import { DropHealth } from './drop-health.js';
import { ExpectedFiles } from './expect.js';
import type { HealthServer } from './health.js';
import { AlertInbox } from './alert-inbox.js';
import { InboxOffers } from './inbox-offers.js';
import { logListening, startListener } from './listener.js';
import { InstanceLeases, newInstance } from './instance.js';
import { instanceCensus } from './instance-census.js';
import { LostInstanceAlerts } from './lost-instances.js';
import { OverdueAcks } from './ack-overdue.js';
import { RedriveTakeUps } from './redrive-takeups.js';
import { ServiceMetrics } from './metrics.js';
import { Scheduler, type ScheduleEntry } from './scheduler.js';
import { SharedTicks } from './ticks.js';
import { webhookAlerts, type AlertNotifier } from './alerts.js';
import { runRetention, type RetentionReport } from './retention.js';
import { JobSlot, type Trigger } from './slot.js';
import { JobRuns, type JobState, type LastRun } from './job-runs.js';
import type { JobRunners, JobSummary } from './types.js';
import { watchInbox } from './watch.js';
import { redriveFile, runEndOf, type FileRunEnd } from '../pipeline/index.js';
import type { WebhookSender } from './webhook.js';
import { drainOrAbort, within } from './shutdown.js';

export interface ServiceOptions {
  runners: JobRunners;
  logger?: Logger;
  clock?: Clock;
  /** Start the /metrics, /healthz (and console) server when the configuration has a `metrics` or `console` section (default true). */
  httpServer?: boolean;
  /** Pause before a watched inbox is looked at again after a file's run failed (default 30 s). */
  watchRetryMs?: number;
  /** The mappings, already loaded and checked by the caller (`run`): the runtime does not read them again. */
  mappings?: MappingSet;
  /** A runtime built by the caller (tests); by default one is created from the configuration. */
  runtime?: (signal: AbortSignal, metrics: ServiceMetrics) => Runtime;
  /** This process as an instance sharing the journal (default: a new id `host-pid-random`, this bridge's version). */
  instance?: InstanceInfo;
  /** Tests: moves the lease clock of this instance's journal (JournalOptions.leaseClockOffsetMs), so a lease passes at once. */
  leaseClockOffsetMs?: () => number;
}

/** The bridge as a long-running service: schedules, inbox watchers, expected-file alerts, metrics, graceful stop. */
export class BridgeService {
  readonly metrics: ServiceMetrics;
  /** Built (or given) here and closed by stop(): the one holder of the whole runtime; each part gets what it takes. */
  readonly runtime: Runtime;
  readonly scheduler: Scheduler;
  readonly expected: ExpectedFiles;
  readonly drops: DropHealth;
  /** Files in progress (the console's live view, and a log line every 30 s). */
  readonly progress: ProgressRegistry;
  /** Drops that cannot be listed, refused credentials (the console's alerts page, with the missed files). */
  readonly alertLog = new AlertLog();
  /** Console actions under way (a re-drive): waited for by stop() like the runs. */
  private readonly consoleActions = new ActionsInFlight();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly stopController = new AbortController();
  private readonly hardController = new AbortController();
  private readonly jobs = new Map<string, JobState>();
  private readonly loops: Promise<void>[] = [];
  private readonly startedAt: number;
  private health: HealthServer | undefined;
  private stopping: Promise<void> | undefined;
  /** From here on runs may be under way: a stop drains them. Before it, a stop only closes what start() opened. */
  private started = false;
  private readonly retentionSlot = new JobSlot('retention');
  /** Pushes alerts to `alerts.webhook` when configured. */
  readonly webhook: WebhookSender | undefined;
  private readonly alerts: AlertNotifier | undefined;
  /** The console's alert inbox in the journal. */
  private readonly alertInbox: AlertInbox;
  /** Alerts instances of the journal's list that were lost (tests: look() now). */
  readonly lostInstances: LostInstanceAlerts;
  /** Partners' 997/999 overdue (ack-overdue.ts). */
  readonly overdueAcks: OverdueAcks;
  readonly redriveTakeUps: RedriveTakeUps;
  /** What the last retention tick did (tests, the console). */
  lastRetention: RetentionReport | undefined;
  /** This process among the instances sharing the journal. */
  readonly instance: InstanceInfo;
  /** Its heartbeat and leases (files it works on). */
  readonly leases: InstanceLeases;
  private readonly ticks: SharedTicks;
  /** Watched files offered to their job's queue, and files nobody works on any more put into it. */
  readonly offers: InboxOffers;
  /** Each run's summary, metrics, log lines and alerts. */
  private readonly runs: JobRuns;

  constructor(private readonly loaded: LoadedConfig, private readonly options: ServiceOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.startedAt = this.clock.now();
    this.progress = new ProgressRegistry(Date.now, this.logger);
    this.instance = options.instance ?? newInstance();
    const { lease_ms: leaseMs, heartbeat_ms: heartbeatMs } = loaded.config.instance;
    let journal: Journal | undefined;
    this.leases = new InstanceLeases(() => this.runtime.journal(), { leaseMs, heartbeatMs }, this.logger, this.hardController.signal, {
      file: () => this.metrics.leasesLost.inc(),
      tick: (schedule) => this.metrics.tickLeasesLost.inc({ schedule }),
    });
    this.metrics = new ServiceMetrics(async () => journal?.backlog(), {
      stats: async () => journal?.journalStats(), instance: this.instance.id, journalReachable: () => this.leases.health().reachable,
      journalTimings: () => this.runtime.journalTally,
      instances: async () => (journal ? instanceCensus(await journal.listInstances(), leaseMs) : undefined),
    });
    this.runtime = options.runtime
      ? options.runtime(this.hardController.signal, this.metrics)
      : createRuntime(loaded, {
        logger: this.logger, signal: this.hardController.signal, mappings: options.mappings,
        journalOptions: { instance: this.instance, leaseMs, leaseClockOffsetMs: options.leaseClockOffsetMs }, leases: this.leases,
        onClientEvent: (service, event) => this.metrics.onClientEvent(service, event),
        onFileConcluded: (event) => {
          this.metrics.onConcluded(event);
          this.logger.info({ ...event }, 'file concluded again');
        },
      });
    this.ticks = new SharedTicks(() => this.runtime.journal(), this.leases, leaseMs, this.metrics, this.logger, this.clock, this.stopController.signal);
    void this.runtime.journal().then((j) => { journal = j; }, () => undefined);
    this.scheduler = new Scheduler(this.clock, this.logger);
    this.alertInbox = new AlertInbox(() => this.runtime.journal(), this.logger);
    this.offers = new InboxOffers({
      runtime: this.runtime, loaded, clock: this.clock, logger: this.logger, signal: this.stopController.signal,
      run: async (job, file) => {
        const state = this.jobs.get(job.name)!;
        let elsewhere = false;
        let end: FileRunEnd = 'concluded';
        // Shared: the watcher runs up to files_in_flight files of the job at once (watch.ts bounds them).
        const ok = await state.slot.runShared('watch', () => this.runs.execute(state, 'watch', async (signal) => {
          const summary = await this.options.runners.inboundFile(this.runtime, job, file, signal, this.progress.reporter(job.name));
          elsewhere = summary.files.some((f) => f.outcome === 'busy' || f.outcome === 'lost');
          end = runEndOf(summary.files.map((f) => f.outcome));
          return summary;
        }, file.name));
        return { ok, elsewhere, end };
      },
    });
    this.expected = new ExpectedFiles(this.runtime, this.clock, this.metrics, this.logger, (alert) => {
      this.alerts?.onMissedFile(alert);
      this.alertInbox.raise({ kind: 'missed-file', subject: `expect:${alert.job}:${alert.pattern}`, job: alert.job,
        message: `expected file /${alert.pattern}/ has not arrived between ${alert.since} and its cut-off ${alert.cutoff}` });
    });
    this.drops = new DropHealth(this.metrics, this.logger, this.clock);
    const alerting = webhookAlerts(loaded, this.runtime, { logger: this.logger, now: () => this.clock.now(), metrics: this.metrics, inbox: this.alertInbox });
    this.webhook = alerting?.webhook;
    const webhook = alerting?.webhook;
    this.lostInstances = new LostInstanceAlerts(() => this.runtime.journal(), leaseMs, this.logger, webhook && ((alert) => webhook.send(alert)));
    this.overdueAcks = new OverdueAcks(() => this.runtime.journal(), loaded.config.partners, this.logger, webhook && ((alert) => webhook.send(alert)));
    this.redriveTakeUps = new RedriveTakeUps(() => this.runtime.journal(),
      (fileId) => this.consoleActions.run(() => redriveFile(this.runtime, String(fileId))), this.logger, this.stopSignal);
    this.alerts = alerting?.notifier;
    this.runs = new JobRuns({
      config: loaded.config, clock: this.clock, logger: this.logger, metrics: this.metrics, drops: this.drops, progress: this.progress,
      alertLog: this.alertLog, alertInbox: this.alertInbox, alerts: this.alerts, stopSignal: this.stopSignal, journal: () => this.runtime.journal(),
    });
    const { runners } = options;
    for (const job of loaded.config.inbound) {
      this.addJob(job.name, 'inbound', job.schedule, (signal) => this.noted(job, runners.inboundPass(this.runtime, job, signal, this.progress.reporter(job.name))), job.drop);
    }
    for (const job of loaded.config.exports) {
      this.addJob(job.name, 'export', job.schedule, (signal) => runners.exportRun(this.runtime, job, signal));
    }
  }

  /** The soft stop: runners stop picking up work when it aborts. */
  get stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  get url(): string | undefined {
    return this.health?.url;
  }

  /** Opens the journal, starts the HTTP server, catches up missed runs, arms the schedules, starts the watchers. */
  async start(): Promise<void> {
    const journal = await this.runtime.journal();
    // First: a SQLite journal another live instance uses refuses this one before anything is served or run.
    await this.leases.start();
    if (!this.stopSignal.aborted) {
      this.lostInstances.start(this.loaded.config.instance.heartbeat_ms);
      this.redriveTakeUps.start(this.loaded.config.instance.lease_ms);
    }
    const health = this.options.httpServer === false ? undefined : await startListener(this.loaded, {
      mode: 'run', runtime: this.runtime, progress: this.progress, actions: this.consoleActions,
      jobs: async () => this.jobViews(), alerts: () => this.alertLog.list(this.expected.alerts),
    }, this.metrics, this.logger, () => this.healthReport());
    if (health) {
      // A signal that came while the server was starting: stop() has run already and must not be undone.
      if (this.stopSignal.aborted) {
        await health.close();
        return;
      }
      this.health = health;
      logListening(this.loaded, health, this.logger);
    }
    if (this.stopSignal.aborted) return;
    this.started = true;
    const now = this.clock.now();
    // The journal is read first: a stop() that comes meanwhile must not be followed by armed timers and watchers.
    const scheduled: Array<{ job: JobState; schedule: TickSchedule; last: string | null }> = [];
    for (const job of this.jobs.values()) {
      if (!job.schedule) continue;
      const key = scheduleCursor(job.name);
      const last = await journal.getCursor(key);
      // First start with this job: remember it, so that downtime from now on is noticed.
      if (last === null) await journal.setCursor(key, new Date(now).toISOString());
      scheduled.push({ job, schedule: job.schedule, last });
    }
    if (this.stopSignal.aborted) return;
    for (const { job, schedule, last } of scheduled) {
      this.scheduler.add({ key: `job:${job.name}`, schedule, onTick: (at) => this.scheduledRun(job, 'schedule', at) });
      const missed = schedule.previous(now);
      if (last !== null && job.catchUp && missed !== null && Date.parse(last) < missed) {
        this.logger.info({ job: job.name, missed: new Date(missed).toISOString(), lastRun: last }, 'catching up a run missed while the bridge was down');
        this.loops.push(this.scheduledRun(job, 'catch-up', missed));
      }
    }
    for (const job of this.loaded.config.inbound) {
      for (const entry of this.expected.add(job)) this.scheduler.add(this.shared(entry));
    }
    if (this.overdueAcks.wanted) this.scheduler.add(this.shared(this.overdueAcks.entry()));
    const retention = this.loaded.config.retention;
    if (retention) {
      this.scheduler.add(this.shared({ key: 'retention', schedule: new CronSchedule(retention.cron, retention.timezone), onTick: (_at, tickSignal) => this.retentionTick(tickSignal) }));
    }
    this.scheduler.start();
    for (const job of this.loaded.config.inbound) {
      if (!job.watch) continue;
      this.loops.push(watchInbox({
        runtime: this.runtime, job, clock: this.clock, signal: this.stopSignal, logger: this.logger.child({ job: job.name }),
        retryMs: this.options.watchRetryMs ?? 30_000,
        onListing: (error) => {
          if (error === undefined) {
            this.logger.debug({ event: 'inbox.listed', job: job.name, drop: job.drop }, 'inbox listed');
            this.offers.look(job);
            return this.drops.listed(job.drop);
          }
          this.drops.failed(job.drop, error);
          this.alertLog.noteFailure(job.name, error);
          this.alerts?.onDropListError(job, error);
          this.alertInbox.failure(job.name, job.drop, error);
        },
        onReady: async (file) => this.expected.noteArrival(job.name, file.name),
        takeOvers: (put) => this.offers.attach(job, put),
        onFile: async (file) => {
          await this.offers.takeOvers(job, file.name);
          return this.offers.offer(job, file);
        },
      }));
    }
    this.logger.info({ event: 'bridge.running', jobs: [...this.jobs.keys()], watching: this.loaded.config.inbound.filter((j) => j.watch).map((j) => j.name) }, 'bridge running');
  }

  /** Runs a job now (tests, tools); skipped, counted and logged when the job is busy. */
  async runNow(name: string, trigger: Trigger = 'manual'): Promise<LastRun | 'skipped'> {
    const job = this.jobs.get(name);
    if (!job) throw new Error(`unknown job ${name}`);
    const outcome = await job.slot.tryRun(trigger, () => this.runs.execute(job, trigger, job.run));
    if (outcome.skipped) {
      this.runs.skipped(job, trigger);
      return 'skipped';
    }
    return job.last!;
  }

  lastRun(name: string): LastRun | undefined {
    return this.jobs.get(name)?.last;
  }

  /**
   * Graceful stop: no new work, the runs in flight finish their current request (soft signal); at 70 % of
   * `shutdown_timeout_ms` requests still in flight are aborted (hard signal); then the journal is closed.
   */
  stop(reason = 'stop'): Promise<void> {
    this.stopping ??= (async () => {
      const timeout = this.loaded.config.shutdown_timeout_ms;
      this.logger.info({ reason, timeoutMs: timeout }, this.started ? 'shutting down: no new work; finishing the requests in flight' : 'not started: closing what was opened');
      this.scheduler.stop();
      this.stopController.abort(new Error(`shutdown (${reason})`));
      const drained = Promise.allSettled([
        ...this.loops, ...[...this.jobs.values()].map((j) => j.slot.idle()), this.retentionSlot.idle(), this.consoleActions.close(),
      ]);
      const abort = () => this.hardController.abort(new Error(`shutdown (${reason})`));
      const ended = await drainOrAbort(drained, timeout, abort, () => this.logger.warn('shutdown: runs still busy; aborting the requests in flight'));
      abort();
      await this.offers.stop();
      await this.lostInstances.stop();
      await this.redriveTakeUps.stop();
      // The leases are given up once nothing runs any more: the other instances take this one's files at once. A run
      // still busy may have a request undecided: its leases run out by themselves instead, and nothing more is sent.
      if (ended) await this.leases.retire();
      else {
        this.logger.warn('shutdown: runs still busy after the requests in flight were aborted; the instance is not retired, its leases run out by themselves');
        await this.leases.halt();
      }
      await this.runtime.close().catch((error: unknown) => this.logger.error({ err: describeError(error) }, 'closing the runtime failed'));
      await this.health?.close();
      if (this.webhook) {
        await within(this.webhook.idle(), Math.min(5000, timeout * 0.15));
        await this.webhook.close();
      }
      this.logger.info('bridge stopped');
    })();
    return this.stopping;
  }

  healthReport(): { healthy: boolean; body: Record<string, unknown> } {
    const jobs: Record<string, unknown> = {};
    for (const job of this.jobs.values()) {
      const next = this.scheduler.nextRun(`job:${job.name}`);
      jobs[job.name] = { kind: job.kind, running: job.slot.busy, nextRun: next === null ? null : new Date(next).toISOString(), lastRun: job.last ?? null };
    }
    const drops = this.drops.problems;
    const journal = this.leases.health();
    const status = this.stopping !== undefined ? 'stopping' : drops.length > 0 || !journal.reachable ? 'degraded' : 'ok';
    return {
      healthy: status === 'ok',
      body: {
        status,
        instance: this.instance.id,
        uptimeSeconds: Math.round((this.clock.now() - this.startedAt) / 1000),
        startedAt: new Date(this.startedAt).toISOString(),
        journal,
        jobs,
        ...(drops.length > 0 ? { drops } : {}),
        alerts: this.expected.alerts.slice(-10),
      },
    };
  }

  /**
   * The retention tick: once no job is running (prune only touches finished files, but a run's writes go first),
   * the journal is pruned and the drops' archive/ and outbox/ cleaned. Never overlaps itself.
   */
  private async retentionTick(tickSignal?: AbortSignal): Promise<void> {
    const days = this.loaded.config.retention?.journal_days;
    // A stop, or the tick taken over by another instance (which then prunes in its place), ends it.
    const signal = tickSignal ? AbortSignal.any([this.stopSignal, tickSignal]) : this.stopSignal;
    await this.retentionSlot.tryRun('schedule', async () => {
      for (let busy = [...this.jobs.values()].filter((j) => j.slot.busy); busy.length > 0 && !signal.aborted;
        busy = [...this.jobs.values()].filter((j) => j.slot.busy)) {
        await Promise.race([...busy.map((j) => j.slot.idle()), once(signal, 'abort')]);
      }
      if (signal.aborted) return;
      try {
        this.lastRetention = await runRetention(this.runtime, {
          journalAgeMs: days === undefined ? undefined : days * 24 * 3600 * 1000, drops: true, now: this.clock.now(), signal, logger: this.logger,
        });
      } catch (error) {
        this.logger.error({ err: describeError(error) }, 'retention failed');
      }
    });
  }

  /** The jobs as the console shows them. */
  jobViews(): JobView[] {
    const { config } = this.loaded;
    return [...this.jobs.values()].map((job) => {
      const next = this.scheduler.nextRun(`job:${job.name}`);
      const configured = job.kind === 'inbound' ? config.inbound.find((j) => j.name === job.name) : config.exports.find((j) => j.name === job.name);
      const last = job.last;
      return {
        name: job.name, kind: job.kind, drop: configured?.drop ?? '', schedule: job.schedule?.toString() ?? null, running: job.slot.busy,
        watch: job.kind === 'inbound' && (configured as InboundJob | undefined)?.watch === true, nextRun: next === null ? null : new Date(next).toISOString(),
        lastRun: last ? { at: last.finishedAt, result: last.result, trigger: last.trigger, files: last.files, rows: last.rows, error: last.error } : null,
      };
    });
  }

  private addJob(name: string, kind: 'inbound' | 'export', schedule: Schedule | undefined, run: JobState['run'], drop?: string): void {
    this.jobs.set(name, {
      name, kind, drop, slot: new JobSlot(name), run, catchUp: schedule?.catch_up ?? false,
      schedule: schedule ? scheduleOf(schedule, this.loaded.config) : undefined,
    });
  }

  private async noted(job: InboundJob, run: Promise<JobSummary>): Promise<JobSummary> {
    const summary = await run;
    for (const file of summary.files) this.expected.noteArrival(job.name, file.name);
    return summary;
  }

  /** A schedule entry whose ticks run once across the instances sharing the journal. */
  private shared(entry: ScheduleEntry): ScheduleEntry {
    return {
      ...entry,
      onTick: async (at) => {
        await this.ticks.once(entry.key, at, async (tickSignal) => {
          await entry.onTick(at, tickSignal);
          return !this.stopSignal.aborted && !tickSignal.aborted;
        });
      },
    };
  }

  /**
   * A scheduled or caught-up run of a job: skipped while this instance still runs the job, else run here when this
   * instance claims the tick first (ticks.ts), and left to the instance that did otherwise.
   */
  private async scheduledRun(job: JobState, trigger: 'schedule' | 'catch-up', scheduledAt: number): Promise<void> {
    if (this.stopSignal.aborted) return;
    if (job.slot.busy) return this.runs.skipped(job, trigger);
    let ran = false;
    // Whether the run went to its end: decided as it returns, so that a stop which comes once it is over (while the
    // tick is written, say) does not make it count as cut short, to be caught up again at the next start.
    let whole = false;
    try {
      await this.ticks.once(`job:${job.name}`, scheduledAt, async (tickSignal) => {
        // A tick claimed is run, in its turn when the job became busy meanwhile (its claim may have waited for another
        // instance's lease while this one's next tick started): it is done only once it ran. A stop before its turn
        // leaves it unfinished, for another instance or the catch-up.
        ran = await job.slot.runWhenFree(trigger, async () => {
          if (this.stopSignal.aborted) return false;
          await this.runs.execute(job, trigger, job.run, undefined, AbortSignal.any([this.stopSignal, tickSignal]));
          whole = job.last?.result !== 'aborted' && !this.stopSignal.aborted;
          return true;
        });
        return ran && whole;
      });
    } catch (error) {
      this.logger.error({ job: job.name, trigger, err: describeError(error) }, 'scheduled run not started: its tick could not be claimed in the journal');
      return;
    }
    if (!ran || !whole) return;
    // Recorded once the run is over (even a failed one: its files are in the journal), so a crash mid-run is caught up.
    try {
      await (await this.runtime.journal()).setCursor(scheduleCursor(job.name), new Date(scheduledAt).toISOString());
    } catch (error) {
      this.logger.warn({ job: job.name, err: describeError(error) }, 'could not record the last run time');
    }
  }
}

export const scheduleCursor = (job: string): string => `schedule:${job}`;

export type { ExportJob, InboundJob, LastRun };
