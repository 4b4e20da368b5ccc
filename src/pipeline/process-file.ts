import type { InboundJob } from '../config/schema.js';
import { describeError, isWisbridgeError } from '../errors.js';
import type { FileRecord } from '../journal/index.js';
import { freshState } from '../journal/index.js';
import type { Mapping } from '../mapping/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';
import {
  dispose, fileDisposition, fillCounts, freeResultName, lost, rejectWhole, writeResult, writeResultAs,
  type FileContext, type FileJournal, type FileRuntime, type LeaseJournal,
} from './file-endings.js';
import { FILE_LEVEL, inboundNameProblem, pickMapping } from './file-checks.js';
import { FileLife } from './file-life.js';
import { resultFileName } from './result-file.js';
import { ResultSpool } from './result-spool.js';
import type { SenderContext } from './sender.js';
import { reconcileSentRequest } from './reconcile.js';
import { checkSidecar } from './sidecar.js';
import { inTurnOfBytes } from './same-bytes.js';
import { takeSnapshot, type Snapshot } from './source.js';
import { streamFile, type StreamInput } from './stream.js';
import { emptyRowCounts, type FileRef, type FileReport, type ProcessFileOptions } from './types.js';
import { writeAck } from './x12-ack.js';
import { routeX12, startsAsX12, type X12Reading } from './x12-route.js';
import { refuseRepeatedInterchanges } from './x12-repeats.js';
import { readAcksIfAny, recordReceivedAcks, type AckReading } from './x12-received-ack.js';
import { envelopeEntries, SetRowsTally } from './x12-structure.js';

export type { FileRuntime } from './file-endings.js';

/**
 * One file through the whole flow: name and mapping → private copy and checksum → claim → reconcile what an earlier
 * run left in flight → map the copy, batch, record, send → result file → archive (or error/ with a reason file).
 * Fatal problems (401, service or drop unreachable, journal) are thrown and leave the file in the inbox to resume later.
 */
export async function processFile(runtime: FileRuntime, job: InboundJob, file: FileRef, options: ProcessFileOptions = {}): Promise<FileReport> {
  const name = typeof file === 'string' ? file : file.name;
  const drop = options.drop ?? (await runtime.drop(job.drop));
  const report: FileReport = { job: job.name, file: name, outcome: 'done', rows: emptyRowCounts(), requests: 0 };
  const ctx: FileContext = {
    runtime, job, drop, name, file, options, report, resultFolder: options.resultFolder ?? 'outbox',
    logger: runtime.logger.child({ job: job.name, file: name }), companions: [], life: new FileLife(name),
  };
  let ended: FileReport;
  try {
    ended = await runFile(ctx);
  } catch (error) {
    // A fatal error: the file stays in the inbox and resumes on a later run.
    if (ctx.life.ending === undefined) ctx.life.rollback(undefined);
    throw error;
  }
  // Every way out of the flow is one transition, the one the report's outcome stands for.
  return ctx.life.settled(ended);
}

