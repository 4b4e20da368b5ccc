import { WisbridgeError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import type { Drop } from './drop.js';
import { CompanionDrop } from './companions.js';
import { LocalDrop } from './local.js';
import { dropOptionsSchema, type DropOptions, type DropOptionsInput } from './options.js';
import { SftpDrop } from './sftp.js';

export * from './drop.js';
export * from './options.js';
export { LocalDrop, localFolders } from './local.js';
export { SftpDrop } from './sftp.js';
export { hostKeyFingerprint } from './sftp-connection.js';
export { StableFileWatcher, type ReadyFile, type WatcherOptions } from './watcher.js';
export { disposeFile, type Disposition } from './disposition.js';
export { ByteCounter } from './streams.js';
export { CompanionDrop } from './companions.js';
export { findSidecar, isSidecarName, parseSidecar, readSidecar, SIDECAR_SUFFIXES, type ChecksumAlgorithm, type Sidecar } from './checksum.js';
export { pruneDropFolders, type FolderPruneResult, type FolderRetention } from './retention.js';

/** Validates drop options: CONFIG_INVALID listing every problem by path, never echoing values (secrets). */
export function parseDropOptions(options: DropOptionsInput): DropOptions {
  const parsed = dropOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(drop)'}: ${issue.message}`).join('; ');
    throw new WisbridgeError('CONFIG_INVALID', `drop options are invalid: ${problems}`);
  }
  return parsed.data;
}

/** Builds a drop from (unvalidated) options; accepts already parsed options too. */
export function createDrop(options: DropOptionsInput, logger: Logger = silentLogger): Drop {
  const parsed = parseDropOptions(options);
  const drop = parsed.type === 'local' ? new LocalDrop(parsed, logger) : new SftpDrop(parsed, logger);
  const checksum = parsed.outboundChecksum === 'none' ? undefined : parsed.outboundChecksum;
  const outbox = { checksum, marker: parsed.doneMarker, gzip: parsed.outboundGzip, pgp: parsed.pgp };
  return checksum || parsed.doneMarker || parsed.outboundGzip || parsed.pgp?.encryptOutbound ? new CompanionDrop(drop, outbox) : drop;
}
export { containerKind, extractZipEntry, gunzipTo, readZipDirectory, type ExpansionLimits } from './expand.js';
export { MemberDrop } from './member-drop.js';
export { processDrop, processDropName, processDropOptions } from './process-drop.js';
export { decryptTo, encryptedMemberName, loadPgpKeys, type PgpKeys } from './pgp.js';
export { workFolderError } from './work-folder.js';
