import { z } from 'zod';
import { postgresJournalSchema } from '../journal/postgres/options.js';
import {
  localDropOptionsSchema, pgpOptionsSchema, secretOption, sftpDropOptionsSchema, type LocalDropOptions, type SecretDropOption, type SftpDropOptions,
} from '../drops/options.js';
import { calendarProblems, HOLIDAY_TYPES, WEEKDAYS } from '../util/calendar.js';
import { camelToSnake, renameKeys, snakeToCamel } from '../util/naming.js';
import { fileNameProblem } from '../util/date-stamp.js';
import { isRecord } from '../util/schema-keys.js';
import { partnersSchema } from './partners.js';
import { consoleSchema } from './console.js';
import { secretRefSchema } from './secret-ref.js';

/** An export file name pattern: its date placeholders' zones are checked with the configuration. */
const fileNamePattern = z.string().min(1).superRefine((pattern, ctx) => {
  const problem = fileNameProblem(pattern);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

// The schema of the bridge's configuration file (YAML). Descriptions feed schemas/config.schema.json and
// docs/configuration.md. Secrets are references (`{ env: NAME }` or `{ file: PATH }`), never inline values.
// Every key is snake_case; load.ts still accepts an old camelCase spelling, with a deprecation warning.

export const WORK_TYPES = ['customerShipments', 'outboundTransfers', 'inboundTransfers', 'supplierShipments', 'customerReturns', 'products'] as const;
export type WorkType = (typeof WORK_TYPES)[number];

export { secretRefSchema };

export const scheduleSchema = z
  .strictObject({
    cron: z.string().min(1).describe('cron expression (5 or 6 fields), e.g. "0 2 * * *" for 02:00 every night'),
    timezone: z.string().min(1).default('UTC').describe('IANA time zone the cron expression is read in, e.g. Europe/Berlin'),
    catch_up: z.boolean().default(false).describe('run once at start when the last scheduled run was missed while the bridge was down'),
    calendar: z.string().min(1).optional().describe('name of a business calendar (`calendars`): the schedule fires only on its working days (the day of each time, in `timezone`)'),
  })
  .describe('When a job runs. A job never overlaps itself: a tick that finds the previous run still busy is skipped and logged.');

export const serviceSchema = z
  .strictObject({
    url: z.url({ error: (issue) => (issue.input === undefined ? undefined : 'must be an absolute http(s) URL') }).describe('base URL of the Warehouse Integration Service (paths /v1/... are appended)'),
    token: secretRefSchema.describe('the JWT of this warehouse (or warehouses)'),
    warehouse: z.number().int().positive().optional().describe('warehouse id sent with inventory writes when the token is scoped to several warehouses'),
    batch_size: z.number().int().min(1).max(1000).default(100).describe('maximum items per write request'),
    requests_in_flight: z.number().int().min(1).max(32).optional()
      .describe('write requests of one inbound file outstanding at once (each on a connection of its own), for every job of this service that does not set its own. When absent: 8 for writes the bridge can read back after a crash (ship, receive: a request in doubt is confirmed or sent again), 2 for writes the service cannot be asked about (inventory adjustments and counts: each request in doubt is up to batch_size rows an operator checks by hand). More hides the service\'s latency and records several requests in one journal commit; after a crash up to this many requests of a file are in doubt (docs/operations.md, "Requests in flight and rows in doubt")'),
    concurrency: z.number().int().min(1).max(32).default(5).describe('pages fetched at once by listings'),
    max_requests_in_flight: z.number().int().min(1).max(256).default(32)
      .describe('requests to this service outstanding at once from this bridge process, every file, job and listing together, and requests recorded as sent and not yet decided, every file and job together (what a crash leaves in doubt: read back, or reported uncertain); at the defaults the 8 files of a job of 8 requests each reach it, and files whose turn comes wait for a slot; the connections to the service are at least this many; several instances each have their own'),
    request_timeout_ms: z.number().int().min(100).default(30_000).describe('deadline of one HTTP request'),
    max_attempts: z.number().int().min(1).max(20).default(6).describe('attempts of one request on retryable failures (connection errors, 429, 502-504)'),
  })
  .describe('One Warehouse Integration Service account (one token).');

/**
 * A drop's options as the configuration file writes them: the drop schemas' options in snake_case, and each option
 * flagged secret taken by reference. The parsed value is turned back into the drops' camelCase names.
 */
function configFacing(shape: Record<string, z.ZodType>): Record<string, z.ZodType> {
  return Object.fromEntries(Object.entries(shape).map(([key, option]) => [
    camelToSnake(key),
    key === 'pgp' ? pgpConfigSchema.optional()
      : secretOption.has(option) ? secretRefSchema.optional().describe(`${option.description ?? ''} By reference: \`{ env: NAME }\` or \`{ file: PATH }\`.`) : option,
  ]));
}

/** A drop's `pgp` section as the configuration file writes it: every key (the partner's public one too) by reference. */
const pgpConfigSchema = z.strictObject({
  private_key: secretRefSchema.optional().describe(`${pgpOptionsSchema.shape.privateKey.description} By reference.`),
  passphrase: secretRefSchema.optional().describe(`${pgpOptionsSchema.shape.passphrase.description} By reference.`),
  partner_key: secretRefSchema.optional().describe(`${pgpOptionsSchema.shape.partnerKey.description} By reference (usually \`{ file: partner.asc }\`).`),
  require_signature: pgpOptionsSchema.shape.requireSignature,
  encrypt_outbound: pgpOptionsSchema.shape.encryptOutbound,
  sign_outbound: pgpOptionsSchema.shape.signOutbound,
}).describe(pgpOptionsSchema.description ?? 'OpenPGP of the drop: decrypt inbox files, verify the partner\'s signature, encrypt (and sign) outbox files.');
export type PgpConfig = z.output<typeof pgpConfigSchema>;

const localDropConfigSchema = z.strictObject(configFacing(localDropOptionsSchema.shape));
const sftpDropConfigSchema = z
  .strictObject(configFacing(sftpDropOptionsSchema.shape))
  .refine((o) => o.password !== undefined || o.private_key !== undefined || o.private_key_path !== undefined, {
    error: 'one of password, private_key or private_key_path is required',
    path: ['password'],
  });

/** A configured SFTP drop: the drop's options, with references in place of the secrets. */
export type SftpDropConfig = Omit<SftpDropOptions, SecretDropOption | 'pgp'> & Partial<Record<SecretDropOption, SecretRef>> & { pgp?: PgpConfig };
/** A configured local drop: its `pgp` keys by reference. */
export type LocalDropConfig = Omit<LocalDropOptions, 'pgp'> & { pgp?: PgpConfig };

export const dropConfigSchema = z
  .discriminatedUnion('type', [localDropConfigSchema, sftpDropConfigSchema])
  .transform((drop) => renameKeys(drop, snakeToCamel) as LocalDropConfig | SftpDropConfig)
  .describe('A file drop: a local folder or an SFTP server, with inbox / outbox / archive / error folders.');

export const expectedFileSchema = z
  .strictObject({
    pattern: z.string().min(1).describe('regular expression (case-insensitive) the expected file name matches'),
    cutoff: scheduleSchema.omit({ catch_up: true }).describe('when the file is due ("by 06:00"); with a `calendar`, only on its working days: no alert on a weekend or holiday'),
    grace_minutes: z.number().int().min(0).max(7 * 24 * 60).default(0)
      .describe('the alert is raised this long after the due time when no file arrived since the previous alert time (due 06:00 + 120 = alert at 08:00)'),
  })
  .describe('A file the WMS is expected to drop regularly, e.g. the nightly inventory file.');

const ymd = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'a date YYYY-MM-DD' });

