/**
 * Typed errors with stable codes. Every error a user or operator can cause carries a code from
 * ERROR_CODES; the CLI prints `code: message` for these and never a stack trace.
 * The catalogue is documented in docs/errors.md — keep both in step.
 */
export const ERROR_CODES = {
  // configuration and mapping definitions
  CONFIG_INVALID: 'the configuration file is invalid',
  MAPPING_INVALID: 'a mapping definition is invalid',
  MAPPING_NOT_FOUND: 'no mapping definition matches',
  USAGE: 'the command line is wrong',
  // input files and rows
  FILE_UNREADABLE: 'an input file cannot be read or decoded',
  ROW_INVALID: 'a row cannot be mapped into a valid request',
  FILE_LAYOUT: 'an input file lacks the columns or record types its mapping expects, names a column twice, or breaks its control totals',
  GROUPING_LIMIT: 'an input file holds more open documents or rows than its mapping allows',
  // the service
  CONTRACT_VIOLATION: 'a response of the service breaks the interface contract',
  AUTHENTICATION: 'the service refused the token (401)',
  RATE_LIMITED: 'the service kept answering 429',
  UNAVAILABLE: 'the service could not be reached or answered 5xx',
  BAD_REQUEST: 'the service rejected a request (4xx)',
  UNCERTAIN_OUTCOME: 'a write was sent but its outcome is unknown',
  TIMEOUT: 'an operation took longer than its deadline',
  ABORTED: 'an operation was aborted by shutdown',
  INVALID_REQUEST: 'the client refused to send a request that breaks the interface contract (bad filter or item)',
  // file drops
  DROP_CONNECT: 'the drop (SFTP server) could not be reached',
  DROP_HOST_KEY: 'the SFTP host key is unknown or changed',
  DROP_AUTH: 'the SFTP server refused the credentials',
  DROP_IO: 'a file operation on a drop failed',
  DROP_PERMISSION: 'a file operation on a drop was denied',
  DROP_NOT_FOUND: 'a file or folder is missing on a drop',
  DROP_EXISTS: 'a file already exists on a drop and overwriting was not requested',
  // journal
  JOURNAL: 'the journal database failed',
  JOURNAL_STATE: 'a journal operation does not fit the recorded state',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class WisbridgeError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WisbridgeError';
    this.code = code;
    this.details = options?.details;
  }
}

export function isWisbridgeError(error: unknown, code?: ErrorCode): error is WisbridgeError {
  return error instanceof WisbridgeError && (code === undefined || error.code === code);
}

/** A one-line, secret-free description of any thrown value, for logs and result files. */
export function describeError(error: unknown): string {
  if (error instanceof WisbridgeError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