async function runFile(ctx: FileContext): Promise<FileReport> {
  const { runtime, job, drop, name, options, report } = ctx;
  const nameProblem = inboundNameProblem(name);
  if (nameProblem !== undefined) return rejectWhole(ctx, `FILE_NAME: ${nameProblem}`);
  // A job with X12 routes reads the bytes before it picks a mapping: an X12 file is routed by its sets, whatever its name.
  const byContent = job.x12 !== undefined && options.mapping === undefined;
  let mapping: Mapping | AckReading | undefined;
  if (!byContent) {
    const picked = await mappingByName(ctx);
    if (typeof picked === 'string') return rejectWhole(ctx, picked);
    mapping = picked;
    report.mapping = mapping.name;
  }
  let snapshot: Snapshot;
  try {
    snapshot = await takeSnapshot(drop, name, snapshotFolder(runtime), mapping === undefined || 'acks' in mapping || mapping.dialect.encoding === 'utf-8');
  } catch (error) {
    if (isWisbridgeError(error, 'DROP_NOT_FOUND')) return ctx.life.abort({ ...report, outcome: 'vanished', reason: describeError(error) });
    if (isWisbridgeError(error, 'DROP_CHANGED')) return ctx.life.rollback({ ...report, outcome: 'changed', reason: describeError(error) });
    if (isWisbridgeError(error, 'DROP_NOT_REGULAR')) return rejectWhole(ctx, describeError(error));
    throw error;
  }
  ctx.identity = snapshot.identity;
  ctx.read = snapshot.open;
  try {
    if (mapping === undefined) {
      const routed = await routeByContent(ctx, snapshot);
      if (typeof routed === 'string') return await rejectWhole(ctx, routed);
      mapping = routed;
      report.mapping = mapping.name;
      // Taken as UTF-8 for the sniff: a file read by name in another encoding is not judged by it.
      if (!('acks' in mapping) && mapping.dialect.encoding !== 'utf-8') snapshot = { ...snapshot, invalidUtf8At: undefined };
    }
    const checked = options.member ? { verdict: 'ok' as const } : await checkSidecar(drop, runtime.loaded.config.drops[job.drop] ?? {}, name, snapshot);
    if (checked.sidecar) ctx.companions.push(checked.sidecar.name);
    if (checked.verdict === 'error') return await rejectWhole(ctx, checked.reason);
    if (checked.verdict === 'wait') {
      ctx.logger.warn({ reason: checked.reason }, 'file left in the inbox until its checksum file matches');
      return ctx.life.rollback({ ...report, outcome: 'waiting', reason: checked.reason });
    }
    const [read, bytes] = [mapping, snapshot];
    return await inTurnOfBytes(runtime, snapshot.checksum, () => processSnapshot(ctx, read, bytes));
  } finally {
    await snapshot.remove();
  }
}

/** The mapping the file's name (or --mapping) picks, or why the file is refused as a whole. */
async function mappingByName(ctx: FileContext): Promise<Mapping | string> {
  try {
    return pickMapping(await ctx.runtime.mappings(), ctx.job, ctx.name, ctx.options.mapping);
  } catch (error) {
    if (isWisbridgeError(error) && FILE_LEVEL.has(error.code)) return describeError(error);
    throw error;
  }
}

/** An X12 file by its sets (x12-route.ts), a partner's 997/999 by itself (x12-received-ack.ts); any other file of the job by its name. */
async function routeByContent(ctx: FileContext, snapshot: Snapshot): Promise<Mapping | AckReading | string> {
  const { job } = ctx;
  if (job.x12 === undefined || !(await startsAsX12(snapshot.open))) return mappingByName(ctx);
  try {
    const acks = await readAcksIfAny(snapshot.open, ctx.name);
    if (acks) return acks;
    ctx.x12 = await routeX12({ ...job, x12: job.x12 }, await ctx.runtime.mappings(), ctx.runtime.loaded.config.partners, snapshot.open, ctx.name);
    ctx.x12Rows = new SetRowsTally(ctx.x12);
    return ctx.x12.mapping;
  } catch (error) {
    if (isWisbridgeError(error) && (FILE_LEVEL.has(error.code) || error.code === 'X12_SYNTAX')) return describeError(error);
    throw error;
  }
}

/** Private copies of the files being read live beside the journal (see source.ts). */
export function snapshotFolder(runtime: RuntimeParts<'loaded'>): string {
  return runtime.loaded.snapshotDir;
}

