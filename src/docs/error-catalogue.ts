import { ERROR_CODES, type ErrorCode, type ErrorDetailsByCode, type WriteStop } from '../errors.js';

/** The fields of a details type, over every member of its union (`undefined`, for no details, has none). */
type FieldsOf<D> = D extends object ? keyof D : never;

interface CatalogueEntry<C extends ErrorCode> {
  raisedBy: string;
  action: string;
  /** One line per field the code's details may carry: the compiler requires every field, and no other. */
  fields: { readonly [K in FieldsOf<ErrorDetailsByCode[C]>]: string };
}

const ENDPOINT = 'the endpoint id of the call';
const DROP = 'the name of the drop';
const CONNECTION_LOST = '`true` when the SFTP connection was lost (the next operation reconnects)';
const DROP_FILE = { folder: 'the folder of the file it was about', file: 'that file\'s name' };
const CALL_FAILURE = {
  endpoint: ENDPOINT,
  outcome: '`not-applied` or `unknown`: whether the failed call may have been applied by the service',
  status: 'the last HTTP status, when the service answered',
  attempts: 'the attempts made',
};
const WRITE_STOP: { readonly [K in keyof WriteStop]: string } = {
  outcomes: 'the outcomes of the items decided so far, the batch in flight reported uncertain when it may have applied',
  notSent: 'the indexes of the items never sent',
};

