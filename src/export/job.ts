import type { ExportJob } from '../config/schema.js';
import { WisbridgeError } from '../errors.js';
import type { Mapping } from '../mapping/index.js';
import type { ExportJournal } from '../journal/index.js';
import type { RuntimeParts } from '../runtime/runtime.js';

/** What an export pass uses of the runtime: the service's client, the drop, the mapping, and the exports' journal. */
export type ExportRuntime = RuntimeParts<'loaded' | 'logger' | 'signal' | 'client' | 'drop' | 'mapping' | 'journalTally' | 'leases', ExportJournal>;
import { acknowledgeDue, emptyTally, type AckTally } from './acknowledge.js';
import { exportCancellations } from './cancellations.js';
import { exportsInFlight, reconcileUnwritten } from './files.js';
import { exportProducts } from './products.js';
import { exportPending, type FileContext, type ExportTuning, type WrittenFile } from './work.js';
import { WORK_TYPE_SPECS, type WorkListType } from './work-types.js';
import { exportPendingX12, type UnwritableRecord, type X12Partner } from './x12-work.js';
import { X12_WORK_LISTS } from './x12-sets.js';

export interface ExportSummary {
  job: string;
  workType: ExportJob['work_type'];
  /** Files written to the outbox in this run (work lists and cancellation lists; not result files). */
  files: WrittenFile[];
  /** Records read from the pending list (products: from the catalog). */
  listed: number;
  /** Listed records skipped: handed over before (work types), or already exported with the same updated_at (products). */
  skipped: number;
  /** Records written to work lists in this run. */
  exported: number;
  /** X12 work lists: listed records left out because their data cannot be written (they stay pending at the service). */
  unwritable: UnwritableRecord[];
  /** Records of files written by an earlier, interrupted run, reconciled at the start of this one. */
  recovered: { markedWritten: number; abandoned: number };
  acknowledgements: AckTally;
  /** Records written under the on-confirmation policy, waiting for the WMS's confirmation. */
  awaitingConfirmation: number;
  /** Records put on a cancellation list in this run. */
  cancelled: number;
  /** Products: true when this run was a full export (no cursor yet). */
  fullExport?: boolean;
  /** 0 all good, 1 some acknowledgements were refused or stayed uncertain, or some records could not be written. */
  exitCode: 0 | 1;
}

export interface RunExportOptions {
  signal?: AbortSignal;
  /** Clock for file names (tests). */
  now?: () => Date;
  /** Threads and journal transactions (tests): see ExportTuning. */
  tuning?: ExportTuning;
}

async function exportMapping(runtime: Pick<ExportRuntime, 'mapping'>, name: string, job: ExportJob): Promise<Mapping> {
  const mapping = await runtime.mapping(name);
  const want = `${job.work_type}.list`;
  if (mapping.direction !== 'export' || mapping.document !== want) {
    throw new WisbridgeError('CONFIG_INVALID', `export job "${job.name}": mapping "${name}" is ${mapping.document}, not ${want}`);
  }
  return mapping;
}

/**
 * One export pass of a job: reconcile files an interrupted run left behind, acknowledge what is still due, list the
 * pending work, write it in work-list files (journal first), acknowledge per policy, then export cancellations.
 * Fatal problems (service down, drop unreachable, bad configuration) are thrown as WisbridgeError; what was done
 * before stays in the journal, and the next run continues from there.
 */