export const calendarSchema = z
  .strictObject({
    country: z.string().min(2).optional().describe('ISO 3166 country code whose holidays (date-holidays) are days off, e.g. DE'),
    region: z.string().min(1).optional().describe('region (state) code within the country, e.g. BY for Bavaria: its regional holidays count too'),
    holiday_types: z.array(z.enum(HOLIDAY_TYPES)).min(1).default(['public'])
      .describe('which of date-holidays\' holiday types are days off (public, bank, school, optional, observance); 24 December in Germany is `bank`'),
    working_days: z.array(z.enum(WEEKDAYS)).min(1).default(['mon', 'tue', 'wed', 'thu', 'fri']).describe('weekdays that are working days'),
    holidays: z.array(ymd).default([]).describe('extra days off (YYYY-MM-DD), with or without a country: a company shutdown, a holiday the library lacks'),
    working_dates: z.array(ymd).default([]).describe('days that are working days whatever the rest says (YYYY-MM-DD): a Saturday the warehouse works'),
  })
  .superRefine((c, ctx) => {
    for (const message of calendarProblems(c)) ctx.addIssue({ code: 'custom', path: [c.region !== undefined && c.country !== undefined && message.startsWith('unknown region') ? 'region' : 'country'], message });
  })
  .describe('A business calendar: working days and holidays, for expected files and schedules.');