async function processSnapshot(ctx: FileContext, mapping: Mapping | AckReading, snapshot: Snapshot): Promise<FileReport> {
  const { runtime, job, name, options, report, drop } = ctx;
  if (snapshot.blank) return rejectWhole(ctx, `FILE_UNREADABLE: ${name} is empty: there is no header row`);
  if (snapshot.invalidUtf8At !== undefined) {
    return rejectWhole(ctx, `FILE_UNREADABLE: ${name} is not valid UTF-8 (near byte ${snapshot.invalidUtf8At}); mapping ${mapping.name} reads utf-8 — check the encoding the WMS writes (dialect.encoding)`);
  }

  const journal = await runtime.journal();
  // An instance that cannot renew its leases claims nothing: what it claimed may be another's by now.
  try {
    await runtime.leases?.live(options.signal);
  } catch {
    return ctx.life.rollback({ ...report, outcome: 'interrupted', reason: 'stopped while waiting for the journal' });
  }
  const claim = await journal.claimFile({ drop: drop.name, name, checksum: snapshot.checksum, size: snapshot.size, mapping: mapping.name, force: options.force });
  if (claim.status === 'duplicate') return duplicate(ctx, journal, claim.fileId);
  report.fileId = claim.fileId;
  if (claim.status === 'busy') {
    ctx.logger.debug({ event: 'file.busy', fileId: claim.fileId, owner: claim.owner }, 'another instance works on this file: left to it');
    return ctx.life.abort({ ...report, outcome: 'busy', reason: `instance ${claim.owner} works on it` });
  }
  ctx.life.begin();
  report.resumed = claim.status === 'resume';
  const takeover = claim.status === 'resume' && claim.token !== undefined ? { from: claim.from, leaseToken: claim.token, ...(claim.reason ? { reason: claim.reason } : {}) } : {};
  ctx.logger.info({ event: 'file.claimed', fileId: claim.fileId, claim: claim.status, ...takeover, mapping: mapping.name, size: snapshot.size }, 'processing file');
  ctx.lease = runtime.leases?.hold(claim.fileId);
  const sender: SenderContext = { journal, client: await runtime.client(job.service), fileId: claim.fileId, logger: ctx.logger, stats: { requests: 0 }, lease: ctx.lease };
  // A first run writes its result rows as they are decided; a resumed one reads them all back from the journal.
  // The rows of received acknowledgements are read back from the journal (they are few): no spool.
  const spool = claim.status === 'new' && !('acks' in mapping) ? await ResultSpool.open(snapshotFolder(runtime), { watch: ctx.x12Rows }) : undefined;
  try {
    return await streamAndFinish(ctx, mapping, snapshot, journal, sender, spool);
  } catch (error) {
    if (ctx.lease?.lost || isWisbridgeError(error, 'LEASE_LOST')) return lost(ctx, error);
    // The file waits for this instance's next look (after a pause): meanwhile another may take it over at once.
    await journal.releaseFile(claim.fileId).catch((e: unknown) => ctx.logger.debug({ err: describeError(e) }, 'could not give up the file\'s lease: it runs out by itself'));
    throw error;
  } finally {
    ctx.lease?.release();
    await spool?.remove();
  }
}


async function streamAndFinish(ctx: FileContext, mapping: Mapping | AckReading, snapshot: Snapshot, journal: FileJournal & SenderContext['journal'], sender: SenderContext, spool: ResultSpool | undefined): Promise<FileReport> {
  const { runtime, job, name, options, report } = ctx;
  const fileId = sender.fileId;
  try {
    ctx.life.read();
    if (ctx.x12) {
      await refuseRepeatedInterchanges(journal, fileId, ctx.x12);
      // Its envelopes as read, for the console while it is processed (recorded again, with its rows, once they are decided).
      await journal.recordX12Envelopes(fileId, envelopeEntries(ctx.x12));
    }
    // A crash may have kept the search index of the last blocks from following them (TrailingIndex).
    if (report.resumed) await journal.indexMissingBlocks(fileId);
    const state = report.resumed ? await journal.resumeState(fileId) : freshState(fileId);
    for (const r of state.sentRequests) await reconcileSentRequest(sender, r.requestId, r.endpoint);
    const completed = 'acks' in mapping
      ? await recordReceivedAcks(await runtime.journal(), fileId, mapping, runtime.loaded.config.partners, ctx.logger).then(() => true)
      : await streamPasses({ runtime, job, name, source: snapshot.open, snapshotFile: snapshot.file, options, mapping, sender, state, size: snapshot.size, lines: snapshot.lines, spool }, ctx.x12);
    if (!completed) {
      report.outcome = 'interrupted';
      await fillCounts(report, journal, fileId);
      return ctx.life.rollback(report);
    }
    ctx.life.sent();
  } catch (error) {
    if (isWisbridgeError(error) && FILE_LEVEL.has(error.code)) {
      await journal.rejectFile(fileId, describeError(error));
      return rejectWhole(ctx, describeError(error), journal);
    }
    throw error;
  } finally {
    report.requests = sender.stats.requests;
  }
  // The file's row read beside its finish (its result name and claim time, which the finish does not change): on a
  // distant journal a round trip less a file.
  const [status, file] = await Promise.all([journal.finishFile(fileId), journal.getFile(fileId)]);
  report.outcome = status === 'done' ? 'done' : 'failed';
  ctx.life.decide();
  await writeResult(ctx, journal, file, spool);
  await acknowledge(ctx, file.fileId);
  await dispose(ctx, 'archive', fileDisposition(journal, file));
  ctx.logger.info({ event: 'file.processed', outcome: report.outcome, rows: report.rows, requests: report.requests }, 'file processed');
  return ctx.life.commit(report);
}

