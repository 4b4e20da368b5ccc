/*
 * The drops' layer. Without the options' schemas (options.ts) and what validates with them (create.ts: createDrop,
 * parseDropOptions), imported from their modules: a command that opens the drops of a checked configuration
 * (openDrop) loads neither them nor zod (docs/performance.md, start-up).
 */
export * from './drop.js';
export type { DropOptions, DropOptionsInput, LocalDropOptions, PgpOptions, SftpDropOptions } from './options.js';
export { SECRET_DROP_OPTIONS, type SecretDropOption } from './secret-options.js';
export { openDrop } from './open.js';
export { LocalDrop, localFolders } from './local.js';
export { SftpDrop } from './sftp.js';
export { hostKeyFingerprint } from './sftp-connection.js';
export { StableFileWatcher, type ReadyFile, type WatcherOptions } from './watcher.js';
export { disposeFile, type Disposition } from './disposition.js';
export { ByteCounter } from './streams.js';
export { CompanionDrop } from './companions.js';
export { findSidecar, isSidecarName, parseSidecar, readSidecar, SIDECAR_SUFFIXES, type ChecksumAlgorithm, type Sidecar } from './checksum.js';
export { pruneDropFolders, type FolderPruneResult, type FolderRetention } from './retention.js';
export { containerKind, extractZipEntry, gunzipTo, readZipDirectory, type ExpansionLimits } from './expand.js';
export { MemberDrop } from './member-drop.js';
export { processDrop, processDropName, processDropOptions, processDropService } from './process-drop.js';
export { decryptTo, encryptedMemberName, loadPgpKeys, type PgpKeys } from './pgp.js';
export { workFolderError } from './work-folder.js';
