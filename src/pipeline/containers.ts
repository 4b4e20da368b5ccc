import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { InboundJob } from '../config/schema.js';
import { containerKind, extractZipEntry, gunzipTo, readZipDirectory, type ExpansionLimits } from '../drops/index.js';
import { disposeFile, LocalDrop, type Drop, type ReadyFile } from '../drops/index.js';
import { localDropOptionsSchema } from '../drops/options.js';
import { MemberDrop, workFolderError } from '../drops/index.js';
import { decryptTo, encryptedMemberName, loadPgpKeys, type PgpKeys } from '../drops/index.js';
import { describeError, isWisbridgeError } from '../errors.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import { processFile, snapshotFolder, type FileRuntime } from './process-file.js';
import { FileLife, FileLifeError } from './file-life.js';
import { errorFileName } from './result-file.js';
import { rejectUnclaimed, type RejectionJournal } from './rejection.js';
import { checkSidecar } from './sidecar.js';
import { privateFile, takeSnapshot, type Snapshot } from './source.js';
import { emptyRowCounts, type FileRef, type FileReport, type ProcessFileOptions } from './types.js';

/**
 * One inbox file through the flow: a `.gz` or `.zip` (when the drop decompresses) is expanded into private files,
 * bounded (src/drops/expand.ts), and each member goes through processFile as a file of its own — its own claim,
 * result file and duplicate check — in name order; the container then moves to archive/, or to error/ when it
 * could not be expanded or every member was refused. Any other file goes to processFile as it is.
 */
export async function processInboxFile(runtime: FileRuntime, job: InboundJob, file: FileRef, options: ProcessFileOptions = {}): Promise<FileReport[]> {
  const name = typeof file === 'string' ? file : file.name;
  const dropOptions = runtime.loaded.config.drops[job.drop];
  const kind: Kind | undefined = dropOptions?.pgp?.private_key && encryptedMemberName(name) ? 'pgp' : dropOptions?.decompress !== false ? containerKind(name) : undefined;
  if (!kind) return [await processFile(runtime, job, file, options)];
  // The container's own life: never claimed (its members are), decided once its members ran or it was refused.
  const life = new FileLife(name);
  let reports: FileReport[];
  try {
    reports = await processContainer(runtime, job, file, name, kind, life, options);
  } catch (error) {
    if (life.ending === undefined) life.rollback(undefined);
    throw error;
  }
  if (life.ending === undefined) throw new FileLifeError(life.state, undefined, name, `file ${name}: its run ended without an ending (in ${life.state})`);
  return reports;
}

async function processContainer(runtime: FileRuntime, job: InboundJob, file: FileRef, name: string, kind: Kind, life: FileLife, options: ProcessFileOptions): Promise<FileReport[]> {
  const dropOptions = runtime.loaded.config.drops[job.drop];
  const drop = options.drop ?? (await runtime.drop(job.drop));
  const limits: ExpansionLimits = { maxBytes: dropOptions.maxExpandedBytes, maxRatio: dropOptions.maxExpansionRatio, maxEntries: dropOptions.maxZipEntries };
  const logger = runtime.logger.child({ job: job.name, file: name });
  let raw;
  try {
    raw = await takeSnapshot(drop, name, snapshotFolder(runtime), false);
  } catch (error) {
    if (isWisbridgeError(error, 'DROP_NOT_FOUND') || isWisbridgeError(error, 'DROP_CHANGED')) {
      return [life.ended({ job: job.name, file: name, outcome: isWisbridgeError(error, 'DROP_CHANGED') ? 'changed' : 'vanished', rows: emptyRowCounts(), requests: 0, reason: describeError(error) })];
    }
    throw error;
  }
  const dir = (await privateFile(snapshotFolder(runtime), 'members')) + '.d';
  const container = new Container(runtime, job, drop, file, name, raw, options, life);
  try {
    const checked = await checkSidecar(drop, dropOptions, name, raw);
    if (checked.sidecar) container.companions.push(checked.sidecar.name);
    if (checked.verdict === 'wait') return [life.rollback(container.report('waiting', checked.reason))];
    if (checked.verdict === 'error') return [await container.reject(checked.reason)];
    await mkdir(dir, { mode: 0o700 }).catch((error: unknown) => {
      throw workFolderError(error, snapshotFolder(runtime), `the folder of ${name}'s members`);
    });
    let members: string[];
    try {
      members = kind === 'pgp' ? await decrypt(runtime, job, await raw.file(), dir, name) : await expand(kind, await raw.file(), dir, name, limits);
    } catch (error) {
      if (isWisbridgeError(error, 'FILE_ARCHIVE') || isWisbridgeError(error, 'FILE_PGP')) return [await container.reject(describeError(error))];
      throw error;
    }
    logger.info({ members: members.length }, 'compressed file expanded');
    // The members' folder: private scratch files (no events, no fsync), never looked at for checksum files.
    const memberOptions = localDropOptionsSchema.parse({ type: 'local', name: drop.name, root: dir, inbox: '.', watchEvents: false, fsync: false, checksumSidecar: 'off', decompress: false });
    const memberDrop = new MemberDrop(drop, new LocalDrop(memberOptions));
    const reports: FileReport[] = [];
    try {
      for (const member of members) {
        if (options.signal?.aborted) return life.rollback(reports);
        const report = await processFile(runtime, job, member, { ...options, drop: memberDrop, dispose: false, member: true });
        reports.push(report);
        // Stopped, or another instance works on a member: the container stays in the inbox for whoever finishes it.
        if (report.outcome === 'interrupted' || report.outcome === 'busy' || report.outcome === 'lost') return life.rollback(reports);
      }
    } finally {
      await memberDrop.close();
    }
    if (reports.length > 0 && reports.every((r) => r.outcome === 'rejected')) {
      return [...reports, await container.reject(`every member was refused: ${reports.map((r) => `${r.file}: ${r.reason ?? ''}`).join('; ')}`)];
    }
    if (reports.length === 0) return [await container.reject(`FILE_ARCHIVE: ${name} holds no file`)];
    life.decide();
    await container.dispose('archive');
    return life.commit(reports);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await raw.remove();
  }
}