/** One X12 route of an inbound job: the transaction sets (ST01) one mapping reads, from one partner or any. */
export const x12RouteSchema = z.strictObject({
  transaction_set: z.string().regex(/^[0-9A-Z]{3}$/, { error: 'a transaction set identifier (ST01), e.g. "945"' }).describe('ST01 of the sets this route takes, e.g. "945"'),
  mapping: z.string().min(1).describe('the inbound x12 mapping that reads them'),
  partner: z.string().min(1).optional().describe('only sets from this partner (`partners`); a route naming the partner wins over one that names none'),
}).describe('Which mapping reads the transaction sets of one type (docs/x12.md, "Routing by content").');

export const inboundJobSchema = z
  .strictObject({
    name: z.string().min(1).describe('job name in logs, metrics and the journal'),
    drop: z.string().min(1).describe('name of the drop whose inbox is read'),
    service: z.string().min(1).describe('name of the service the requests go to'),
    mappings: z.array(z.string().min(1)).optional().describe('names of the mappings this job may use; a file is matched by their file patterns (all inbound mappings when absent)'),
    watch: z.boolean().default(true).describe('`wisbridge run`: process files as soon as they are stable'),
    requests_in_flight: z.number().int().min(1).max(32).optional()
      .describe('write requests of one file of this job outstanding at once; overrides the service\'s `requests_in_flight` and its defaults by kind of write (8 read back, 2 adjustments and counts)'),
    // 8: a night of files of 1,000 rows against a distant service took less time than with 4 or with 16 (a file's 10
    // requests over a window of 8 leave the service's slots idle between its two round trips unless other files fill
    // them), for little more RSS than 4; requests at once and in doubt stay within max_requests_in_flight and
    // big files within the mapping threads (docs/performance.md, "Settings chosen by measurement").
    files_in_flight: z.number().int().min(1).max(64).default(8)
      .describe('files of this job processed at once (a nightly batch of many small files waits on the service\'s latency otherwise); files of a mapping with `ordered: true` still go one at a time in name order, and acknowledgements before the ship or receive files of the same family (docs/pipeline.md, "Several files at once, and the order of files")'),
    schedule: scheduleSchema.optional().describe('`wisbridge run`: also process the inbox at these times (a nightly batch)'),
    expect: z.array(expectedFileSchema).default([]).describe('files that must arrive by a cut-off, or an alert is raised'),
    x12: z.array(x12RouteSchema).min(1).optional()
      .describe('X12 routing: a file that starts with ISA (whatever its name) is read by the mapping its transaction sets (ST01) and partner (ISA06/GS02) name here, not by its name; the job then takes every file of its inbox (docs/x12.md, "Routing by content")'),
  })
  .describe('Inbound: files in a drop inbox become requests; a result file per input is written to the outbox.');

/** The work types an export job writes as X12 (940 or 943). */
export const X12_WORK_TYPES: readonly string[] = ['customerShipments', 'outboundTransfers', 'supplierShipments', 'inboundTransfers'];