/**
 * The file's requests: one pass of its mapping, or of each mapping an X12 file's sets go to (x12-route.ts), one after
 * the other, each reading its own sets. Their rows are the file's lines, so no two passes record the same.
 */
async function streamPasses(input: StreamInput, x12: X12Reading | undefined): Promise<boolean> {
  if (!x12) return streamFile(input);
  const x12Verdicts = x12.interchanges.map((i) => i.result);
  for (const { mapping, share } of x12.passes) {
    if (!(await streamFile({ ...input, mapping, x12Verdicts, x12Share: share }))) return false;
  }
  return true;
}

/**
 * An X12 file's acknowledgement, once its result name is recorded (the acknowledgement's name follows it). Its sets'
 * rows and data errors are read first: recorded with its envelopes for the console, and answered in the acknowledgement.
 */
async function acknowledge(ctx: FileContext, fileId: number): Promise<void> {
  if (!ctx.x12) return;
  const journal = await ctx.runtime.journal();
  const rows = ctx.x12Rows!.finish();
  await ctx.lease?.ready();
  await journal.recordX12Envelopes(fileId, envelopeEntries(ctx.x12, rows));
  const name = await writeAck(ctx, journal, await journal.getFile(fileId), ctx.x12);
  if (name !== undefined) ctx.logger.info({ event: 'x12.acknowledged', ack: name }, 'X12 acknowledgement written');
}

/**
 * Several instances watch one inbox: the file read here may be the very file another instance processed and has
 * moved out of the inbox since (its move is recorded), not a re-drop. It is gone from the inbox then.
 */
async function movedByOwner(ctx: FileContext, prev: FileRecord): Promise<boolean> {
  if (prev.disposedTo === null || prev.name !== ctx.name || prev.drop !== ctx.drop.name || ctx.options.dispose === false) return false;
  if ((await ctx.runtime.journal()).instance === null) return false;
  return (await ctx.drop.stat('inbox', ctx.name)) === undefined;
}


/**
 * A processed file that never left the inbox: its instance stopped between finishing it and moving it (a crash, a
 * kill, a drop that failed). Its last steps are the lease owner's: while the instance that processed it heartbeats,
 * it is doing them and the file is left to it; once it stopped, or fell silent and its lease ran out, this instance
 * takes the file's lease (a new token: the old owner, should it wake, writes nothing more for it) and writes the result
 * file under its recorded name and moves the file.
 */
async function finishUnmoved(ctx: FileContext, journal: FileJournal & LeaseJournal, prev: FileRecord): Promise<FileReport> {
  const { report } = ctx;
  if (journal.instance !== null) {
    const take = await journal.takeFinishedFile(prev.fileId);
    if (!take.taken) {
      ctx.logger.debug({ fileId: prev.fileId, owner: take.owner }, 'another instance is finishing this file (result file, move): left to it');
      return ctx.life.abort({ ...report, outcome: 'busy', reason: `instance ${take.owner} is finishing it` });
    }
    ctx.lease = ctx.runtime.leases?.hold(prev.fileId);
  }
  ctx.life.begin();
  try {
    if (prev.status === 'rejected') return await rejectWhole(ctx, prev.reason ?? 'rejected', journal);
    report.outcome = prev.status === 'done' ? 'done' : 'failed';
    ctx.life.decide();
    await fillCounts(report, journal, prev.fileId);
    // Read again: its owner may have recorded a result name since `prev` was read, before its lease ran out.
    const file = await journal.getFile(prev.fileId);
    await writeResult(ctx, journal, file);
    await acknowledge(ctx, file.fileId);
    await dispose(ctx, 'archive', fileDisposition(journal, file));
    return ctx.life.commit(report);
  } catch (error) {
    if (ctx.lease?.lost || isWisbridgeError(error, 'LEASE_LOST')) return lost(ctx, error);
    throw error;
  } finally {
    ctx.lease?.release();
  }
}

