import type { WriteOutcome } from './contract/index.js';
import type { YamlProblem } from './util/yaml-document.js';

/**
 * Typed errors with stable codes. Every error a user or operator can cause carries a code from
 * ERROR_CODES; the CLI prints `code: message` for these and never a stack trace.
 * The catalogue docs/errors.md is generated from this module and src/docs/error-catalogue.ts (`npm run generate`).
 */
export const ERROR_CODES = {
  // configuration and mapping definitions
  CONFIG_INVALID: 'the configuration file is invalid (also: a token that cannot be read, a bad service URL)',
  MAPPING_INVALID: 'a mapping definition is invalid',
  MAPPING_NOT_FOUND: 'no mapping definition matches',
  USAGE: 'the command line is wrong',
  FAILPOINTS: 'WISBRIDGE_FAILPOINTS (a test hook) names an unknown failpoint or action',
  // input files and rows
  FILE_UNREADABLE: 'an input file cannot be read or decoded',
  FILE_NAME: 'an input file name is not taken (a backslash or control character, not UTF-8, or over 200 bytes)',
  ROW_INVALID: 'a row cannot be mapped into a valid request',
  FILE_LAYOUT: 'an input file lacks the columns or record types its mapping expects, names a column twice, or breaks its control totals',
  FILE_CHECKSUM: 'an input file does not match its checksum file (NAME.sha256 / NAME.md5), or a required checksum file is missing',
  FILE_PGP: 'an OpenPGP input file cannot be decrypted, fails its integrity check, lacks integrity protection, or lacks the partner\'s valid signature',
  FILE_ARCHIVE: 'a compressed input file (.gz, .zip) is damaged, of an unsupported kind, or expands beyond the drop\'s limits (a zip bomb)',
  GROUPING_LIMIT: 'an input file holds more open documents or rows than its mapping, or the memory of the thread that maps it, allows',
  X12_SYNTAX: 'an X12 input file cannot be split into segments: bytes between interchanges that are not an ISA segment, an ISA without its 16 elements, or a segment without its terminator',
  X12_ENVELOPE: 'an X12 envelope (interchange, functional group or transaction set) breaks a control rule: what it encloses is refused, the rest of the file goes on',
  X12_WRITE: 'a value cannot be written as X12: it holds one of the interchange\'s separators, or is too long for its fixed-width ISA field',
  // the service
  CONTRACT_VIOLATION: 'a response of the service breaks the interface contract; the message names the endpoint, the field path and the (truncated) value',
  AUTHENTICATION: 'the service refused the token (401)',
  RATE_LIMITED: 'the service kept answering 429 (or asked to wait longer than allowed) after bounded retries',
  UNAVAILABLE: 'the service could not be reached or answered 5xx after bounded retries',
  BAD_REQUEST: 'the service rejected a request (4xx) that is not per item (bad list query, cycle count with an unknown SKU, SSCC of an unknown shipment)',
  UNCERTAIN_OUTCOME: 'a write was sent but its outcome is unknown (connection dropped after sending, timeout awaiting the answer, 502/504)',
  TIMEOUT: 'an operation took longer than its deadline',
  ABORTED: 'an operation was aborted by shutdown',
  INVALID_REQUEST: 'the client refused to send a request that breaks the interface contract (bad filter, bad SSCC id, bad cycle count)',
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
  WORK_FOLDER: 'the bridge\'s working folder (private copies of input files, their expanded or decrypted members) cannot be written: full, read-only or failing',
  JOURNAL_STATE: 'a journal operation does not fit the recorded state',
  LEASE_LOST: 'another wisbridge instance holds the lease of the file, unwritten export or scheduled tick (it took over an expired lease, with a newer fencing token): this instance\'s write was refused and nothing of it was written',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether a failed call may have been applied by the service (`details.outcome`). */
export type CallOutcome = 'not-applied' | 'unknown';

/*
 * What each code carries beyond its message (`details`), typed per code in ErrorDetailsByCode: checking the code
 * (isWisbridgeError(error, 'LEASE_LOST'), or error.code on a narrowed error) narrows the details, and readers never
 * cast. None holds a secret: details cross worker threads and reach logs.
 */

/** A client call the transport gave up on: whether it may have been applied, the last HTTP status, the attempts made. */
export interface CallFailure { endpoint: string; outcome: CallOutcome; status?: number; attempts?: number }
/** A call the service answered with a status that is not per item and not retried. */
export interface RefusedCall { endpoint: string; status: number }
/** The endpoint of a request the client refused to send, or of an answer it could not read. */
export interface AtEndpoint { endpoint: string }
/** Where an answer breaks the contract: the field path, the offending value (shortened) and how many issues. */
export interface ContractBreach { endpoint: string; path: string; value: string; issues: number }

/** Every problem found in a configuration or mapping file, with its position. */
export interface FileProblems { problems: readonly YamlProblem[] }
/** Every problem of a journal section's options, as `path: message`. */
export interface JournalOptionProblems { problems: readonly string[] }
/** A mapping that needs the ids of references from the API was run without reference ids. */
export interface ReferencesNeeded { needs: 'references'; mapping: string }

/** The drop an operation failed on. */
export interface AtDrop { drop: string }
/** …the file in its folder, when the operation was about one. */
export interface AtDropFile extends AtDrop { folder: string; file: string }
/** …the connection was lost (the next operation reconnects). */
export interface ConnectionLost extends AtDrop { connectionLost: true }
/** …the host key fingerprint the server presented. */
export interface HostKeyPresented extends AtDrop { presented: string }
/** …the file name refused as not a plain name. */
export interface RefusedName extends AtDrop { name: string }

/** What a journal operation refused: export records, a file's items, a request's item, items not uncertain. */
export type JournalStateDetails =
  | { ids: number[] }
  | { fileId: number }
  | { fileId: number; seq: number }
  | { fileId: number; endpoint: string }
  | { requestId: number; seq: number }
  | { missing: (number | string)[] };

/** The file whose lease another instance holds. */
export interface LeaseOf { fileId: number }
/** The folder the bridge could not write in. */
export interface InFolder { folder: string }

/** Where an X12 file could not be split into segments: its name (when known) and the byte offset. */
export interface X12Offset { file?: string; offset: number }
/** The envelope that breaks a control rule, the rule (a reason of src/x12/reasons.ts) and its acknowledgement code. */
export interface X12Refusal { interchange: string; group?: string; set?: string; reason: string; ackCode?: string }
/** The segment and element (1-based) of a value the X12 writer refused. */
export interface X12Field { segment: string; element: number }

/** The details of each code; `undefined` where some of its errors carry none. */
export interface ErrorDetailsByCode {
  CONFIG_INVALID: FileProblems | JournalOptionProblems | undefined;
  MAPPING_INVALID: FileProblems | undefined;
  MAPPING_NOT_FOUND: undefined;
  USAGE: ReferencesNeeded | undefined;
  FAILPOINTS: undefined;
  FILE_UNREADABLE: undefined;
  FILE_NAME: undefined;
  ROW_INVALID: undefined;
  FILE_LAYOUT: undefined;
  FILE_CHECKSUM: undefined;
  FILE_PGP: undefined;
  FILE_ARCHIVE: undefined;
  GROUPING_LIMIT: undefined;
  X12_SYNTAX: X12Offset;
  X12_ENVELOPE: X12Refusal;
  X12_WRITE: X12Field;
  CONTRACT_VIOLATION: AtEndpoint | ContractBreach;
  AUTHENTICATION: CallFailure;
  RATE_LIMITED: CallFailure;
  UNAVAILABLE: CallFailure;
  BAD_REQUEST: RefusedCall;
  UNCERTAIN_OUTCOME: CallFailure;
  TIMEOUT: CallFailure | AtDrop | ConnectionLost;
  ABORTED: CallFailure;
  INVALID_REQUEST: AtEndpoint | undefined;
  DROP_CONNECT: AtDrop | ConnectionLost;
  DROP_HOST_KEY: AtDrop | HostKeyPresented;
  DROP_AUTH: AtDrop;
  DROP_IO: AtDrop | RefusedName;
  DROP_PERMISSION: AtDrop;
  DROP_NOT_FOUND: AtDrop | undefined;
  DROP_EXISTS: AtDrop | AtDropFile | undefined;
  DROP_NOT_REGULAR: AtDropFile;
  DROP_CHANGED: AtDrop | AtDropFile;
  JOURNAL: undefined;
  WORK_FOLDER: InFolder;
  JOURNAL_STATE: JournalStateDetails | undefined;
  LEASE_LOST: LeaseOf | undefined;
}

/**
 * A batch write stopped by a fatal error (client `runWrite`) rethrows it with its code and message, its details
 * completed by what became of the items: whatever the code, since any error (a lost lease before a batch, say) stops it.
 */
export interface WriteStop {
  /** The outcomes of the items decided so far (the batch in flight as uncertain when it may have applied)… */
  outcomes: WriteOutcome[];
  /** …and the indexes of the items never sent. */
  notSent: number[];
}
/** A code's details completed by WriteStop; where the code's errors may carry none, its own fields may be missing. */
type Stopped<D> = [NonNullable<D>] extends [never] ? WriteStop
  : undefined extends D ? Partial<NonNullable<D>> & WriteStop
  : D & WriteStop;

/** The details an error of each code may carry: its own, or completed by WriteStop. */
type AnyDetailsByCode = { [C in ErrorCode]: ErrorDetailsByCode[C] | Stopped<ErrorDetailsByCode[C]> };
export type DetailsOf<C extends ErrorCode> = AnyDetailsByCode[C];

/** Codes whose errors may carry no details (the others require them where they are raised). */
export type CodeWithoutDetails = { [C in ErrorCode]: undefined extends ErrorDetailsByCode[C] ? C : never }[ErrorCode];
/** Codes the client transport raises with a CallFailure. */
export type CallFailureCode = { [C in ErrorCode]: CallFailure extends ErrorDetailsByCode[C] ? C : never }[ErrorCode];

interface ErrorOptions<C extends ErrorCode> { cause?: unknown; details: DetailsOf<C> }
type OptionsOf<C extends ErrorCode> = undefined extends ErrorDetailsByCode[C]
  ? [options?: { cause?: unknown; details?: DetailsOf<C> }]
  : [options: ErrorOptions<C>];

export class WisbridgeError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  /** Undefined only for codes that allow it (ErrorDetailsByCode), as the constructor requires. */
  readonly details: DetailsOf<C> | undefined;

  constructor(code: C, message: string, ...[options]: OptionsOf<C>) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WisbridgeError';
    this.code = code;
    this.details = options?.details;
  }
}

/** A WisbridgeError of one of the codes C, as a union over them: comparing `code` narrows `details`. */
export type WisbridgeErrorOf<C extends ErrorCode = ErrorCode> = { [K in C]: WisbridgeError<K> }[C];

export function isWisbridgeError<C extends ErrorCode = ErrorCode>(error: unknown, code?: C): error is WisbridgeErrorOf<C> {
  return error instanceof WisbridgeError && (code === undefined || error.code === code);
}

/** What a stopped batch write had decided and never sent (WriteStop), or undefined for any other error. */
export function writeStopOf(error: unknown): WriteStop | undefined {
  return isWisbridgeError(error) && error.details !== undefined && 'notSent' in error.details ? error.details : undefined;
}

/** Whether a failed client call may have been applied (CallFailure), or undefined for any other error. */
export function callOutcomeOf(error: unknown): CallOutcome | undefined {
  return isWisbridgeError(error) && error.details !== undefined && 'outcome' in error.details ? error.details.outcome : undefined;
}

/** A one-line, secret-free description of any thrown value, for logs and result files. */
export function describeError(error: unknown): string {
  if (error instanceof WisbridgeError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
