import type { Readable } from 'node:stream';
import type { BatchEndpointId, WisClient, WriteOutcome } from '../client/index.js';
import type { InboundJob } from '../config/schema.js';
import { describeError, isWisbridgeError, WisbridgeError } from '../errors.js';
import type { FileRecord, FileStatus, ItemOutcome, ItemWithBody, Journal } from '../journal/index.js';
import { resultFileName } from '../pipeline/index.js';
import { resultStream } from '../pipeline/result-file.js';
import { uncertainHint } from '../pipeline/sender.js';
import type { Runtime } from '../runtime/runtime.js';

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
}

/** A journal file by id (digits) or by name (the most recent file of that name). */
export function findFile(journal: Journal, ref: string): FileRecord {
  if (/^\d+$/.test(ref)) {
    try {
      return journal.getFile(Number(ref));
    } catch {
      throw new WisbridgeError('USAGE', `no file with id ${ref} in the journal (see wisbridge status)`);
    }
  }
  const found = journal.listFiles({ limit: 100_000 }).filter((f) => f.name === ref);
  if (found.length === 0) throw new WisbridgeError('USAGE', `no file named "${ref}" in the journal (see wisbridge status)`);
  return found[0];
}

/** The inbound job a journal file came through: the job reading that drop (and allowed that mapping). */
export function jobOfFile(runtime: Runtime, file: FileRecord): InboundJob {
  const { config } = runtime.loaded;
  const dropKeys = Object.entries(config.drops).filter(([key, d]) => (d.name ?? key) === file.drop).map(([key]) => key);
  const job = config.inbound.find((j) => dropKeys.includes(j.drop) && (!j.mappings || j.mappings.includes(file.mapping)))
    ?? config.inbound.find((j) => dropKeys.includes(j.drop));
  if (!job) throw new WisbridgeError('CONFIG_INVALID', `no inbound job reads drop "${file.drop}" of file ${file.fileId} (${file.name})`);
  return job;
}

function toOutcome(item: ItemWithBody, o: WriteOutcome<Record<string, unknown>>, body: Record<string, unknown>): ItemOutcome {
  if (o.ok) return { seq: item.seq, status: 'ok', result: Object.keys(o.returned).length > 0 ? o.returned : undefined };
  if (o.uncertain) return { seq: item.seq, status: 'uncertain', messages: o.errors, hint: uncertainHint(item.endpoint ?? '', item.docKey ?? '', body) };
  return { seq: item.seq, status: 'error', messages: o.errors.length > 0 ? o.errors : ['refused by the service'] };
}

/**
 * Re-drives the failed items of a file (wisbridge retry): only items that failed (never ok, uncertain or
 * rows the mapping rejected) are sent again, each recorded before it goes out; then the result file in the
 * outbox is rewritten from the journal.
 */
export async function redriveFile(runtime: Runtime, ref: string): Promise<RedriveReport> {
  const journal = await runtime.journal();
  const file = findFile(journal, ref);
  const job = jobOfFile(runtime, file);
  const attempt = journal.beginRedrive(file.fileId);
  const client = await runtime.client(job.service);
  const batchSize = runtime.loaded.service(job.service).batch_size;
  const log = runtime.logger.child({ job: job.name, file: file.name, fileId: file.fileId, attempt });
  const report: RedriveReport = { fileId: file.fileId, name: file.name, attempt, sent: 0, ok: 0, error: 0, uncertain: 0, status: 'processing' };
  const byEndpoint = new Map<string, ItemWithBody[]>();
  for (const item of journal.retryable(file.fileId)) {
    if (item.endpoint === null || item.body === null) continue;
    byEndpoint.set(item.endpoint, [...(byEndpoint.get(item.endpoint) ?? []), item]);
  }
  log.info({ items: [...byEndpoint.values()].reduce((n, l) => n + l.length, 0) }, 're-driving failed items');
  for (const [endpoint, items] of byEndpoint) {
    const size = endpoint === 'inventory.counts' ? 1 : batchSize;
    for (let i = 0; i < items.length; i += size) {
      const outcomes = await send(journal, client, file.fileId, attempt, endpoint, items.slice(i, i + size));
      report.sent += outcomes.length;
      for (const o of outcomes) report[o.status] += 1;
    }
  }
  report.status = journal.finishFile(file.fileId);
  const drop = await runtime.drop(job.drop);
  const name = resultFileName(file.name);
  await drop.writeAtomic('outbox', name, resultStream(journal, file.fileId) as Readable, { overwrite: true });
  report.resultFile = name;
  log.info({ ...report }, 're-drive finished');
  return report;
}

async function send(journal: Journal, client: WisClient, fileId: number, attempt: number, endpoint: string, items: ItemWithBody[]): Promise<ItemOutcome[]> {
  const bodies = items.map((i) => JSON.parse(i.body as string) as Record<string, unknown>);
  const requestId = journal.transaction(() => {
    const id = journal.recordRequest(fileId, endpoint, items.map((i) => i.seq), { attempt });
    journal.markSent(id);
    return id;
  });
  let outcomes: ItemOutcome[];
  try {
    if (endpoint === 'inventory.counts') {
      outcomes = [await sendCount(client, items[0], bodies[0])];
    } else {
      const results = (await client.write(endpoint as BatchEndpointId, bodies as never, { batchSize: bodies.length })) as WriteOutcome<Record<string, unknown>>[];
      outcomes = results.map((o, i) => toOutcome(items[i], o, bodies[i]));
    }
  } catch (error) {
    // Nothing was applied when the client says so: the items wait for the next retry; otherwise the request stays `sent`.
    const details = isWisbridgeError(error) ? error.details ?? {} : {};
    const notSent = (details.notSent as number[] | undefined) ?? [];
    if (notSent.length === items.length || details.outcome === 'not-applied') journal.releaseRequest(requestId);
    throw new WisbridgeError(isWisbridgeError(error) ? error.code : 'UNAVAILABLE', `re-drive of file ${fileId} stopped: ${describeError(error)}`, { cause: error });
  }
  journal.completeRequest(requestId, outcomes);
  return outcomes;
}

async function sendCount(client: WisClient, item: ItemWithBody, body: Record<string, unknown>): Promise<ItemOutcome> {
  try {
    const count = await client.cycleCount(body as never);
    return { seq: item.seq, status: 'ok', result: count };
  } catch (error) {
    if (isWisbridgeError(error, 'BAD_REQUEST') || isWisbridgeError(error, 'INVALID_REQUEST')) return { seq: item.seq, status: 'error', messages: [error.message] };
    if (isWisbridgeError(error, 'UNCERTAIN_OUTCOME')) {
      return { seq: item.seq, status: 'uncertain', messages: [error.message], hint: uncertainHint('inventory.counts', item.docKey ?? '', body) };
    }
    throw error;
  }
}
