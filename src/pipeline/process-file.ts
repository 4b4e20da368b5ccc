import type { Readable } from 'node:stream';
import { ApiReferenceResolver } from '../client/index.js';
import type { InboundJob } from '../config/schema.js';
import { disposeFile, type Drop, type FolderRole } from '../drops/index.js';
import { describeError, isWisbridgeError, WisbridgeError } from '../errors.js';
import type { Journal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { mapInbound, type Mapping, type MappingSet, type ReferenceResolver } from '../mapping/index.js';
import type { Runtime } from '../runtime/runtime.js';
import { errorFileName, resultFileName, resultStream, type ResultRowOverride } from './result-file.js';
import type { SenderContext } from './sender.js';
import { settleSentRequest } from './settle.js';
import { fingerprint } from './source.js';
import { streamFile } from './stream.js';
import { emptyRowCounts, type FileRef, type FileReport, type ProcessFileOptions } from './types.js';

/** Errors after which the file as a whole goes to error/ (it cannot be read or mapped); anything else stops the run. */
const FILE_LEVEL = new Set(['FILE_UNREADABLE', 'FILE_LAYOUT', 'GROUPING_LIMIT', 'MAPPING_INVALID', 'MAPPING_NOT_FOUND', 'USAGE']);

interface FileContext {
  runtime: Runtime;
  job: InboundJob;
  drop: Drop;
  name: string;
  file: FileRef;
  options: ProcessFileOptions;
  logger: Logger;
  report: FileReport;
  resultFolder: FolderRole;
}

/** The inbound mapping of a file: `--mapping`, else the job's mappings (or every inbound mapping) whose patterns match. */
export function pickMapping(set: MappingSet, job: InboundJob, fileName: string, forced?: string): Mapping {
  let mapping: Mapping | undefined;
  if (forced) mapping = set.get(forced);
  else if (job.mappings) {
    const hits = job.mappings.map((n) => set.get(n)).filter((m) => m.direction === 'inbound' && m.matches(fileName));
    if (hits.length > 1) throw new WisbridgeError('MAPPING_INVALID', `file "${fileName}" matches several mappings of job ${job.name}: ${hits.map((m) => m.name).join(', ')}`);
    mapping = hits[0];
  } else mapping = set.find(fileName);
  if (!mapping) {
    const known = job.mappings ?? set.mappings.filter((m) => m.direction === 'inbound').map((m) => m.name);
    throw new WisbridgeError('MAPPING_NOT_FOUND', `no inbound mapping matches the file name "${fileName}" (mappings: ${known.join(', ')})`);
  }
  if (mapping.direction !== 'inbound') throw new WisbridgeError('MAPPING_INVALID', `mapping "${mapping.name}" is an export mapping, not an inbound one`);
  return mapping;
}

/**
 * One file through the whole flow: mapping → checksum → claim → settle what an earlier run left in flight →
 * stream, map, batch, record, send → result file → archive (or error/ with a reason file). Fatal problems
 * (401, service or drop unreachable, journal) are thrown and leave the file in the inbox to resume later.
 */
export async function processFile(runtime: Runtime, job: InboundJob, file: FileRef, options: ProcessFileOptions = {}): Promise<FileReport> {
  const name = typeof file === 'string' ? file : file.name;
  const drop = options.drop ?? (await runtime.drop(job.drop));
  const report: FileReport = { job: job.name, file: name, outcome: 'done', rows: emptyRowCounts(), requests: 0 };
  const ctx: FileContext = {
    runtime, job, drop, name, file, options, report, resultFolder: options.resultFolder ?? 'outbox',
    logger: runtime.logger.child({ job: job.name, file: name }),
  };
  let mapping: Mapping;
  try {
    mapping = pickMapping(await runtime.mappings(), job, name, options.mapping);
  } catch (error) {
    if (isWisbridgeError(error) && FILE_LEVEL.has(error.code)) return rejectWhole(ctx, describeError(error));
    throw error;
  }
  report.mapping = mapping.name;
  let fp;
  try {
    fp = await fingerprint(await drop.openRead('inbox', name), mapping.dialect.encoding === 'utf-8');
  } catch (error) {
    if (isWisbridgeError(error, 'DROP_NOT_FOUND')) return { ...report, outcome: 'vanished', reason: describeError(error) };
    throw error;
  }
  if (fp.blank) return rejectWhole(ctx, `FILE_UNREADABLE: ${name} is empty: there is no header row`);
  if (fp.invalidUtf8At !== undefined) {
    return rejectWhole(ctx, `FILE_UNREADABLE: ${name} is not valid UTF-8 (near byte ${fp.invalidUtf8At}); mapping ${mapping.name} reads utf-8 — check the encoding the WMS writes (dialect.encoding)`);
  }
  if (options.dryRun) return dryRun(ctx, mapping);

  const journal = await runtime.journal();
  const claim = journal.claimFile({ drop: drop.name, name, checksum: fp.checksum, size: fp.size, mapping: mapping.name, force: options.force });
  if (claim.status === 'duplicate') return duplicate(ctx, journal, claim.fileId);
  report.fileId = claim.fileId;
  report.resumed = claim.status === 'resume';
  ctx.logger.info({ fileId: claim.fileId, claim: claim.status, mapping: mapping.name, size: fp.size }, 'processing file');
  const sender: SenderContext = { journal, client: await runtime.client(job.service), fileId: claim.fileId, logger: ctx.logger, stats: { requests: 0 } };
  try {
    const state = journal.resumeState(claim.fileId);
    for (const r of state.sentRequests) await settleSentRequest(sender, r.requestId, r.endpoint);
    const completed = await streamFile({ runtime, job, drop, name, options, mapping, sender, state, size: fp.size, lines: fp.lines });
    if (!completed) {
      report.outcome = 'interrupted';
      fillCounts(report, journal, claim.fileId);
      return report;
    }
  } catch (error) {
    if (isWisbridgeError(error) && FILE_LEVEL.has(error.code)) {
      journal.rejectFile(claim.fileId, describeError(error));
      return rejectWhole(ctx, describeError(error), journal);
    }
    throw error;
  } finally {
    report.requests = sender.stats.requests;
  }
  report.outcome = journal.finishFile(claim.fileId) === 'done' ? 'done' : 'failed';
  await writeResult(ctx, journal, claim.fileId);
  await dispose(ctx, 'archive');
  ctx.logger.info({ outcome: report.outcome, rows: report.rows, requests: report.requests }, 'file processed');
  return report;
}

function fillCounts(report: FileReport, journal: Journal, fileId: number): void {
  const s = journal.fileSummary(fileId);
  report.rows = { ok: s.ok, error: s.error, skipped: s.skipped, uncertain: s.uncertain + s.sent };
}

async function writeResult(ctx: FileContext, journal: Journal, fileId: number, override?: ResultRowOverride): Promise<void> {
  const name = resultFileName(ctx.name);
  const counts = emptyRowCounts();
  await ctx.drop.writeAtomic(ctx.resultFolder, name, resultStream(journal, fileId, override, counts) as Readable, { overwrite: true });
  ctx.report.resultFile = name;
  ctx.report.rows = counts;
}

async function dispose(ctx: FileContext, outcome: 'archive' | 'error'): Promise<void> {
  if (ctx.options.dispose === false) return;
  const moved = await disposeFile(ctx.drop, ctx.file, outcome);
  ctx.report.movedTo = `${moved.folder}/${moved.name}`;
}

/** The file failed as a whole: to error/ with NAME.error.txt beside it (and its result file when rows were recorded). */
async function rejectWhole(ctx: FileContext, reason: string, journal?: Journal): Promise<FileReport> {
  const { report } = ctx;
  report.outcome = 'rejected';
  report.reason = reason;
  ctx.logger.warn({ reason }, 'file rejected as a whole');
  if (journal && report.fileId !== undefined) {
    fillCounts(report, journal, report.fileId);
    if (report.rows.ok + report.rows.error + report.rows.uncertain + report.rows.skipped > 0) await writeResult(ctx, journal, report.fileId);
  }
  const text = [`file: ${ctx.name}`, report.mapping ? `mapping: ${report.mapping}` : undefined, `rejected at: ${new Date().toISOString()}`, `reason: ${reason}`, '']
    .filter((l) => l !== undefined).join('\n');
  if (ctx.options.dispose === false) {
    await ctx.drop.writeAtomic(ctx.resultFolder, errorFileName(ctx.name), text, { overwrite: true });
    return report;
  }
  await dispose(ctx, 'error');
  const finalName = report.movedTo!.slice('error/'.length);
  await ctx.drop.writeAtomic('error', errorFileName(finalName), text, { overwrite: true });
  return report;
}

/**
 * Same bytes as a file processed before. A re-drop (the earlier file is in archive/, or has another name) gets
 * a result file saying so, every row `skipped`. The same name still in the inbox and not archived means the
 * earlier run stopped between finishing and archiving: its result file is written again and the file archived.
 */
async function duplicate(ctx: FileContext, journal: Journal, previousId: number): Promise<FileReport> {
  const prev = journal.getFile(previousId);
  const { report } = ctx;
  report.fileId = previousId;
  const interruptedRun = ctx.options.dispose !== false && prev.name === ctx.name && prev.drop === ctx.drop.name
    && prev.status !== 'rejected' && (await ctx.drop.stat('archive', ctx.name)) === undefined;
  if (interruptedRun) {
    report.outcome = prev.status === 'done' ? 'done' : 'failed';
    fillCounts(report, journal, previousId);
    await writeResult(ctx, journal, previousId);
  } else {
    report.outcome = 'duplicate';
    const when = prev.finishedAt ?? prev.claimedAt;
    const message = `duplicate: the same content was already processed as ${prev.name} on ${when} (${prev.status}); not applied again`;
    report.reason = message;
    await writeResult(ctx, journal, previousId, { status: 'skipped', message });
    ctx.logger.warn({ previous: prev.name, previousFileId: previousId }, 'duplicate file: not applied again');
  }
  await dispose(ctx, 'archive');
  return report;
}

/** Maps and validates without claiming or sending: what would be sent goes to `onDryRun`. */
async function dryRun(ctx: FileContext, mapping: Mapping): Promise<FileReport> {
  const { report, runtime, job } = ctx;
  report.outcome = 'dry-run';
  const service = runtime.loaded.service(job.service);
  const warehouse = mapping.document.startsWith('inventory.') ? service.warehouse : undefined;
  let resolver: ReferenceResolver | undefined;
  const lazy: ReferenceResolver = {
    resolve: async (kind, keys) => (resolver ??= new ApiReferenceResolver(await runtime.client(job.service))).resolve(kind, keys),
  };
  const emit = ctx.options.onDryRun ?? (() => undefined);
  try {
    for await (const o of mapInbound(await ctx.drop.openRead('inbox', ctx.name), mapping, { fileName: ctx.name, resolver: lazy, maxBatchItems: service.batch_size })) {
      if (o.kind === 'skipped') {
        report.rows.skipped++;
        emit({ kind: 'skipped', line: o.line, reason: o.reason });
      } else if (o.kind === 'rejected') {
        report.rows.error += o.lines.length;
        emit({ kind: 'rejected', endpoint: o.endpoint, key: o.key, lines: o.lines, errors: o.errors.map((e) => e.message) });
      } else {
        for (const d of o.documents) {
          report.rows.ok += d.lines.length;
          if (warehouse !== undefined && d.item.warehouse === undefined) d.item.warehouse = warehouse;
        }
        emit({ kind: 'request', endpoint: o.endpoint, body: o.body, lines: o.documents.map((d) => d.lines) });
      }
    }
  } catch (error) {
    if (isWisbridgeError(error) && FILE_LEVEL.has(error.code)) {
      report.outcome = 'rejected';
      report.reason = describeError(error);
      return report;
    }
    throw error;
  }
  return report;
}
