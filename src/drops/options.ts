import { z } from 'zod';
import { SECRET_DROP_OPTIONS } from './secret-options.js';

export { SECRET_DROP_OPTIONS, type SecretDropOption } from './secret-options.js';

/**
 * Options of a drop: a flat list, every option documented and defaulted. docs/drops.md carries the
 * table generated from these schemas (renderOptionsTable in options-doc.ts); a test keeps both in step.
 * The TypeScript API (`createDrop`) takes the camelCase names below; the configuration file writes them in
 * snake_case (`settle_ms`), and descriptions name them that way (src/config/schema.ts derives its drop schemas).
 */
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/** Options flagged secret, from SECRET_DROP_OPTIONS (secret-options.ts): what the configuration's schema and the docs read. */
export const secretOption = z.registry<{ secret: true }>();

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'i');
    return true;
  } catch {
    return false;
  }
}

/** OpenPGP of a drop (src/drops/pgp.ts). Keys are armored text: the configuration takes them by reference. */
export const pgpOptionsSchema = z.strictObject({
  privateKey: z.string().min(1).optional().describe('The bridge\'s armored private key: inbox files ending in `.pgp`, `.gpg` or `.asc` are decrypted with it (and outbox files signed).'),
  passphrase: z.string().min(1).optional().describe('Passphrase of the private key.'),
  partnerKey: z.string().min(1).optional().describe('The partner\'s armored public key: its signatures are verified, outbox files encrypted to it.'),
  requireSignature: z.boolean().default(false).describe('An inbox message must carry a valid signature by the partner key, or the file goes to `error`.'),
  encryptOutbound: z.boolean().default(false).describe('Files written to `outbox` are encrypted to the partner key, as `NAME.pgp`.'),
  signOutbound: z.boolean().default(false).describe('Encrypted outbox files are also signed with the bridge\'s private key.'),
});
export type PgpOptions = z.output<typeof pgpOptionsSchema>;

const commonShape = {
  name: z.string().min(1).optional().describe('Name of the drop in logs and errors (defaults to the type).'),
  inbox: z.string().min(1).default('inbox').describe('Folder of incoming files, relative to `root` unless absolute.'),
  outbox: z.string().min(1).default('outbox').describe('Folder where result and export files are written.'),
  archive: z.string().min(1).default('archive').describe('Folder where processed files are moved.'),
  error: z.string().min(1).default('error').describe('Folder where files that failed as a whole are moved.'),
  pattern: z.string().refine(compiles, { error: 'is not a valid regular expression' }).optional().describe('Regular expression (case-insensitive) a file name must match to be picked up; all names when absent.'),
  stability: z.enum(['settle', 'marker']).default('settle')
    .describe('How a finished upload is recognised: `settle` = size and mtime unchanged over `settle_ms`; `marker` = a marker file `NAME<suffix>` exists.'),
  settleMs: z.number().int().min(0).default(2000).describe('`settle` mode: how long size and mtime must stay unchanged.'),
  markerSuffixes: z.array(z.string().min(1)).min(1).default(['.ok', '.done'])
    .describe('`marker` mode: suffixes of marker files; marker files are never picked up themselves, in either mode.'),
  pollIntervalMs: z.number().int().min(50).default(5000).describe('Interval of the inbox poll (SFTP) or of the safety rescan beside file events (local).'),
  archiveRetentionDays: z.number().int().min(1).optional()
    .describe('`wisbridge run` (retention tick) and `wisbridge journal prune --drops`: delete files in `archive` modified more than this many days ago; kept forever when absent.'),
  outboxRetentionDays: z.number().int().min(1).optional()
    .describe('As `archive_retention_days`, for `outbox` (result files, work lists): set it longer than the WMS takes to fetch its files.'),
  checksumSidecar: z.enum(['off', 'verify', 'require']).default('verify')
    .describe('Inbound checksum files `NAME.sha256` / `NAME.md5` (sha256sum or BSD format): `verify` checks one when present; `require` also wants one for every file; `off` ignores them (they are then candidates like any file).'),
  checksumMissing: z.enum(['wait', 'error']).default('wait')
    .describe('With `checksum_sidecar: require`, a file without its checksum file: `wait` leaves it in the inbox until one arrives; `error` moves it to `error` with the reason.'),
  checksumMismatch: z.enum(['error', 'wait']).default('error')
    .describe('A file whose checksum file does not match it (or holds no digest for it): `error` moves it to `error` with the reason (nothing of it is applied); `wait` leaves it until the file or its checksum file changes.'),
  decompress: z.boolean().default(true)
    .describe('Inbox files ending in `.gz` are gunzipped, `.zip` files expanded (each entry a file of its own, in name order), before they are mapped; false: they are read as they are.'),
  maxExpandedBytes: z.number().int().min(1).default(4 * 1024 ** 3)
    .describe('Largest expanded size of a `.gz` file, or of all the entries of a `.zip` together; beyond it the file goes to `error` (FILE_ARCHIVE).'),
  maxExpansionRatio: z.number().min(1).default(250)
    .describe('Largest expanded / compressed size ratio of a `.gz` file or a `.zip` entry (checked past 1 MiB; CSV compresses 5-50 times, zip bombs a thousand).'),
  maxZipEntries: z.number().int().min(1).default(1000).describe('Most entries a `.zip` may hold.'),
  pgp: pgpOptionsSchema.optional().describe('OpenPGP: decrypt inbox files, verify the partner\'s signature, encrypt (and sign) outbox files; keys by reference.'),
  outboundGzip: z.boolean().default(false)
    .describe('Write every file of `outbox` gzipped as `NAME.gz` (its checksum file and done marker then name the `.gz`).'),
  outboundChecksum: z.enum(['none', 'sha256', 'md5']).default('none')
    .describe('Write a checksum file `NAME.sha256` (or `.md5`, sha256sum format) beside every file written to `outbox`, after the file is in place.'),
  doneMarker: z.string().regex(/^\.[^/\\]+$/, { error: 'a suffix starting with a dot, e.g. .ok' }).optional()
    .describe('Write an empty done marker `NAME<suffix>` (e.g. `.ok`) beside every file written to `outbox`, last (after its checksum file); on a rewrite it is removed first.'),
};

