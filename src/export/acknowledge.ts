import { setImmediate as nextTurn } from 'node:timers/promises';
import type { WisClient, WriteOutcome } from '../client/index.js';
import type { ExportJob } from '../config/schema.js';
import type { Drop } from '../drops/index.js';
import { writeStopOf } from '../errors.js';
import type { Acknowledgement, ExportRecord, ExportJournal } from '../journal/index.js';
import type { Logger } from '../log.js';
import { writeResultFile } from './files.js';
import type { WorkTypeSpec } from './work-types.js';

export interface AckTally {
  acknowledged: number;
  /** The service already showed them acknowledged (an earlier attempt whose answer was lost, or someone else). */
  alreadyAcknowledged: number;
  /** Refused: cancelled in the meantime, wrong state... (in the result file and the log). */
  errors: number;
  /** Outcome unknown after retries: left pending, acknowledged again on the next run. */
  uncertain: number;
  resultFiles: string[];
}

export const emptyTally = (): AckTally => ({ acknowledged: 0, alreadyAcknowledged: 0, errors: 0, uncertain: 0, resultFiles: [] });

export interface AckContext {
  job: ExportJob;
  spec: WorkTypeSpec;
  client: WisClient;
  journal: ExportJournal;
  drop: Drop;
  logger: Logger;
  signal?: AbortSignal;
  /** Acknowledge batches in flight at once (the service's concurrency). */
  concurrency?: number;
}

/**
 * Acknowledges every record the journal says is due (written files, on-export policy; confirmed records,
 * on-confirmation policy), file by file: a big backlog is read one file at a time, not in one query that held the
 * event loop (docs/performance.md, "Settings chosen by measurement"). Transfers' fail-fast endpoints are bisected
 * by the client, so one refused record never blocks the others. Records the service refused are checked once by
 * reading state back: those it shows acknowledged count as already acknowledged.
 */
export async function acknowledgeDue(ctx: AckContext, tally: AckTally): Promise<void> {
  const key = (r: ExportRecord) => `${r.workType}:${r.exportId}:${r.id}`;
  for (const exportId of await ctx.journal.exportsDueForAcknowledgement(ctx.job.work_type)) {
    // Another job of this work type in this process may be acknowledging some of them right now.
    const due = (await ctx.journal.pendingAcknowledgementsOf(exportId)).filter((r) => !acknowledgingNow.has(key(r)));
    if (due.length === 0) continue;
    for (const r of due) acknowledgingNow.add(key(r));
    try {
      await acknowledgeExport(ctx, exportId, due, tally);
    } finally {
      for (const r of due) acknowledgingNow.delete(key(r));
    }
  }
}

const acknowledgingNow = new Set<string>();

/**
 * Outcomes recorded per transaction: a big file's in one held the event loop
 * (docs/performance.md, "Settings chosen by measurement").
 */
const RECORD_CHUNK = 1_000;

async function acknowledgeExport(ctx: AckContext, exportId: number, records: ExportRecord[], tally: AckTally): Promise<void> {
  const { client, journal, spec, logger } = ctx;
  const sentAt = new Date();
  let outcomes: WriteOutcome[];
  let fatal: unknown;
  try {
    // Batches in flight at once: the order of acknowledgements does not matter, only that each is answered.
    // eslint-disable-next-line no-restricted-syntax -- the acknowledge endpoint is the job's work type, known at run time; every acknowledge item is `{id}`
    outcomes = await client.write(spec.acknowledge, records.map((r) => ({ id: r.id })) as never, { signal: ctx.signal, concurrency: ctx.concurrency });
  } catch (error) {
    fatal = error;
    outcomes = writeStopOf(error)?.outcomes ?? [];
  }
  const refused = outcomes.filter((o) => !o.ok && !o.uncertain);
  let shownAcknowledged = new Set<number>();
  if (refused.length > 0 && fatal === undefined) {
    try {
      shownAcknowledged = await client.verify(spec.acknowledge, refused.map((o) => o.key as number), sentAt, { signal: ctx.signal });
    } catch (error) {
      logger.warn({ err: error }, 'export: could not read back refused acknowledgements');
    }
  }
  const numbers = new Map(records.map((r) => [r.id, r.number]));
  const acks: Acknowledgement[] = [];
  for (const o of outcomes) {
    const id = o.key as number;
    if (o.ok) {
      tally.acknowledged++;
      acks.push({ id, status: 'acknowledged', acknowledgedAt: (o.returned as { acknowledged_at?: string | null }).acknowledged_at ?? null });
    } else if (o.uncertain) {
      tally.uncertain++;
      logger.warn({ id, messages: o.errors }, 'export: acknowledgement outcome unknown; retried on the next run');
    } else if (shownAcknowledged.has(id)) {
      tally.alreadyAcknowledged++;
      acks.push({ id, status: 'acknowledged', messages: ['already acknowledged', ...o.errors] });
      logger.warn({ id, messages: o.errors }, 'export: record was already acknowledged');
    } else {
      tally.errors++;
      acks.push({ id, status: 'error', messages: o.errors });
      logger.error({ id, number: numbers.get(id), messages: o.errors }, 'export: acknowledgement refused');
    }
  }
  // Only what is still waiting (another process on this journal may have recorded some meanwhile).
  const waiting = await journal.pendingIdsOf(exportId);
  const stillWaiting = acks.filter((a) => waiting.has(a.id));
  for (let start = 0; start < stillWaiting.length; start += RECORD_CHUNK) {
    if (start > 0) await nextTurn();
    await journal.recordAcknowledgements(exportId, stillWaiting.slice(start, start + RECORD_CHUNK));
  }
  if (ctx.job.result_files && acks.length > 0) {
    const name = await writeResultFile(ctx.drop, journal, await journal.getExport(exportId));
    if (!tally.resultFiles.includes(name)) tally.resultFiles.push(name);
  }
  if (fatal !== undefined) throw fatal;
}