export const exportJobSchema = z
  .strictObject({
    name: z.string().min(1).describe('job name in logs, metrics and the journal'),
    work_type: z.enum(WORK_TYPES).describe('what is exported'),
    drop: z.string().min(1).describe('name of the drop whose outbox receives the work lists'),
    service: z.string().min(1).describe('name of the service the work is read from'),
    mapping: z.string().min(1).describe('name of the export mapping (with format x12: of the cancellation lists, which stay CSV)'),
    format: z.enum(['csv', 'x12']).default('csv')
      .describe('csv: work lists through `mapping`; x12: one interchange per work list to `partner`, customer shipments and outbound transfers as 940, supplier shipments and inbound transfers as 943 (docs/x12.md, "Writing work lists")'),
    partner: z.string().min(1).optional().describe('format x12: the partner profile (under `partners`) the work lists go to'),
    schedule: scheduleSchema.optional().describe('`wisbridge run`: when to export'),
    acknowledge: z.enum(['on-export', 'on-confirmation', 'never']).default('on-export')
      .describe('on-export: acknowledge what a written file holds; on-confirmation: wait for the WMS confirmation file; never'),
    file_name: fileNamePattern.default('{job}_{timestamp}_{seq}.csv')
      .describe('name of each work-list file; placeholders {job} {work_type} {timestamp} (UTC yyyyMMddHHmmss) {seq} (6 digits, per job) {date:PATTERN} (yyyy yy MM dd HH mm ss in the machine\'s time zone, e.g. SO_{date:yyyyMMdd}.csv) {date:PATTERN@ZONE} (in an IANA zone, e.g. {date:yyyyMMdd@Europe/Berlin})'),
    max_records_per_file: z.number().int().min(1).default(10_000).describe('records per file; more work is split over several files'),
    empty_files: z.boolean().default(false).describe('write a file (header only) when there is no work'),
    cancellations: z.boolean().default(true).describe('customer shipments and returns: export those cancelled after they were handed over, in a cancellation list'),
    cancellation_file_name: fileNamePattern.default('{job}_cancelled_{timestamp}_{seq}.csv')
      .describe('name of each cancellation list; same placeholders as file_name (the sequence is shared with the work lists)'),
    cancellation_mapping: z.string().min(1).optional()
      .describe('export mapping of cancellation lists (same document as `mapping`); the job\'s mapping when absent'),
    result_files: z.boolean().default(true)
      .describe('write `<work-list name>.ack.csv` to the outbox after acknowledging: one row per record with its acknowledgement status and messages'),
    overlap_seconds: z.number().int().min(0).default(300).describe('products: the incremental cursor is moved back by this much against clock skew'),
  })
  .describe('Outbound: pending work is written as work-list files to a drop outbox, then acknowledged.');

/** Credentials of an HTTP endpoint: a bearer token, or basic auth; secrets by reference only. */
export const httpAuthSchema = z.union([
  z.strictObject({ bearer_token: secretRefSchema.describe('a bearer token, sent as `Authorization: Bearer` (the console also takes it on its login page)') }),
  z.strictObject({
    username: z.string().min(1).describe('basic-auth user name (in the console: recorded as who acted)'),
    password: secretRefSchema.describe('basic-auth password, by reference'),
  }),
]);

export const instanceSchema = z
  .strictObject({
    lease_ms: z.number().int().min(1000).default(30_000)
      .describe('how long a file or a scheduled tick stays this instance\'s without a heartbeat: after a crash, another instance takes its files over this long after its last heartbeat (shorter: faster takeover; longer: fewer false takeovers when the journal or the process stalls)'),
    heartbeat_ms: z.number().int().min(100).default(10_000)
      .describe('how often this instance renews its leases (at most half of lease_ms; a third lets two heartbeats fail before anything is taken over). An instance whose last good heartbeat is older than lease_ms - heartbeat_ms stops claiming and sending until the journal answers again'),
  })
  // On the section itself, so the rule is reported beside any other mistake in the file, not only once they are mended.
  .superRefine((instance, ctx) => {
    if (instance.heartbeat_ms * 2 > instance.lease_ms) {
      ctx.addIssue({ code: 'custom', path: ['heartbeat_ms'], message: `heartbeat_ms (${instance.heartbeat_ms}) must be at most half of lease_ms (${instance.lease_ms}), so that a missed heartbeat does not lose the leases` });
    }
  })
  .describe('`wisbridge run`: several instances on one PostgreSQL journal share the work by leases (docs/operations.md, "Running several instances"); a SQLite journal serves one instance');