export const localDropOptionsSchema = z.strictObject({
  type: z.literal('local').describe('A folder on this machine or a mounted share.'),
  root: z.string().min(1).describe('Base folder of the drop; relative folder options are resolved against it.'),
  ...commonShape,
  watchEvents: z.boolean().default(true).describe('Use file-system events (chokidar) to notice new files sooner; the periodic rescan runs regardless.'),
  fsync: z.boolean().default(true).describe('fsync a written file (and its folder) before the rename makes it visible.'),
});

export const sftpDropOptionsSchema = z.strictObject({
  type: z.literal('sftp').describe('A folder on an SFTP server.'),
  host: z.string().min(1).describe('SFTP server host name or address.'),
  port: z.number().int().min(1).max(65535).default(22).describe('SFTP server port.'),
  username: z.string().min(1).describe('Login name.'),
  password: z.string().min(1).optional().describe('Password (secret; never logged). Either this or a private key is required.'),
  privateKey: z.string().min(1).optional().describe('Private key text in OpenSSH or PEM format (secret; never logged).'),
  privateKeyPath: z.string().min(1).optional().describe('Path of a private key file, read at connect time.'),
  passphrase: z.string().min(1).optional().describe('Passphrase of an encrypted private key (secret; never logged).'),
  hostKeyFingerprint: z.string().regex(FINGERPRINT, { error: 'must look like SHA256:<43 base64 characters>, as printed by `ssh-keygen -lf`' }).optional()
    .describe('Pinned host key, `SHA256:...` as OpenSSH prints it (`ssh-keygen -lf key.pub`, `ssh-keyscan host | ssh-keygen -lf -`). Any other key is refused.'),
  insecureAcceptAnyHostKey: z.boolean().default(false).describe('Accept any host key (logged as a warning on every connect). Only for tests and first set-up.'),
  root: z.string().min(1).default('.').describe('Base remote folder; relative folder options are resolved against it (`.` = login folder).'),
  ...commonShape,
  connectTimeoutMs: z.number().int().min(100).default(15000).describe('Deadline of connect and handshake.'),
  operationTimeoutMs: z.number().int().min(100).default(30000).describe('Deadline of every single operation (list, stat, rename, ...); a dead server never hangs a run.'),
  keepaliveIntervalMs: z.number().int().min(0).default(10000).describe('SSH keepalive interval (0 = off); a dead server is detected after `keepalive_count_max` missed replies, also during transfers.'),
  keepaliveCountMax: z.number().int().min(1).default(3).describe('Missed keepalive replies before the connection counts as dead.'),
  idleCloseMs: z.number().int().min(0).default(60000).describe('Close the connection after this long without operations (0 = keep open); it is reopened on demand.'),
  reconnectAttempts: z.number().int().min(1).default(5).describe('Connect attempts per operation before giving up with DROP_CONNECT.'),
  reconnectInitialDelayMs: z.number().int().min(0).default(500).describe('Delay before the second connect attempt; doubled after each failure.'),
  reconnectMaxDelayMs: z.number().int().min(0).default(30000).describe('Upper bound of the delay between connect attempts.'),
  endTimeoutMs: z.number().int().min(100).default(5000).describe('How long a graceful `end()` may take before the socket is destroyed.'),
  posixRename: z.enum(['auto', 'never']).default('auto')
    .describe('`auto`: replace files atomically with `posix-rename@openssh.com` when the server advertises it; `never`: always use the documented fallback.'),
}).refine((o) => o.password !== undefined || o.privateKey !== undefined || o.privateKeyPath !== undefined, {
  error: 'one of password, privateKey or privateKeyPath is required',
  path: ['password'],
});

export const dropOptionsSchema = z.discriminatedUnion('type', [localDropOptionsSchema, sftpDropOptionsSchema]);

for (const key of SECRET_DROP_OPTIONS) secretOption.add(sftpDropOptionsSchema.shape[key], { secret: true });

export type LocalDropOptions = z.output<typeof localDropOptionsSchema>;
export type SftpDropOptions = z.output<typeof sftpDropOptionsSchema>;
export type DropOptions = z.output<typeof dropOptionsSchema>;
export type DropOptionsInput = z.input<typeof dropOptionsSchema>;