/** What each code means to an operator beyond its meaning in ERROR_CODES: who raises it, what to do, its details. */
export const ERROR_CATALOGUE: { readonly [C in ErrorCode]: CatalogueEntry<C> } = {
  CONFIG_INVALID: {
    raisedBy: 'config, client `readSecret` / `WisClient`',
    action: 'fix the configuration; the message names the field, variable or file',
    fields: { problems: 'every problem found, each with its file, line and column (the journal section\'s options: their path and message)' },
  },
  MAPPING_INVALID: {
    raisedBy: 'mapping',
    action: 'fix the mapping file at the position given',
    fields: { problems: 'every problem found, each with its file, line and column' },
  },
  MAPPING_NOT_FOUND: {
    raisedBy: 'mapping, pipeline',
    action: 'add or select a mapping',
    fields: {},
  },
  USAGE: {
    raisedBy: 'CLI',
    action: 'see `wisbridge <command> --help`',
    fields: { needs: '`references`: the mapping needs the ids of references from the API and was given no reference ids (`wisbridge map` then asks for `--references` or `--url`)', mapping: 'its name' },
  },
  FAILPOINTS: {
    raisedBy: 'any command, at its start',
    action: 'unset `WISBRIDGE_FAILPOINTS` (it is for tests), or name points and actions of docs/failpoints.md',
    fields: {},
  },
  FILE_UNREADABLE: {
    raisedBy: 'pipeline',
    action: 'check encoding / permissions',
    fields: {},
  },
  FILE_NAME: {
    raisedBy: 'inbound pickup',
    action: 'the file goes to error/ with a reason, nothing of it is applied; drop it again under a plain name',
    fields: {},
  },
  ROW_INVALID: {
    raisedBy: 'mapping',
    action: 'fix the row (result file names it)',
    fields: {},
  },
  FILE_LAYOUT: {
    raisedBy: 'mapping',
    action: 'fix the file or the mapping; for control totals, ask the WMS for a complete file',
    fields: {},
  },
  FILE_CHECKSUM: {
    raisedBy: 'inbound pickup, before the claim',
    action: 'the file (and its checksum file) goes to error/ with the reason naming both digests, or waits in the inbox (`checksum_missing` / `checksum_mismatch: wait`); nothing of it is applied — transfer it again with a matching checksum file',
    fields: {},
  },
  FILE_PGP: {
    raisedBy: 'inbound pickup, before the plaintext is claimed',
    action: 'the file goes to error/ with the reason (which check failed; never key material or plaintext), nothing of it is applied; ask the partner to encrypt to the bridge\'s current key, sign with the agreed key, and use an integrity-protected format',
    fields: {},
  },
  FILE_ARCHIVE: {
    raisedBy: 'inbound pickup, before any member is claimed',
    action: 'the compressed file goes to error/ with the reason, nothing of it is applied; send it again intact, or raise `max_expanded_bytes` / `max_expansion_ratio` / `max_zip_entries` if it is genuine',
    fields: {},
  },
  GROUPING_LIMIT: {
    raisedBy: 'mapping',
    action: 'sort the file and set `grouping.sorted: true`, split the file, or raise the limit (`grouping.max_open_documents`; `mapping_threads.heap_mb` in the configuration)',
    fields: {},
  },
  X12_SYNTAX: {
    raisedBy: 'X12 segment reader',
    action: 'the file cannot be read past the offset given; ask the partner for a well-formed file (every interchange starting with a complete ISA, every segment terminated)',
    fields: { file: 'the file\'s name, when the reader was given it', offset: 'the byte offset in the file where reading stopped' },
  },
  X12_ENVELOPE: {
    raisedBy: 'X12 envelope validator',
    action: 'only the envelope named is refused (an interchange answered by a TA1, a group or set by its 997/999); ask the partner to send it again with consistent control numbers and counts',
    fields: {
      interchange: 'the interchange control number (ISA13)',
      group: 'the group control number (GS06), when a group or set is refused',
      set: 'the transaction set control number (ST02), when a set is refused',
      reason: 'the broken rule (docs/x12.md)',
      ackCode: 'the code the acknowledgement carries for it: TA105, AK905 or AK502',
    },
  },
  X12_WRITE: {
    raisedBy: 'X12 writer',
    action: 'a value to be sent holds a separator of the interchange or is too long for its ISA field: change the value or the separators',
    fields: { segment: 'the segment id', element: 'the element position (1-based)' },
  },
  CONTRACT_VIOLATION: {
    raisedBy: 'client',
    action: 'fatal for the run: the service changed or misbehaves; report it. Writes in flight are reported uncertain',
    fields: { endpoint: ENDPOINT, path: 'the field path where the answer breaks the contract', value: 'the offending value, shortened', issues: 'how many issues the answer has' },
  },
  AUTHENTICATION: {
    raisedBy: 'client',
    action: 'fatal for the run: renew the token (value, env var or file)',
    fields: CALL_FAILURE,
  },
  RATE_LIMITED: {
    raisedBy: 'client',
    action: 'fatal for the run; nothing of the failed request was applied; retry later',
    fields: CALL_FAILURE,
  },
  UNAVAILABLE: {
    raisedBy: 'client',
    action: 'fatal for the run; `details.outcome` says whether anything may have been applied',
    fields: CALL_FAILURE,
  },
  BAD_REQUEST: {
    raisedBy: 'client',
    action: 'fix the input; nothing was applied',
    fields: { endpoint: ENDPOINT, status: 'the HTTP status the service answered' },
  },
  UNCERTAIN_OUTCOME: {
    raisedBy: 'client',
    action: 'per item (`uncertain: true`) in write outcomes; thrown by single writes (cycle counts). Check the service before resending',
    fields: CALL_FAILURE,
  },
  TIMEOUT: {
    raisedBy: 'client, drops (an SFTP operation)',
    action: 'raise the deadline or check the service; `details.outcome` as above',
    fields: { ...CALL_FAILURE, drop: DROP, connectionLost: CONNECTION_LOST },
  },
  ABORTED: {
    raisedBy: 'client',
    action: 'none: the run stops; `details.outcomes` lists what was decided',
    fields: CALL_FAILURE,
  },
  INVALID_REQUEST: {
    raisedBy: 'client',
    action: 'fix the caller\'s input; nothing was sent',
    fields: { endpoint: ENDPOINT },
  },
  DROP_CONNECT: {
    raisedBy: 'drops',
    action: 'check host / network',
    fields: { drop: DROP, connectionLost: CONNECTION_LOST },
  },
  DROP_HOST_KEY: {
    raisedBy: 'drops',
    action: 'verify and update the pinned fingerprint',
    fields: { drop: DROP, presented: 'the fingerprint of the host key the server presented' },
  },
  DROP_AUTH: {
    raisedBy: 'drops',
    action: 'fix the credentials',
    fields: { drop: DROP },
  },
  DROP_IO: {
    raisedBy: 'drops',
    action: 'retried later; check the server',
    fields: { drop: DROP, name: 'the name refused as not a plain file name' },
  },
  DROP_PERMISSION: {
    raisedBy: 'drops',
    action: 'fix permissions',
    fields: { drop: DROP },
  },
  DROP_NOT_FOUND: {
    raisedBy: 'drops',
    action: 'create it or fix the path',
    fields: { drop: DROP },
  },
  DROP_EXISTS: {
    raisedBy: 'drops',
    action: 'remove it or allow overwrite',
    fields: { drop: DROP, ...DROP_FILE },
  },
  DROP_NOT_REGULAR: {
    raisedBy: 'inbound pickup',
    action: 'the name goes to error/ with a reason; drop real files, never links',
    fields: { drop: DROP, ...DROP_FILE },
  },
  DROP_CHANGED: {
    raisedBy: 'inbound pickup, archive move',
    action: 'nothing to do: the replacement stays in the inbox and is processed as a file of its own',
    fields: { drop: DROP, ...DROP_FILE },
  },
  JOURNAL: {
    raisedBy: 'journal',
    action: 'check disk / file',
    fields: {},
  },
  WORK_FOLDER: {
    raisedBy: 'inbound pickup (the private copy of a file, the members of a .gz, .zip or OpenPGP file)',
    action: 'free space in the folder named, or make it writable by the bridge\'s user: the file stays in the inbox and is taken again at the next run',
    fields: { folder: 'the folder (beside the journal: JOURNAL.snapshots)' },
  },
  JOURNAL_STATE: {
    raisedBy: 'journal',
    action: 'see the message',
    fields: {
      ids: 'the export records refused (already exported, or not exported)',
      fileId: 'the file whose items the operation was about',
      seq: 'the item (line sequence) of that file or request',
      endpoint: 'the endpoint the items were expected for',
      requestId: 'the request an outcome was given for',
      missing: 'the items named as uncertain that are not (ids, or FILE#SEQ)',
    },
  },
  LEASE_LOST: {
    raisedBy: 'journal (lease mode: `wisbridge run` with several instances)',
    action: 'none: the instance stops that file or tick, the owner finishes it; frequent ones mean heartbeats fail or the lease is too short (`instance.lease_ms`)',
    fields: { fileId: 'the file whose lease another instance holds (not given for a scheduled tick or a re-drop)' },
  },
};

