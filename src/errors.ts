import type { WriteOutcome } from './contract/index.js';

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
  FILE_NAME: 'an input file name is not taken (a backslash or control character, not UTF-8, or over 200 bytes)',
  ROW_INVALID: 'a row cannot be mapped into a valid request',
  FILE_LAYOUT: 'an input file lacks the columns or record types its mapping expects, names a column twice, or breaks its control totals',
  FILE_CHECKSUM: 'an input file does not match its checksum file (NAME.sha256 / NAME.md5), or a required checksum file is missing',
  FILE_PGP: 'an OpenPGP input file cannot be decrypted, fails its integrity check, lacks integrity protection, or lacks the partner\'s valid signature',
  FILE_ARCHIVE: 'a compressed input file (.gz, .zip) is damaged, of an unsupported kind, or expands beyond the drop\'s limits (a zip bomb)',
  GROUPING_LIMIT: 'an input file holds more open documents or rows than its mapping, or the memory of the thread that maps it, allows',
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
  DROP_NOT_REGULAR: 'a name in a drop folder is not a regular file (a symbolic link, folder or device): it is never read',
  DROP_CHANGED: 'a file on a drop was replaced or changed while the bridge had it open',
  // journal
  JOURNAL: 'the journal database failed',
  JOURNAL_STATE: 'a journal operation does not fit the recorded state',
  LEASE_LOST: 'another wisbridge instance holds the lease of the file or scheduled tick: the write was refused, nothing of it written',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether a failed call may have been applied by the service (`details.outcome`). */
export type CallOutcome = 'not-applied' | 'unknown';

/**
 * What an error carries beyond its code and message, each field typed once here (readers never cast). A field is
 * set by the producer named beside it; none holds a secret (details cross worker threads and reach logs).
 */
export interface ErrorDetails {
  /** Client: the endpoint id of the call, the last HTTP status and the attempts made. */
  endpoint?: string;
  status?: number;
  attempts?: number;
  /** Client transport: whether the failed call may have been applied. */
  outcome?: CallOutcome;
  /** Client write stopped by a fatal error: outcomes of the items settled so far (in flight as uncertain)… */
  outcomes?: WriteOutcome[];
  /** …and the indexes of the items never sent. */
  notSent?: number[];
  /** Client response check: where the contract was broken, the offending value (shortened), how many issues. */
  path?: string;
  value?: unknown;
  issues?: number;
  /** Journal: the record ids an export operation refused (already exported, or not exported)… */
  ids?: number[];
  /** …and the file, request, item or items (not uncertain) a state error is about. */
  fileId?: number;
  requestId?: number;
  seq?: number;
  missing?: (number | string)[];
  /** Mapping: what a mapping needs that it was not given (`references`: a resolver), and its name. */
  needs?: 'references';
  mapping?: string;
  /** Configuration and mapping files: every problem found, with its position. */
  problems?: readonly unknown[];
  /** Drops: the drop, the folder and file (`name` for a refused file name), whether the connection was lost (reconnect), the host key fingerprint presented. */
  drop?: string;
  folder?: string;
  file?: string;
  name?: string;
  connectionLost?: boolean;
  presented?: string;
}

export class WisbridgeError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: ErrorDetails }) {
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
