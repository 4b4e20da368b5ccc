import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths pino masks wherever they appear in a log record: secrets never reach a log line. */
export const REDACTED_PATHS = [
  'token', '*.token', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'password', '*.password', 'passphrase', '*.passphrase', 'privateKey', '*.privateKey', 'secret', '*.secret',
];

export interface LogOptions {
  level?: string;
  /** Human-readable output (pino-pretty); defaults to true on a TTY. */
  pretty?: boolean;
  destination?: NodeJS.WritableStream;
}

export function createLogger(options: LogOptions = {}): Logger {
  const level = options.level ?? process.env.WISBRIDGE_LOG_LEVEL ?? 'info';
  const pretty = options.pretty ?? (process.stderr.isTTY === true && !options.destination);
  const base = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: undefined };
  if (pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino(base, (options.destination as pino.DestinationStream | undefined) ?? pino.destination(2));
}

/** A logger that drops everything: for library use and tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: 'silent' });