export const configSchema = z
  .strictObject({
    journal: z.union([
      z.string().min(1).describe('path of the SQLite journal file (relative to the config file): the embedded engine'),
      postgresJournalSchema,
    ]).default('wisbridge-journal.sqlite')
      .describe('where the journal lives: a SQLite file\'s path, or `{ url: postgres://user@host:port/db, password: { env | file }, … }` (docs/operations.md, "Journal on PostgreSQL")'),
    mappings: z.string().min(1).default('mappings').describe('folder of mapping definitions (relative to the config file)'),
    services: z.record(z.string().min(1), serviceSchema).refine((s) => Object.keys(s).length > 0, { error: 'at least one service is required' })
      .describe('the service accounts, by name'),
    drops: z.record(z.string().min(1), dropConfigSchema).refine((d) => Object.keys(d).length > 0, { error: 'at least one drop is required' })
      .describe('the file drops, by name'),
    partners: partnersSchema.default({}),
    calendars: z.record(z.string().min(1), calendarSchema).default({}).describe('business calendars by name, used by schedules and expected files (`calendar: NAME`)'),
    inbound: z.array(inboundJobSchema).default([]).describe('inbound jobs: files a drop\'s inbox receives become requests to a service'),
    exports: z.array(exportJobSchema).default([]).describe('export jobs: pending work of a service becomes work-list files in a drop\'s outbox'),
    metrics: z.strictObject({
      host: z.string().default('127.0.0.1').describe('listen address of /metrics and /healthz'),
      port: z.number().int().min(0).max(65535).default(9464).describe('listen port (0 = any free port); WISBRIDGE_METRICS_PORT overrides it'),
      auth: httpAuthSchema.optional()
        .describe('credentials of /metrics and /healthz, separate from the console\'s: `{ bearer_token: REF }` or `{ username: NAME, password: REF }`; open when absent'),
      public_healthz: z.boolean().optional().describe('with `auth`: true leaves /healthz open (for load balancers that cannot send credentials); /metrics stays protected'),
    }).optional().describe('`wisbridge run`: Prometheus metrics and health endpoint'),
    console: consoleSchema.optional(),
    log: z.strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info')
        .describe('least severe level written (JSON lines on stderr); WISBRIDGE_LOG_LEVEL overrides it'),
    }).default({ level: 'info' }).describe('logging'),
    alerts: z.strictObject({
      webhook: z.strictObject({
        url: z.union([z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }), secretRefSchema])
          .describe('where alerts are POSTed as JSON: a URL, or a secret reference when the URL itself carries a token (it is never logged)'),
        headers: z.record(z.string().min(1), secretRefSchema).default({})
          .describe('extra request headers, each value a secret reference, e.g. `Authorization: { env: ALERT_TOKEN }` (values are never logged)'),
        timeout_ms: z.number().int().min(100).default(5000).describe('deadline of one POST'),
        max_attempts: z.number().int().min(1).max(10).default(5).describe('attempts per alert (connection errors, 408, 429 and 5xx are retried; other 4xx are not)'),
        backoff_ms: z.number().int().min(0).default(1000).describe('delay before the second attempt; doubled for each further one, at most 60 s'),
      }).optional().describe('JSON POST per alert: failed and rejected files, uncertain rows, missing expected files, drops that cannot be listed'),
    }).optional().describe('`wisbridge run`: alerts pushed to a webhook (they are also logged and counted in /metrics)'),
    retention: z.strictObject({
      journal_days: z.number().int().min(1).optional()
        .describe('prune the journal rows, request bodies and results of files finished more than this many days ago (their checksums stay, so duplicates are still recognised); never when absent'),
      cron: z.string().min(1).default('30 3 * * *').describe('when the retention tick runs: journal prune, then archive/outbox clean-up of drops with `archive_retention_days` / `outbox_retention_days`'),
      timezone: z.string().min(1).default('UTC').describe('IANA time zone of the cron expression'),
    }).optional().describe('`wisbridge run`: automatic retention of the journal and of the drops\' archive/ and outbox/ (see docs/operations.md)'),
    mapping_threads: z.strictObject({
      max: z.number().int().min(1).max(16).optional()
        .describe('mapping threads of big files at once in this process (default 2: each takes ~25 MB and its heap, and two cores map no faster with more; docs/pipeline.md)'),
      from_bytes: z.number().int().min(1).optional()
        .describe('files of at least this many bytes are mapped and recorded on a thread of their own (default 16 MiB; 1: every file that can be)'),
      heap_mb: z.number().int().min(4).max(4096).optional()
        .describe('heap cap of a mapping thread in MB (default 64, 128 for a mapping that holds its documents until the file\'s end); raise it when GROUPING_LIMIT names the thread\'s memory'),
    }).optional().describe('where big files are mapped: worker threads of the process (docs/pipeline.md, "Where a file is mapped")'),
    shutdown_timeout_ms: z.number().int().min(100).default(30_000).describe('how long a graceful shutdown may take before the process exits anyway'),
    instance: instanceSchema.default({ lease_ms: 30_000, heartbeat_ms: 10_000 }),
  })
  .superRefine((config, ctx) => {
    const inbound = jobsOf(config.inbound);
    const jobs = [...inbound, ...jobsOf(config.exports)];
    const [drops, services, calendars, partners] = [namesOf(config.drops), namesOf(config.services), namesOf(config.calendars), namesOf(config.partners)];
    const seen = new Set<string>();
    jobs.forEach((job, i) => {
      const where = i < inbound.length ? ['inbound', i] : ['exports', i - inbound.length];
      if (typeof job.name === 'string' && seen.has(job.name)) ctx.addIssue({ code: 'custom', path: [...where, 'name'], message: `job name "${job.name}" is used twice` });
      if (typeof job.name === 'string') seen.add(job.name);
      if (drops && typeof job.drop === 'string' && !drops.includes(job.drop)) ctx.addIssue({ code: 'custom', path: [...where, 'drop'], message: `unknown drop "${job.drop}" (known: ${drops.join(', ')})` });
      if (services && typeof job.service === 'string' && !services.includes(job.service)) ctx.addIssue({ code: 'custom', path: [...where, 'service'], message: `unknown service "${job.service}" (known: ${services.join(', ')})` });
      if (job.format === 'x12') {
        if (!X12_WORK_TYPES.includes(job.work_type as string)) {
          ctx.addIssue({ code: 'custom', path: [...where, 'format'], message: `format x12 writes ${X12_WORK_TYPES.join(', ')}, not ${String(job.work_type)}` });
        }
        if (typeof job.partner !== 'string') ctx.addIssue({ code: 'custom', path: [...where, 'partner'], message: 'format x12 names the partner profile the work lists go to' });
        else if (partners && !partners.includes(job.partner)) {
          ctx.addIssue({ code: 'custom', path: [...where, 'partner'], message: `unknown partner "${job.partner}" (known: ${partners.join(', ') || 'none: add a partners section'})` });
        }
      }
      if (Array.isArray(job.x12)) {
        job.x12.forEach((route: unknown, k) => {
          const partner = isRecord(route) ? route.partner : undefined;
          if (partners && typeof partner === 'string' && !partners.includes(partner)) {
            ctx.addIssue({ code: 'custom', path: [...where, 'x12', k, 'partner'], message: `unknown partner "${partner}" (known: ${partners.join(', ') || 'none: add a partners section'})` });
          }
        });
      }
      const schedules: Array<[(string | number)[], unknown]> = [[[...where, 'schedule'], job.schedule]];
      if (Array.isArray(job.expect)) job.expect.forEach((e: unknown, k) => schedules.push([[...where, 'expect', k, 'cutoff'], isRecord(e) ? e.cutoff : undefined]));
      for (const [path, schedule] of schedules) {
        const calendar = isRecord(schedule) ? schedule.calendar : undefined;
        if (calendars && typeof calendar === 'string' && !calendars.includes(calendar)) {
          ctx.addIssue({ code: 'custom', path: [...path, 'calendar'], message: `unknown calendar "${calendar}" (known: ${calendars.join(', ') || 'none: add a calendars section'})` });
        }
      }
    });
  }, {
    // Run even when other options are refused, so one check reports every problem; the sections it reads may then be
    // malformed, hence jobsOf and namesOf.
    when: () => true,
  })
  .describe('wisbridge configuration');

/** The jobs of a section that may itself be refused: its entries that are objects. */
function jobsOf(section: unknown): Array<Record<string, unknown>> {
  return Array.isArray(section) ? section.map((job: unknown) => (isRecord(job) ? job : {})) : [];
}

/** The names of a section of named entries, or undefined when the section is refused (then nothing is unknown in it). */
function namesOf(section: unknown): string[] | undefined {
  return isRecord(section) ? Object.keys(section) : undefined;
}

export type Config = z.output<typeof configSchema>;
export type ServiceConfig = z.output<typeof serviceSchema>;
export type DropConfig = z.output<typeof dropConfigSchema>;
export type InboundJob = z.output<typeof inboundJobSchema>;
export type X12Route = z.output<typeof x12RouteSchema>;
export type ExportJob = z.output<typeof exportJobSchema>;
export type Schedule = z.output<typeof scheduleSchema>;
export type SecretRef = z.output<typeof secretRefSchema>;
export type { ConsoleConfig, ConsoleRole, OidcConfig } from './console.js';
export type HttpAuthConfig = z.output<typeof httpAuthSchema>;
export type InstanceConfig = z.output<typeof instanceSchema>;
