import { isSingleObjectWrite } from '../contract/index.js';
import { describeError, isWisbridgeError, WisbridgeError } from '../errors.js';
import type { FileRecord, FileStatus, ItemOutcome, ItemWithBody, OperatorJournal } from '../journal/index.js';
import { FileLife } from './file-life.js';
import { concludeAgain, jobOfFile, type ConcludingJournal } from './lifecycle.js';
import { storeOutcomes } from './outcomes.js';
import { reconcileSentRequest } from './reconcile.js';
import { deliver, type SendDoc } from './sender.js';
import type { SenderContext } from './types.js';
import type { FileConcluded, RuntimeParts } from '../runtime/runtime.js';

export interface RedriveReport {
  fileId: number;
  name: string;
  attempt: number;
  /** Items sent again. */
  sent: number;
  ok: number;
  error: number;
  uncertain: number;
  status: FileStatus;
  resultFile?: string;
  /** Where the result file was rewritten (FileConcluded.resultAt). */
  resultAt?: string;
}

/** A journal file by id (digits) or by name (the most recent file of that name). */
export async function findFile(journal: Pick<OperatorJournal, 'getFile' | 'latestFileNamed' | 'fileEventsNamed'>, ref: string): Promise<FileRecord> {
  if (/^\d+$/.test(ref)) {
    try {
      return await journal.getFile(Number(ref));
    } catch {
      throw new WisbridgeError('USAGE', `no file with id ${ref} in the journal (see wisbridge status)`);
    }
  }
  const found = await journal.latestFileNamed(ref);
  if (!found) throw new WisbridgeError('USAGE', (await neverClaimed(journal, ref)) ?? `no file named "${ref}" in the journal (see wisbridge status)`);
  return found;
}

/** What the journal knows of a file of that name it never claimed: a re-drop of content processed before, or a file rejected unread. */
export async function neverClaimed(journal: Pick<OperatorJournal, 'fileEventsNamed' | 'getFile'>, name: string): Promise<string | undefined> {
  const [event] = await journal.fileEventsNamed(name);
  if (!event) return undefined;
  if (event.kind === 'rejected') return `"${name}" was never processed: it was rejected on ${event.at} before it was read (${event.reason ?? 'no reason recorded'})`;
  let original = `file ${event.originalFileId}`;
  try {
    if (event.originalFileId !== null) original = `file ${event.originalFileId} (${(await journal.getFile(event.originalFileId)).name})`;
  } catch {
    // the original was pruned away: its id is still what the duplicate named
  }
  return `"${name}" was not applied: on ${event.at} it was a duplicate of ${original} — see wisbridge status --file ${event.originalFileId ?? ''}`.trimEnd();
}

/** What a re-drive uses of the journal: finding the file, its failed items, sending them again, concluding it. */
export type RedriveJournal = Pick<OperatorJournal, 'getFile' | 'latestFileNamed' | 'fileEventsNamed' | 'beginRedrive' | 'retryable'>
  & SenderContext['journal'] & ConcludingJournal;

/**
 * Re-drives the failed items of a file (wisbridge retry, the console): only items that failed (never ok, uncertain or
 * rows the mapping rejected) are sent again, each recorded before it goes out; then the result file in the outbox is
 * rewritten from the journal. A leased run of the file through the same life as a first pass: the re-drive takes the
 * file's lease (refused while an instance works on it or finishes it), sends under it, and a re-drive a crash stopped
 * is taken again like a first pass's resume: what it left in flight is reconciled first, then the file goes on.
 */