/**
 * Same bytes as a file processed before. The same name on the same drop whose disposition the journal has not
 * recorded is that very file, stopped by a crash between finishing and leaving the inbox (even half-way through
 * its move): its result file is written again under its recorded name and the move finished. Anything else is a
 * re-drop: a result file of its own (the earlier one is kept) says every row is `skipped`, and the file is archived.
 */
async function duplicate(ctx: FileContext, journal: FileJournal & LeaseJournal, previousId: number): Promise<FileReport> {
  const prev = await journal.getFile(previousId);
  const { report } = ctx;
  report.fileId = previousId;
  if (ctx.options.dispose !== false && prev.name === ctx.name && prev.drop === ctx.drop.name && prev.disposedTo === null) {
    return finishUnmoved(ctx, journal, prev);
  }
  if (await movedByOwner(ctx, prev)) {
    ctx.logger.debug({ fileId: previousId }, 'the instance that processed this file moved it meanwhile: nothing to do');
    return ctx.life.abort({ ...report, outcome: 'vanished', reason: `processed as file ${previousId} and moved by the instance that did` });
  }
  report.outcome = 'duplicate';
  const when = prev.finishedAt ?? prev.claimedAt;
  const message = `duplicate: the same content was already processed as ${prev.name} on ${when} (${prev.status}); not applied again`;
  report.reason = message;
  // Handled by one instance: the first to record the duplicate's event. One whose handling stopped before the move (a
  // crash, a kill) is finished under the names it had.
  const claim = await journal.claimDuplicate({ drop: ctx.drop.name, name: ctx.name, originalFileId: previousId, reason: message, resultName: await freeResultName(ctx) });
  if (claim.status === 'busy') {
    ctx.logger.debug({ eventId: claim.eventId, owner: claim.owner }, 'another instance handles this duplicate: left to it');
    return ctx.life.abort({ ...report, outcome: 'busy', reason: `instance ${claim.owner} handles this duplicate` });
  }
  ctx.life.begin();
  const { eventId, at, resultName } = claim.event;
  let unused = false;
  try {
    // Read while another instance handled it (and moved it since): nothing to do here.
    if (ctx.options.dispose !== false && (await ctx.drop.stat('inbox', ctx.name)) === undefined) {
      unused = claim.status === 'new';
      if (!unused) await journal.recordEventDisposition(eventId, 'unknown');
      return ctx.life.abort({ ...report, outcome: 'vanished', reason: 'moved out of the inbox by another instance meanwhile' });
    }
    if (claim.status === 'new') ctx.logger.warn({ previous: prev.name, previousFileId: previousId }, 'duplicate file: not applied again');
    // The drop is changed while this instance's leases are alive (its heartbeat renews the event's).
    try {
      await ctx.runtime.leases?.live(ctx.options.signal);
    } catch {
      return ctx.life.rollback({ ...report, outcome: 'interrupted', reason: 'stopped while waiting for the journal' });
    }
    ctx.life.decide();
    await writeResultAs(ctx, resultName ?? resultFileName(ctx.name), journal, previousId, { override: { status: 'skipped', message } });
    await dispose(ctx, 'archive', { stampAt: new Date(at), done: (where) => journal.recordEventDisposition(eventId, where) });
    return ctx.life.commit(report);
  } catch (error) {
    // Another instance took this re-drop over meanwhile (this one was paused past its lease): its handling counts.
    if (isWisbridgeError(error, 'LEASE_LOST')) return lost(ctx, error);
    throw error;
  } finally {
    await journal.releaseFileEvent(eventId, { unused }).catch((e: unknown) => ctx.logger.debug({ err: describeError(e) }, 'could not give up the duplicate\'s lease: it runs out by itself'));
  }
}
