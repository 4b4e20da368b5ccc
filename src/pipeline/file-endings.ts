import type { InboundJob } from '../config/schema.js';
import type { Readable } from 'node:stream';
import { collisionName, disposeFile, type Drop, type FolderRole } from '../drops/index.js';
import { describeError, WisbridgeError, isWisbridgeError } from '../errors.js';
import type { FileRecord, InboundJournal, Journal, ResultReads } from '../journal/index.js';
import type { Logger } from '../log.js';
import type { HeldLease, RuntimeParts } from '../runtime/runtime.js';
import type { FileLife } from './file-life.js';
import { settleResultName, writeResultFile } from './lifecycle.js';
import { rejectUnclaimed, type RejectionJournal } from './rejection.js';
import { errorFileName, resultFileName } from './result-file.js';
import type { ResultSpool } from './result-spool.js';
import type { SenderContext } from './sender.js';
import type { FileRef, FileReport, ProcessFileOptions } from './types.js';
import type { X12Reading } from './x12-route.js';
import type { SetRowsTally } from './x12-structure.js';
import type { ReceivedAckJournal } from './x12-received-ack.js';

/*
 * The last steps of a file's run (process-file.ts), shared by every way into them: its result file, its move out of
 * the inbox, its rejection as a whole, a lease lost to another instance. Each ends the run's FileLife.
 */

/** What a file's flow takes of the runtime: its drop, mapping and client, the leases, and the inbound journal. */
export type FileRuntime = RuntimeParts<'loaded' | 'logger' | 'mappings' | 'drop' | 'client' | 'undecided' | 'mappingThreads' | 'journalTally' | 'leases', FileJournal & LeaseJournal & SenderContext['journal'] & RejectionJournal & Pick<Journal, 'nextControlNumber'> & ReceivedAckJournal>;

export interface FileContext {
  runtime: FileRuntime;
  job: InboundJob;
  drop: Drop;
  name: string;
  file: FileRef;
  options: ProcessFileOptions;
  logger: Logger;
  report: FileReport;
  resultFolder: FolderRole;
  /** The inbox file's identity as it was read: it is moved only while it is still that file. */
  identity?: string;
  /** The bytes as they were read: archived under a name of their own when the inbox file was replaced meanwhile. */
  read?: () => Readable;
  /** Files that follow it to archive/ or error/ (its checksum file). */
  companions: string[];
  /** Under `wisbridge run`: the claimed file's lease; the drop is changed only while it is this instance's. */
  lease?: HeldLease;
  /** The run's state (file-life.ts): every ending below is one of its transitions. */
  life: FileLife;
  /** An X12 file routed by its content: its interchanges, to acknowledge before the file is disposed. */
  x12?: X12Reading;
  /** Its sets' rows, tallied as its result file is written (the spool's rows, or the journal's). */
  x12Rows?: SetRowsTally;
}

/**
 * Another instance took the file over (this one's lease expired: the journal was out of reach, or the process was
 * paused): its sends were aborted and the journal refuses this instance's writes for it. The new owner reconciles what
 * was in flight, writes the result file and moves the file; nothing more is done here.
 */
export function lost(ctx: FileContext, error: unknown): FileReport {
  ctx.logger.warn({ event: 'file.lease-lost', fileId: ctx.report.fileId, err: describeError(error) }, 'lease lost: another instance took this file over and finishes it; stopped here');
  return ctx.life.abort({ ...ctx.report, outcome: 'lost', reason: describeError(ctx.lease?.signal.reason ?? error) });
}

/** A file's claim, requests and result: the inbound side of the journal. */
export type FileJournal = InboundJournal & ResultReads;

export async function fillCounts(report: FileReport, journal: FileJournal, fileId: number): Promise<void> {
  const s = await journal.fileSummary(fileId);
  report.rows = { ok: s.ok, error: s.error, skipped: s.skipped, uncertain: s.uncertain + s.sent };
}

/**
 * The file's result file. Its name is recorded in the journal before it is written: a later run of the same file
 * (after a crash) rewrites that name, while a result file of another file of the same name is never replaced — a
 * new name with the archive's timestamp suffix is taken instead.
 */
export async function writeResult(ctx: FileContext, journal: FileJournal, file: FileRecord, spool?: ResultSpool): Promise<void> {
  const name = await settleResultName(journal, file, () => freeResultName(ctx));
  const spooled = spool?.finish();
  if (spooled) return writeResultAs(ctx, name, journal, file.fileId, { rows: spooled, counts: spool!.counts });
  // The spool's rows, if any, are not the ones written: what watched them starts again from the journal's.
  ctx.x12Rows?.reset();
  await writeResultAs(ctx, name, journal, file.fileId, { watch: ctx.x12Rows });
}

export async function writeResultAs(ctx: FileContext, name: string, journal: FileJournal, fileId: number, options: Parameters<typeof writeResultFile>[5]): Promise<void> {
  await ctx.lease?.ready();
  ctx.report.rows = await writeResultFile(journal, ctx.drop, ctx.resultFolder, fileId, name, options);
  ctx.report.resultFile = name;
}

