import { pino, type Logger, type LogFn } from 'pino';
import { createRequire } from 'node:module';
import type PinoPretty from 'pino-pretty';
import { camelToSnake } from './util/naming.js';

export type { Logger };

/**
 * The option names that hold a secret: the drop options flagged secret in src/drops/options.ts. Named here because the
 * logger sits below the drops (layers point down, docs/conventions.md); src/config/load.test.ts checks both lists agree.
 */
export const SECRET_OPTION_NAMES: readonly string[] = ['password', 'privateKey', 'passphrase'];

/**
 * Paths pino masks wherever they appear in a log record: secrets never reach a log line. The secret options are
 * masked in both spellings, and a drop's whole `pgp` section (its keys).
 */
const SECRET_KEYS = [...new Set(['token', 'authorization', 'secret', 'pgp', ...SECRET_OPTION_NAMES.flatMap((k) => [k, camelToSnake(k)])])];
export const REDACTED_PATHS = [...SECRET_KEYS.flatMap((k) => [k, `*.${k}`]), 'headers.authorization', '*.headers.authorization'];

/** pino-pretty's time format on a terminal: ISO 8601 in local time with its offset (2026-11-24T23:10:00.123+01:00). */
export const PRETTY_TIME_FORMAT = "SYS:yyyy-mm-dd'T'HH:MM:ss.lp";

/**
 * Stable codes of the log records that tests and log searches wait on or count, carried in a record's `event` field:
 * the message is for people and may be reworded, the code stays. A call site writes `event: 'file.claimed'` in the
 * record's object; test/architecture/log-events.test.ts refuses a code not listed here and a code no call site logs.
 */
export const LOG_EVENTS = [
  /** The service started its schedules and watchers (`wisbridge run` is ready). */
  'bridge.running',
  /** A watched inbox holds a file that stopped changing: it is offered to its job. */
  'file.ready',
  /**
   * A file was claimed in the journal (`claim`: new or resume; a resume under leases names `from` whom, the fencing
   * token taken, `leaseToken`, and the takeover's `reason`: lost, handover, released, unowned).
   */
  'file.claimed',
  /** Another instance holds the file's lease: this one leaves it alone. */
  'file.busy',
  /** A watched inbox was listed (debug; `job`, `drop`): one look of the watcher at its inbox. */
  'inbox.listed',
  /** A file nobody works on any more (its owner gave it up or died) was queued to be taken over (`file`, `fileId`, `owner`). */
  'file.takeover-queued',
  /** Another instance took the file over: its run stopped here. */
  'file.lease-lost',
  /** Another instance took a scheduled tick over: its run stopped here (`schedule`, `tick`). */
  'tick.lease-lost',
  /** The run of a tick another instance took over has ended here, having stopped at the takeover (`schedule`, `tick`). */
  'tick.run-stopped',
  /** A scheduled tick's finish did not reach the journal: it is tried again while the tick is held (`schedule`, `tick`). */
  'tick.finish-retried',
  /** A scheduled tick's finish that failed was recorded on a later try (`schedule`, `tick`, `attempts`). */
  'tick.finished-late',
  /** An unwritten export of a live instance (`owner`) is left to it, not taken over (`file`). */
  'export.held',
  /** An unwritten export was taken over from an owner no longer live (`file`, `from`, `outcome`: written or abandoned). */
  'export.taken-over',
  /** A listed record cannot be written as X12 (a value holds a separator): left out of the work list and not acknowledged, it stays pending (`record`, `number`, `reason`). */
  'export.record-unwritable',
  /** A re-drive takes up one a crash stopped: what it left in flight is reconciled before the file goes on. */
  'redrive.resumed',
  /** An instance found a re-drive its run left unfinished, which nobody holds, and re-drives the file again (`file`, `from`). */
  'redrive.takeup',
  /** A file's run ended with its result file written and the file moved (`outcome`: done or failed). */
  'file.processed',
  /** An X12 file's acknowledgement (997/999, TA1) was written to the result folder (`ack`: its name). */
  'x12.acknowledged',
  /** A partner's 997/999 was matched to the X12 interchange written and recorded on its export (`export`, `partner`, `group`, `code`: AK901). */
  'x12.ack-received',
  /** A received 997/999 matches no interchange written (an unknown group or sender, a refused envelope): its rows are errors of its result file. */
  'x12.ack-unmatched',
  /** A partner's 997/999 rejected a set (or a group) we wrote: `export`, `file`, `partner`, `group`, `set`, `reason`; an x12-set-rejected alert goes with it. */
  'x12.set-rejected',
  /** No 997/999 came for an interchange written within its partner's `ack_expected_within`: an x12-ack-overdue alert goes with it. */
  'x12.ack-overdue',
  /** The overdue alert of an export was cleared: its 997/999 arrived. */
  'x12.ack-overdue-cleared',
  /** A job run started (`trigger`: schedule, watch, takeover, …). */
  'job.run.started',
  /** A job run ended (`result`: ok or partial; `files`: how many files it processed). */
  'job.run.finished',
  /** A job run ended with an error. */
  'job.run.failed',
  /** An SFTP drop closed its connection after it was idle (it reopens on demand). */
  'sftp.idle-closed',
  /** The journal answers heartbeats again after an outage: the instance claims and sends again. */
  'journal.answers-again',
  /** An instance of the journal's list has had no heartbeat for longer than a lease and never stopped: alerted. */
  'instance.lost',
  /** A lost instance's alert was cleared (`why`: it heartbeats again, its host runs an instance again, or it was forgotten). */
  'instance.lost-cleared',
] as const;
export type LogEvent = (typeof LOG_EVENTS)[number];

export interface LogOptions {
  level?: string;
  /** Human-readable output (pino-pretty); defaults to true on a TTY. */
  pretty?: boolean;
  destination?: NodeJS.WritableStream;
}

/**
 * pino writes a child's bindings and the call's object side by side, so a key in both would appear twice in one
 * JSON line (`"drop":"wms","drop":"wms"`). The bindings name the context: the call's copy is left out.
 */
function withoutBoundKeys(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  const first: unknown = args[0];
  if (first !== null && typeof first === 'object' && !(first instanceof Error)) {
    const bound = this.bindings();
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(first)) {
      if (!Object.hasOwn(bound, key)) continue;
      copy ??= { ...(first as Record<string, unknown>) };
      delete copy[key];
    }
    if (copy) args[0] = copy;
  }
  (method as (...a: unknown[]) => void).apply(this, args);
}

export function createLogger(options: LogOptions = {}): Logger {
  const level = options.level ?? process.env.WISBRIDGE_LOG_LEVEL ?? 'info';
  const pretty = options.pretty ?? (process.stderr.isTTY === true && !options.destination);
  const base = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: undefined, hooks: { logMethod: withoutBoundKeys } };
  if (pretty && options.destination) {
    // pino-pretty, which every start would pay to load, only where a person reads the log: a service logs JSON
    // (docs/performance.md, "Settings chosen by measurement").
    const pinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
    return pino(base, pinoPretty({ destination: options.destination, translateTime: PRETTY_TIME_FORMAT, colorize: false, sync: true }));
  }
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, translateTime: PRETTY_TIME_FORMAT } } });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
