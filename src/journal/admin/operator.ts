import type { Blocks } from '../core/blocks.js';
import type { Fence } from '../leases/leases.js';
import { parseMessages, toItem, type ItemRow } from '../core/rows.js';
import type { SqlPort } from '../core/sql.js';
import type { InboundReads } from '../inbound/inbound-reads.js';
import type { Backlog, FileRecord, FileStatus, HistoryEntry, ItemWithBody, StoredItem } from '../core/types.js';
import { beginRedrive, resolveUncertain } from './operator-actions.js';
import { fileIn, statementsOf, toFile, type FileRow, type OperatorContext } from './operator-context.js';
import { iterateLineOutcomes } from './line-outcomes.js';

/*
 * The operator's side of the journal: a file's record, its failed and uncertain items, the backlog, the line outcomes
 * of its result file (line-outcomes.ts), and the actions on its rows (operator-actions.ts).
 */

export type { ResolveResult } from './operator-actions.js';

const PAGE = 2000;

/** An item's earlier outcomes, oldest first (the test hooks' itemHistory, testing.ts: the console shows the latest only). */
export async function itemHistory(sql: SqlPort, itemId: number): Promise<HistoryEntry[]> {
  return (await sql.all<Record<string, never>>('SELECT * FROM item_history WHERE item_id = ? ORDER BY id', [itemId])).map((row) => ({
    requestId: row.request_id, attempt: row.attempt, status: row.status,
    messages: parseMessages(row.messages), hint: row.hint, recordedAt: row.recorded_at,
  }));
}

/** Failed items of a file that can be sent again (never ok, uncertain or mapping-rejected ones), with bodies. */
async function* retryable(c: OperatorContext, fileId: number): AsyncGenerator<ItemWithBody> {
  for (const query of [c.q.retryErrors, c.q.retryAbandoned]) {
    let after = -1;
    for (;;) {
      const rows = await c.sql.all<ItemRow & { body: string | null }>(query, [fileId, after, PAGE]);
      for (const row of rows) yield { ...toItem(row), body: row.body };
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1].seq;
    }
  }
}

async function count(c: OperatorContext, query: string): Promise<number> {
  return (await c.sql.get<{ n: number }>(query))?.n ?? 0;
}

/** What waits: files processing, requests open, items uncertain or failed, exports and acknowledgements pending. */
async function backlog(c: OperatorContext): Promise<Backlog> {
  const { sql, q } = c;
  const result: Backlog = {
    processingFiles: await count(c, q.processingFiles),
    pendingRequests: 0, pendingItems: 0, sentRequests: 0, sentItems: 0,
    uncertainItems: await count(c, q.uncertainCount),
    errorItems: await count(c, q.errorCount),
    exportsUnwritten: await count(c, q.unwrittenRecords), acknowledgementsPending: 0, awaitingConfirmation: 0,
  };
  for (const row of await sql.all<{ status: string; requests: number; items: number }>(q.openRequests)) {
    if (row.status === 'pending') Object.assign(result, { pendingRequests: row.requests, pendingItems: row.items });
    else Object.assign(result, { sentRequests: row.requests, sentItems: row.items });
  }
  for (const row of await sql.all<{ ack_status: string; n: number }>(q.openAcks)) {
    if (row.ack_status === 'pending') result.acknowledgementsPending = row.n;
    else result.awaitingConfirmation = row.n;
  }
  return result;
}

async function itemsOf(c: OperatorContext, query: string, params: Array<number | string>): Promise<StoredItem[]> {
  return (await c.sql.all<ItemRow>(query, params)).map((row) => toItem(row));
}

async function latestFileNamed(c: OperatorContext, name: string): Promise<FileRecord | undefined> {
  const row = await c.sql.get<FileRow>(c.q.fileNamed, [name]);
  return row && toFile(row);
}

async function listFiles(c: OperatorContext, options: { since?: string; status?: FileStatus; limit: number }): Promise<FileRecord[]> {
  const since = options.since ?? null;
  const status = options.status ?? null;
  return (await c.sql.all<FileRow>(c.q.listFiles, [since, since, status, status, options.limit])).map(toFile);
}

/**
 * The operator role over `sql`: `results` reads the service's results on the same port. `fence`: in lease mode
 * (leases.ts), a re-drive takes the file's lease and a resolution waits for its owner to finish.
 */
export function createOperator(sql: SqlPort, now: () => string, results: InboundReads, blocks: Blocks, fence?: Fence) {
  const c: OperatorContext = { sql, now, q: statementsOf(sql.dialect), results, blocks, fence };
  return {
    getFile: (fileId: number): Promise<FileRecord> => fileIn(c, sql, fileId),
    /** The most recent file of that name (any drop), if any. */
    latestFileNamed: (name: string) => latestFileNamed(c, name),
    listFiles: (options: { since?: string; status?: FileStatus; limit: number }) => listFiles(c, options),
    failedItems: (fileId: number, options: { limit?: number } = {}): Promise<StoredItem[]> =>
      itemsOf(c, c.q.failed, [fileId, options.limit ?? 1000]),
    uncertainItems: (fileId?: number, options: { limit?: number } = {}): Promise<StoredItem[]> =>
      fileId === undefined ? itemsOf(c, c.q.uncertain, [options.limit ?? 1000]) : itemsOf(c, c.q.uncertainOfFile, [fileId, options.limit ?? 1000]),
    retryable: (fileId: number) => retryable(c, fileId),
    beginRedrive: (fileId: number) => beginRedrive(c, fileId),
    resolveUncertain: (target: Parameters<typeof resolveUncertain>[1], options: Parameters<typeof resolveUncertain>[2]) => resolveUncertain(c, target, options),
    /** One outcome per input line, in line order, for the result file. Safe to interleave with journal writes. */
    iterateLineOutcomes: (fileId: number) => iterateLineOutcomes(c, fileId),
    backlog: () => backlog(c),
  };
}