/** `NAME.result.csv`, or `NAME.<timestamp>.result.csv` when that one is taken. */
export async function freeResultName(ctx: FileContext): Promise<string> {
  const now = new Date();
  for (let attempt = 0; attempt <= 20; attempt++) {
    const candidate = resultFileName(attempt === 0 ? ctx.name : collisionName(ctx.name, now, attempt));
    if ((await ctx.drop.stat(ctx.resultFolder, candidate)) === undefined) return candidate;
  }
  throw new WisbridgeError('DROP_EXISTS', `cannot find a free result file name for ${ctx.name} in ${ctx.resultFolder}`);
}

/** Where a move is recorded: the time its collision suffix takes (the same on a retry), and what it says once done. */
export interface DispositionRecord {
  stampAt: Date;
  done(where: string): Promise<void>;
}

/** A claimed file's move: suffixed with the claim's time, recorded on the file. */
export function fileDisposition(journal: FileJournal, file: Pick<FileRecord, 'fileId' | 'claimedAt'>): DispositionRecord {
  return { stampAt: new Date(file.claimedAt), done: (where) => journal.recordDisposition(file.fileId, where) };
}

/**
 * Moves the file out of the inbox, only while it is still the file that was read. With a record (a claimed file, a
 * duplicate), a collision suffix is the time recorded, and where the file went is recorded: a move a crash
 * interrupted tries the same names again and finishes instead of making a second copy. A file replaced meanwhile
 * stays: it is processed as a file of its own, and the bytes read go to the folder as `NAME.<stamp>.replaced.EXT`.
 */
export async function dispose(ctx: FileContext, outcome: 'archive' | 'error', record?: DispositionRecord): Promise<void> {
  if (ctx.options.dispose === false) return;
  await ctx.lease?.ready();
  const moved = await disposeFile(ctx.drop, ctx.file, outcome, { expect: ctx.identity, stampAt: record?.stampAt, companions: ctx.companions, read: ctx.read });
  ctx.report.movedTo = `${moved.folder}/${moved.name}`;
  if (moved.replaced) {
    ctx.logger.warn({ err: describeError(moved.replaced), keptAs: ctx.report.movedTo }, 'the file was replaced while it was processed: the bytes read are kept under a name of their own, the replacement stays in the inbox and is read as a file of its own');
    ctx.report.reason = `${ctx.report.reason ? `${ctx.report.reason}; ` : ''}${describeError(moved.replaced)}; the bytes read are kept as ${ctx.report.movedTo}`;
  }
  await record?.done(ctx.report.movedTo);
}

/** The file failed as a whole: to error/ with NAME.error.txt beside it (and its result file when rows were recorded). */
export async function rejectWhole(ctx: FileContext, reason: string, journal?: FileJournal): Promise<FileReport> {
  const { report } = ctx;
  report.outcome = 'rejected';
  report.reason = reason;
  ctx.life.decide();
  ctx.logger.warn({ reason }, 'file rejected as a whole');
  const file = journal && report.fileId !== undefined ? await journal.getFile(report.fileId) : undefined;
  if (journal && file) {
    await fillCounts(report, journal, file.fileId);
    if (report.rows.ok + report.rows.error + report.rows.uncertain + report.rows.skipped > 0) await writeResult(ctx, journal, file);
  }
  const text = [`file: ${ctx.name}`, report.mapping ? `mapping: ${report.mapping}` : undefined, `rejected at: ${new Date().toISOString()}`, `reason: ${reason}`, '']
    .filter((l) => l !== undefined).join('\n');
  // Never claimed: recorded as an event, so the recent list (status, console) still shows it.
  const events = await ctx.runtime.journal();
  if (ctx.options.dispose === false) {
    if (!file) await events.recordFileEvent({ drop: ctx.drop.name, name: ctx.name, kind: 'rejected', reason });
    await ctx.drop.writeAtomic(ctx.resultFolder, errorFileName(ctx.name), text, { overwrite: true });
    return ctx.life.commit(report);
  }
  const where = journal && file
    ? await dispose(ctx, 'error', fileDisposition(journal, file)).then(() => 'moved' as const, (error: unknown) => {
      if (!isWisbridgeError(error, 'DROP_NOT_FOUND')) throw error;
      return 'stayed' as const;
    })
    : await rejectUnclaimed(events, ctx.drop, ctx.name, reason, () => dispose(ctx, 'error'));
  if (where === 'gone') {
    ctx.logger.debug('the rejected file was moved out of the inbox meanwhile by another instance, which recorded it');
    return ctx.life.abort({ ...report, outcome: 'vanished', reason: `${reason}; moved to error/ by another instance meanwhile` });
  }
  if (where === 'stayed') {
    // A name the drop cannot address (not UTF-8): nothing to move; said once per run, the others go on.
    ctx.logger.warn('the rejected file cannot be moved to error/: it is left in the inbox');
    return ctx.life.commit(report);
  }
  const finalName = report.movedTo!.slice('error/'.length);
  await ctx.drop.writeAtomic('error', errorFileName(finalName), text, { overwrite: true });
  return ctx.life.commit(report);
}

/** A journal that may lease files (`wisbridge run`: its instance; null for one-shot commands). */
export type LeaseJournal = Pick<Journal, 'instance' | 'takeFinishedFile'>;