type Kind = 'gz' | 'zip' | 'pgp';

const pgpKeys = new WeakMap<object, Map<string, Promise<PgpKeys>>>();

/** The drop's keys, read and unlocked once per runtime (never per file). */
function keysOf(runtime: RuntimeParts<'loaded'>, drop: string): Promise<PgpKeys> {
  let map = pgpKeys.get(runtime);
  if (!map) pgpKeys.set(runtime, (map = new Map()));
  let keys = map.get(drop);
  if (!keys) {
    keys = runtime.loaded.dropOptions(drop).then((o) => loadPgpKeys(o.pgp!, drop));
    keys.catch(() => map.delete(drop));
    map.set(drop, keys);
  }
  return keys;
}

/** Decrypts (and checks) an OpenPGP message into `dir`: one member, named without `.pgp` / `.gpg` / `.asc`. */
async function decrypt(runtime: RuntimeParts<'loaded'>, job: InboundJob, path: string, dir: string, name: string): Promise<string[]> {
  const member = encryptedMemberName(name)!;
  await decryptTo(path, join(dir, member), name, await keysOf(runtime, job.drop));
  return [member];
}

/** Expands the container into `dir`; the members' names in processing order. */
async function expand(kind: 'gz' | 'zip', path: string, dir: string, name: string, limits: ExpansionLimits): Promise<string[]> {
  if (kind === 'gz') {
    const member = name.slice(0, -3);
    await gunzipTo(path, join(dir, member), name, limits);
    return [member];
  }
  const entries = await readZipDirectory(path, name, limits);
  for (const entry of entries) await extractZipEntry(path, entry, join(dir, entry.name), name, limits);
  return entries.map((e) => e.name);
}

/** The container's own disposition: archive/ once its members are done, error/ with a reason file when refused. */
class Container {
  readonly companions: string[] = [];

  constructor(
    private readonly runtime: RuntimeParts<'logger', RejectionJournal>, private readonly job: InboundJob, private readonly drop: Drop, private readonly file: FileRef,
    private readonly name: string, private readonly read: Pick<Snapshot, 'identity' | 'open'>, private readonly options: ProcessFileOptions,
    private readonly life: FileLife,
  ) {}

  report(outcome: FileReport['outcome'], reason?: string): FileReport {
    return { job: this.job.name, file: this.name, outcome, rows: emptyRowCounts(), requests: 0, ...(reason ? { reason } : {}) };
  }

  async dispose(outcome: 'archive' | 'error'): Promise<string | undefined> {
    if (this.options.dispose === false) return undefined;
    // Replaced since it was read: the container's bytes, whose members were applied, still reach the folder.
    const moved = await disposeFile(this.drop, this.file as ReadyFile | string, outcome, { expect: this.read.identity, companions: this.companions, read: this.read.open });
    return moved.name;
  }

  async reject(reason: string): Promise<FileReport> {
    const report = this.report('rejected', reason);
    this.life.decide();
    this.runtime.logger.child({ job: this.job.name, file: this.name }).warn({ reason }, 'compressed file rejected as a whole');
    const journal = await this.runtime.journal();
    const text = `file: ${this.name}\nrejected at: ${new Date().toISOString()}\nreason: ${reason}\n`;
    if (this.options.dispose === false) {
      await journal.recordFileEvent({ drop: this.drop.name, name: this.name, kind: 'rejected', reason });
      await this.drop.writeAtomic('outbox', errorFileName(this.name), text, { overwrite: true });
      return this.life.commit(report);
    }
    let moved: string | undefined;
    const where = await rejectUnclaimed(journal, this.drop, this.name, reason, async () => {
      moved = await this.dispose('error');
    });
    if (where === 'gone') return this.life.abort({ ...report, outcome: 'vanished', reason: `${reason}; moved to error/ by another instance meanwhile` });
    if (moved !== undefined) {
      report.movedTo = `error/${moved}`;
      await this.drop.writeAtomic('error', errorFileName(moved), text, { overwrite: true });
    }
    return this.life.commit(report);
  }
}
