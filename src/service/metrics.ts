import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ClientEvent } from '../client/index.js';
import type { Backlog, JournalStats, JournalTimings } from '../journal/index.js';
import type { FileConcluded } from '../runtime/runtime.js';
import type { InstanceCensus } from './instance-census.js';
import type { JobSummary } from './types.js';

/**
 * The bridge's Prometheus metrics, on a registry of its own (never prom-client's global one, so
 * several services in one process — tests — never collide). Under `wisbridge run` every metric carries the
 * `instance` label (the instance's id), so that the instances sharing a journal are told apart and summed.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly files: Counter<'job' | 'outcome'>;
  readonly concluded: Counter<'job' | 'via' | 'status'>;
  readonly rows: Counter<'job' | 'status'>;
  readonly exportFiles: Counter<'job'>;
  readonly exportRecords: Counter<'job'>;
  readonly requests: Counter<'service' | 'endpoint' | 'status'>;
  readonly retries: Counter<'service' | 'endpoint'>;
  readonly latency: Histogram<'service' | 'endpoint'>;
  readonly jobRuns: Counter<'job' | 'trigger' | 'result'>;
  readonly skippedRuns: Counter<'job'>;
  readonly missedFiles: Counter<'job' | 'pattern'>;
  readonly expectedMissing: Gauge<'job' | 'pattern'>;
  readonly backlog: Gauge<'state'>;
  readonly lastRun: Gauge<'job'>;
  readonly dropUp: Gauge<'drop'>;
  readonly dropListFailures: Counter<'drop' | 'code'>;
  readonly journalGauges: Gauge<string>[];
  readonly webhookAlerts: Counter<'kind' | 'result'>;
  readonly signInFailures: Counter<'area' | 'result'>;
  readonly ticksElsewhere: Counter<'schedule'>;
  readonly leasesLost: Counter;
  readonly tickLeasesLost: Counter<'schedule'>;
  readonly journalUp: Gauge;
  readonly instances: Gauge<'state'>;
  readonly journalTimings: Counter[];
  private scrapeStats: Promise<JournalStats | undefined> | undefined;

  constructor(backlog: () => Promise<Backlog | undefined>, options: {
    defaultMetrics?: boolean; stats?: () => Promise<JournalStats | undefined>;
    /** The instance's id: the `instance` label of every metric. */
    instance?: string;
    /** Whether the journal answers the instance's heartbeats. */
    journalReachable?: () => boolean;
    /** What this process's connections to the journal spent committing and syncing (Runtime.journalTally). */
    journalTimings?: () => JournalTimings;
    /** The instances of the journal's list, live and lost (instance-census.ts). */
    instances?: () => Promise<InstanceCensus | undefined>;
  } = {}) {
    const registers = [this.registry];
    if (options.instance !== undefined) this.registry.setDefaultLabels({ instance: options.instance });
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'wisbridge_' });
    this.files = new Counter({ name: 'wisbridge_files_total', help: 'Inbound files processed, by outcome (done, failed, rejected, duplicate; busy: another instance held it, lost: another instance took it over)', labelNames: ['job', 'outcome'], registers });
    this.rows = new Counter({ name: 'wisbridge_rows_total', help: 'Input rows by status (ok, error, skipped, uncertain)', labelNames: ['job', 'status'], registers });
    this.concluded = new Counter({ name: 'wisbridge_files_concluded_again_total', help: 'Finished files brought to a new state by an operator (re-drive, resolve), by the status they reached', labelNames: ['job', 'via', 'status'], registers });
    this.exportFiles = new Counter({ name: 'wisbridge_export_files_total', help: 'Work-list and cancellation files written', labelNames: ['job'], registers });
    this.exportRecords = new Counter({ name: 'wisbridge_export_records_total', help: 'Records written to work-list files', labelNames: ['job'], registers });
    this.requests = new Counter({
      name: 'wisbridge_http_requests_total', help: 'HTTP attempts to the service, by endpoint and status (0 = no answer)',
      labelNames: ['service', 'endpoint', 'status'], registers,
    });
    this.retries = new Counter({ name: 'wisbridge_http_retries_total', help: 'HTTP attempts that were retried', labelNames: ['service', 'endpoint'], registers });
    this.latency = new Histogram({
      name: 'wisbridge_http_request_duration_seconds', help: 'Duration of one HTTP attempt',
      labelNames: ['service', 'endpoint'], buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers,
    });
    this.jobRuns = new Counter({ name: 'wisbridge_job_runs_total', help: 'Job runs by trigger and result (ok, partial: files rejected or rows failed or uncertain, failed, aborted)', labelNames: ['job', 'trigger', 'result'], registers });
    this.skippedRuns = new Counter({ name: 'wisbridge_job_runs_skipped_total', help: 'Scheduled ticks skipped because the job was still busy', labelNames: ['job'], registers });
    this.missedFiles = new Counter({ name: 'wisbridge_missed_file_alerts_total', help: 'Expected files that had not arrived by their cut-off', labelNames: ['job', 'pattern'], registers });
    this.expectedMissing = new Gauge({ name: 'wisbridge_expected_file_missing', help: '1 while an expected file is overdue, 0 once one arrived', labelNames: ['job', 'pattern'], registers });
    this.dropUp = new Gauge({ name: 'wisbridge_drop_up', help: '1 while the drop inbox can be listed, 0 while it cannot (see /healthz for the reason)', labelNames: ['drop'], registers });
    this.dropListFailures = new Counter({ name: 'wisbridge_drop_list_failures_total', help: 'Failed listings of a drop inbox, by error code', labelNames: ['drop', 'code'], registers });
    this.lastRun = new Gauge({ name: 'wisbridge_job_last_run_timestamp_seconds', help: 'End of the last run of a job', labelNames: ['job'], registers });
    this.backlog = new Gauge({
      name: 'wisbridge_journal_backlog', help: 'Journal backlog: requests pending/sent, items uncertain/error, acknowledgements pending',
      labelNames: ['state'], registers,
      async collect() {
        // A journal out of reach leaves the journal's gauges as they were: the scrape still answers (wisbridge_journal_up 0).
        const b = await backlog().catch(() => undefined);
        if (!b) return;
        this.set({ state: 'pending' }, b.pendingRequests);
        this.set({ state: 'sent' }, b.sentRequests);
        this.set({ state: 'uncertain' }, b.uncertainItems);
        this.set({ state: 'error' }, b.errorItems);
        this.set({ state: 'processing_files' }, b.processingFiles);
        this.set({ state: 'acknowledgements_pending' }, b.acknowledgementsPending);
        this.set({ state: 'awaiting_confirmation' }, b.awaitingConfirmation);
      },
    });
    this.webhookAlerts = new Counter({
      name: 'wisbridge_webhook_alerts_total', help: 'Alerts POSTed to the webhook, by kind and result (sent, failed after its retries)',
      labelNames: ['kind', 'result'], registers,
    });
    this.signInFailures = new Counter({
      name: 'wisbridge_sign_in_failures_total', help: 'Refused sign-ins to the console or /metrics, /healthz: wrong credentials (refused), or refused unchecked after too many from one address (throttled)',
      labelNames: ['area', 'result'], registers,
    });
    this.ticksElsewhere = new Counter({
      name: 'wisbridge_scheduled_ticks_elsewhere_total', help: 'Scheduled ticks (jobs, retention, expected-file checks) another instance claimed first and ran', labelNames: ['schedule'], registers,
    });
    this.leasesLost = new Counter({ name: 'wisbridge_file_leases_lost_total', help: 'Files another instance took over while this one worked on them (its lease had expired here)', registers });
    this.tickLeasesLost = new Counter({
      name: 'wisbridge_tick_leases_lost_total', help: 'Scheduled ticks another instance took over while this one ran them (its lease had expired here): their run stopped', labelNames: ['schedule'], registers,
    });
    const reachable = options.journalReachable;
    this.journalUp = new Gauge({
      name: 'wisbridge_journal_up', help: '1 while the journal answers this instance\'s heartbeats, 0 while it cannot be reached (see /healthz)', registers,
      collect() {
        if (reachable) this.set(reachable() ? 1 : 0);
      },
    });
    const census = options.instances;
    this.instances = new Gauge({
      name: 'wisbridge_instances', help: 'Instances of the journal\'s list: live (heartbeat within a lease), lost (silent for longer than a lease without stopping, and not restarted on its host since)',
      labelNames: ['state'], registers,
      async collect() {
        // Like the backlog: a journal out of reach leaves the gauge as it was (wisbridge_journal_up says why).
        const counted = await census?.().catch(() => undefined);
        if (!counted) return;
        this.set({ state: 'live' }, counted.live);
        this.set({ state: 'lost' }, counted.lost);
      },
    });
    // One journal read per scrape for the four gauges below (text() starts a scrape afresh).
    const stats = () => (this.scrapeStats ??= options.stats?.().catch(() => undefined) ?? Promise.resolve(undefined));
    const seconds = (iso: string | null) => (iso === null ? 0 : Date.parse(iso) / 1000);
    const journalGauge = (name: string, help: string, read: (s: JournalStats, set: (value: number, labels?: Record<string, string>) => void) => void, labelNames: string[] = []) =>
      new Gauge({
        name, help, labelNames, registers,
        async collect() {
          const s = await stats();
          if (s) read(s, (value, labels) => (labels ? this.set(labels, value) : this.set(value)));
        },
      });
    const timings = options.journalTimings;
    // Totals kept by the journal's connections (a file's own thread adds its own when it ends), read at each scrape.
    const timingCounter = (name: string, help: string, read: (t: JournalTimings) => number) => new Counter({
      name, help, registers,
      collect() {
        if (!timings) return;
        this.reset();
        this.inc(read(timings()));
      },
    });
    this.journalTimings = [
      timingCounter('wisbridge_journal_commits_total', 'Units of work this process committed to the journal (SQLite: single writes too)', (t) => t.commits),
      timingCounter('wisbridge_journal_commit_seconds_total', 'Time those commits held their thread: SQLite writing the log, PostgreSQL the COMMIT round trip', (t) => t.commitSeconds),
      timingCounter('wisbridge_journal_syncs_total', 'SQLite: syncs (fdatasync) of the journal\'s log that made commits durable, several commits each; PostgreSQL: none', (t) => t.syncs),
      timingCounter('wisbridge_journal_sync_seconds_total', 'Time those syncs took (a commit\'s caller waits for its sync, the thread does not): a slow disk shows here first', (t) => t.syncSeconds),
    ];
    this.journalGauges = [
      journalGauge('wisbridge_journal_bytes', 'Size of the journal: database file plus WAL', (s, set) => set(s.bytes)),
      journalGauge('wisbridge_journal_files', 'Files in the journal: kept (with their rows) and pruned (row, checksum and counts only)', (s, set) => {
        set(s.files - s.prunedFiles, { state: 'kept' });
        set(s.prunedFiles, { state: 'pruned' });
      }, ['state']),
      journalGauge('wisbridge_journal_oldest_entry_timestamp_seconds', 'Oldest entry of the journal (file claimed, export, file event); 0 when empty',
        (s, set) => set(seconds(s.oldestEntry))),
      journalGauge('wisbridge_journal_oldest_rows_timestamp_seconds', 'Claim time of the oldest file whose rows are still kept; 0 when none',
        (s, set) => set(seconds(s.oldestDetail))),
    ];
  }

  onClientEvent(service: string, event: ClientEvent): void {
    if (event.type !== 'request-end') return;
    const labels = { service, endpoint: event.endpoint };
    this.requests.inc({ ...labels, status: String(event.status ?? 0) });
    if (event.result === 'retry') this.retries.inc(labels);
    this.latency.observe(labels, event.durationMs / 1000);
  }

  onConcluded(event: FileConcluded): void {
    this.concluded.inc({ job: event.job, via: event.via, status: event.status });
  }

  onSummary(job: string, summary: JobSummary): void {
    for (const file of summary.files) {
      this.files.inc({ job, outcome: file.outcome });
      for (const status of ['ok', 'error', 'skipped', 'uncertain'] as const) {
        if (file.rows[status] > 0) this.rows.inc({ job, status }, file.rows[status]);
      }
    }
    for (const exported of summary.exports) {
      if (exported.kind === 'result') continue;
      this.exportFiles.inc({ job });
      this.exportRecords.inc({ job }, exported.records);
    }
  }

  text(): Promise<string> {
    this.scrapeStats = undefined;
    return this.registry.metrics();
  }
}