export async function redriveFile(runtime: RuntimeParts<'loaded' | 'logger' | 'client' | 'drop' | 'onFileConcluded' | 'leases', RedriveJournal>, ref: string): Promise<RedriveReport> {
  const journal = await runtime.journal();
  const file = await findFile(journal, ref);
  const job = jobOfFile(runtime.loaded.config, file);
  const life = new FileLife(file.name);
  const client = await runtime.client(job.service);
  // An instance that cannot renew its leases takes none: what it took may be another's by now.
  await runtime.leases?.live();
  const attempt = await journal.beginRedrive(file.fileId);
  life.begin();
  const log = runtime.logger.child({ job: job.name, file: file.name, fileId: file.fileId, attempt });
  const lease = runtime.leases?.hold(file.fileId);
  const ctx: SenderContext & { journal: RedriveJournal } = { journal, client, fileId: file.fileId, logger: log, stats: { requests: 0 }, lease };
  const report: RedriveReport = { fileId: file.fileId, name: file.name, attempt, sent: 0, ok: 0, error: 0, uncertain: 0, status: 'processing' };
  let concluded: FileConcluded;
  try {
    life.read();
    if (file.status === 'processing') {
      log.info({ event: 'redrive.resumed' }, 'taking up a re-drive an earlier run left unfinished');
      for (const r of (await journal.resumeState(file.fileId)).sentRequests) await reconcileSentRequest(ctx, r.requestId, r.endpoint);
    }
    await sendFailed(ctx, runtime.loaded.service(job.service).batch_size, attempt, report);
    life.sent();
    concluded = await concludeAgain(runtime, file.fileId, 'redrive', { finish: true, life });
  } catch (error) {
    if (lease?.lost || isWisbridgeError(error, 'LEASE_LOST')) {
      // Another instance took the file over: what this re-drive left, it takes up.
      lease?.lose();
      if (life.ending === undefined) life.abort(undefined);
      throw error;
    }
    // The file stays processing, its lease given up: a later re-drive (or another instance's) takes it up.
    if (life.ending === undefined) life.rollback(undefined);
    await journal.releaseFile(file.fileId).catch((e: unknown) => log.debug({ err: describeError(e) }, 'could not give up the file\'s lease: it runs out by itself'));
    throw error;
  } finally {
    lease?.release();
  }
  report.status = concluded.status;
  report.resultFile = concluded.resultFile;
  report.resultAt = concluded.resultAt;
  log.info({ ...report }, 're-drive finished');
  return report;
}

/** Sends the file's failed items again, in chunks of the service's batch size per endpoint, counting their outcomes. */
async function sendFailed(ctx: SenderContext & { journal: RedriveJournal }, batchSize: number, attempt: number, report: RedriveReport): Promise<void> {
  const byEndpoint = new Map<string, ItemWithBody[]>();
  for await (const item of ctx.journal.retryable(ctx.fileId)) {
    if (item.endpoint === null || item.body === null) continue;
    let list = byEndpoint.get(item.endpoint);
    if (!list) byEndpoint.set(item.endpoint, (list = []));
    list.push(item);
  }
  ctx.logger.info({ items: [...byEndpoint.values()].reduce((n, l) => n + l.length, 0) }, 're-driving failed items');
  for (const [endpoint, items] of byEndpoint) {
    const size = isSingleObjectWrite(endpoint) ? 1 : batchSize;
    for (let i = 0; i < items.length; i += size) {
      const outcomes = await send(ctx, attempt, endpoint, items.slice(i, i + size));
      report.sent += outcomes.length;
      for (const o of outcomes) report[o.status] += 1;
    }
  }
}

/** Records a chunk of failed items as a request of this attempt and sends it through the pipeline's sender. */
async function send(ctx: SenderContext, attempt: number, endpoint: string, items: ItemWithBody[]): Promise<ItemOutcome[]> {
  const { journal, fileId } = ctx;
  const docs: SendDoc[] = items.map((i) => ({ seq: i.seq, docKey: i.docKey, item: JSON.parse(i.body as string) as Record<string, unknown> }));
  const bodies = docs.map((d) => d.item);
  const requestId = await journal.transaction(async (tx) => {
    const id = await tx.recordRequest(fileId, endpoint, items.map((i) => i.seq), { attempt });
    await tx.markSent(id);
    return id;
  });
  ctx.stats.requests++;
  let outcomes: ItemOutcome[];
  try {
    outcomes = await deliver(ctx, { requestId, endpoint, docs, bodies });
  } catch (error) {
    throw new WisbridgeError(isWisbridgeError(error) ? error.code : 'UNAVAILABLE', `re-drive of file ${fileId} stopped: ${describeError(error)}`, { cause: error });
  }
  await journal.transaction(async (tx) => storeOutcomes({ journal: tx, logger: ctx.logger }, requestId, endpoint, bodies, outcomes));
  return outcomes;
}