export async function runExportJob(runtime: ExportRuntime, job: ExportJob, options: RunExportOptions = {}): Promise<ExportSummary> {
  const logger = runtime.logger.child({ job: job.name, work_type: job.work_type });
  const signal = options.signal ?? runtime.signal;
  const mapping = await exportMapping(runtime, job.mapping, job);
  const [journal, client, drop] = await Promise.all([runtime.journal(), runtime.client(job.service), runtime.drop(job.drop)]);
  // After a pause the heartbeat is stale: the next one, which reports the tick lost if it was taken over, is waited for.
  const fence = async (): Promise<void> => {
    await runtime.leases?.live(signal);
    signal.throwIfAborted();
  };
  const ctx: FileContext = {
    job, client, journal, drop, logger, signal, fence, now: options.now ?? (() => new Date()),
    concurrency: runtime.loaded.service(job.service).concurrency, tuning: options.tuning, journalTally: runtime.journalTally,
  };
  const summary: ExportSummary = {
    job: job.name, workType: job.work_type, files: [], listed: 0, skipped: 0, exported: 0, unwritable: [],
    recovered: { markedWritten: 0, abandoned: 0 }, acknowledgements: emptyTally(), awaitingConfirmation: 0, cancelled: 0, exitCode: 0,
  };

  for (const unwritten of (await journal.unwrittenExports(job.work_type)).filter((e) => !exportsInFlight.has(e.fileName))) {
    const outcome = await reconcileUnwritten(journal, drop, unwritten, logger);
    if (outcome === 'written') summary.recovered.markedWritten += unwritten.recordCount;
    else if (outcome === 'abandoned') summary.recovered.abandoned += unwritten.recordCount;
  }

  if (job.work_type === 'products') {
    const result = await exportProducts(ctx, mapping);
    Object.assign(summary, { listed: result.listed, skipped: result.skipped, fullExport: result.full, files: result.files });
    summary.exported = result.files.reduce((n, f) => n + f.records, 0);
    logger.info(summaryLog(summary), 'export: done');
    return summary;
  }

  const spec = WORK_TYPE_SPECS[job.work_type];
  const ackCtx = { job, spec, client, journal, drop, logger, signal, concurrency: ctx.concurrency };
  // Due from an earlier run (a crash after writing, an uncertain answer, records the WMS confirmed).
  await fence();
  await acknowledgeDue(ackCtx, summary.acknowledgements);

  const work = job.format === 'x12'
    ? await exportPendingX12(ctx, x12PartnerOf(runtime, job), x12WorkListOf(job), spec.list, spec.pending)
    : await exportPending(ctx, mapping, spec.list, spec.pending);
  Object.assign(summary, { listed: work.listed, skipped: work.skipped, unwritable: 'unwritable' in work ? work.unwritable : [] });
  summary.files.push(...work.files);
  summary.exported = work.files.reduce((n, f) => n + f.records, 0);
  if (job.acknowledge === 'on-export') {
    await fence();
    await acknowledgeDue(ackCtx, summary.acknowledgements);
  }
  summary.awaitingConfirmation = (await journal.awaitingConfirmation(job.work_type)).length;

  if (spec.cancellable && job.cancellations) {
    const cancelMapping = job.cancellation_mapping ? await exportMapping(runtime, job.cancellation_mapping, job) : mapping;
    const result = await exportCancellations(ctx, spec, cancelMapping);
    summary.cancelled = result.cancelled;
    summary.files.push(...result.files);
  }
  const a = summary.acknowledgements;
  summary.exitCode = a.errors > 0 || a.uncertain > 0 || summary.unwritable.length > 0 ? 1 : 0;
  logger.info(summaryLog(summary), 'export: done');
  return summary;
}

/**
 * Only the acknowledgement step of a job: what the journal says is due (e.g. right after the inbound pipeline
 * recorded a WMS confirmation for an on-confirmation job). Lists nothing, writes no work list.
 */
export async function acknowledgeDueForJob(runtime: ExportRuntime, job: ExportJob, options: RunExportOptions = {}): Promise<AckTally> {
  if (job.work_type === 'products') return emptyTally();
  const [journal, client, drop] = await Promise.all([runtime.journal(), runtime.client(job.service), runtime.drop(job.drop)]);
  const logger = runtime.logger.child({ job: job.name, work_type: job.work_type });
  const tally = emptyTally();
  const concurrency = runtime.loaded.service(job.service).concurrency;
  await acknowledgeDue({ job, spec: WORK_TYPE_SPECS[job.work_type], client, journal, drop, logger, signal: options.signal ?? runtime.signal, concurrency }, tally);
  return tally;
}

function x12PartnerOf(runtime: Pick<ExportRuntime, 'loaded'>, job: ExportJob): X12Partner {
  const profile = job.partner === undefined ? undefined : runtime.loaded.config.partners[job.partner];
  if (!profile) throw new WisbridgeError('CONFIG_INVALID', `export job "${job.name}": format x12 names no known partner profile ("${job.partner ?? ''}")`);
  return { name: job.partner!, profile };
}

function x12WorkListOf(job: ExportJob) {
  const workList = X12_WORK_LISTS[job.work_type as WorkListType];
  if (!workList) throw new WisbridgeError('CONFIG_INVALID', `export job "${job.name}": ${job.work_type} is not written as X12`);
  return workList;
}

function summaryLog(s: ExportSummary) {
  return {
    files: s.files.map((f) => f.name), listed: s.listed, skipped: s.skipped, exported: s.exported, unwritable: s.unwritable.length, recovered: s.recovered,
    acknowledged: s.acknowledgements.acknowledged, already_acknowledged: s.acknowledgements.alreadyAcknowledged,
    ack_errors: s.acknowledgements.errors, ack_uncertain: s.acknowledgements.uncertain,
    awaiting_confirmation: s.awaitingConfirmation, cancelled: s.cancelled,
  };
}