/** docs/errors.md (`npm run generate`). */
export function errorCatalogue(): string {
  const codes = Object.keys(ERROR_CODES).filter((key): key is ErrorCode => key in ERROR_CODES);
  const row = (code: ErrorCode) => `| \`${code}\` | ${ERROR_CODES[code]} | ${ERROR_CATALOGUE[code].raisedBy} | ${ERROR_CATALOGUE[code].action} |`;
  const fieldList = (fields: Readonly<Record<string, string>>) => Object.entries(fields).map(([name, text]) => `\`${name}\` ${text}`).join('; ');
  // Codes with the same fields (the transport's, say) share one line.
  const byFields = new Map<string, ErrorCode[]>();
  for (const code of codes) {
    const fields = fieldList(ERROR_CATALOGUE[code].fields);
    if (fields !== '') byFields.set(fields, [...(byFields.get(fields) ?? []), code]);
  }
  const details = [...byFields].map(([fields, shared]) => `- ${shared.map((code) => `\`${code}\``).join(', ')}: ${fields}.`);
  return [
    '# Error catalogue',
    '',
    '<!-- generated by `npm run generate` from src/errors.ts and src/docs/error-catalogue.ts; do not edit by hand -->',
    '',
    'Every error a user or operator can cause is a `WisbridgeError` (`src/errors.ts`) with one of these stable codes.',
    'The CLI prints `code: message`, never a stack trace. Messages never contain secrets (tokens, passwords).',
    '',
    '| code | meaning | raised by | what to do |',
    '|---|---|---|---|',
    ...codes.map(row),
    '',
    '## Details',
    '',
    'Beyond its code and message, an error may carry `details`, typed per code (`ErrorDetailsByCode` in `src/errors.ts`):',
    'checking the code (`isWisbridgeError(error, \'LEASE_LOST\')`) narrows them, and code reads them without casts. A field',
    'is added there first, then described in `src/docs/error-catalogue.ts` (the compiler asks for it). Details never hold',
    'a secret: they cross worker threads and reach logs. Codes not listed carry none; a field may be missing from some',
    'errors of its code.',
    '',
    ...details,
    '',
    `An error that stops a batch write (the client's \`write\`), whatever its code, also carries ${fieldList(WRITE_STOP)}.`,
    '',
  ].join('\n');
}
