import type { PackedBatch } from './block-pack.js';
import { sqlNowIso, type SqlPort, type SqlValue } from './sql.js';
import { SPAN_ITEMS } from './blocks.js';

/*
 * PostgreSQL: a commit's new requests and their item blocks recorded in one statement, with what refusing them needs
 * read in the same snapshot (which does not see the new rows): the file's status, the first item rows in each block's
 * seq span, the seqs of the blocks recorded before that reach their span. The caller refuses what does not fit
 * after the statement (blocks.ts, refuseRecorded), which fails its unit of work and so undoes the inserts. On a
 * distant server a statement whose answer is awaited is a round trip the next request waits for: one for the whole
 * commit, where the file's status, the check and the two inserts of each request would be four.
 */

/** A request to record with its block. */
export interface BatchToRecord {
  packed: PackedBatch;
  /** Its bodies' JSON text, in item order. */
  bodies: string;
}

/** What recordWithBlocks found and did. */
export interface RecordedBlocks {
  /** null: no such file. Nothing was inserted unless it is `processing`. */
  fileStatus: string | null;
  /** The new requests' ids, in the order of the batches (null when nothing was inserted). */
  requestIds: Array<number | null>;
  /** Per batch, the first SPAN_ITEMS item rows in its seq span (blocks.ts, refuseRecorded), in seq order. */
  spanItems: number[][];
  /** The seqs (ranges) of the blocks recorded before that reach the batches' span. */
  blockSeqs: Array<Array<[number, number]>>;
}

const texts: string[] = [];

function recordText(n: number): string {
  texts[n] ??= `WITH file_row AS (SELECT status FROM files WHERE id = ?),
  v (ord, endpoint, seqs, n, first_seq, last_seq, first_line, docs, bodies) AS (VALUES
    ${Array(n).fill('(?::bigint, ?::text, ?::text, ?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::text, ?::text)').join(', ')}),
  new_requests AS (INSERT INTO requests (file_id, endpoint, attempt, seqs, item_count, status, created_at, sent_at)
    SELECT ?::bigint, v.endpoint, 1, v.seqs, v.n, ?::text, ?::text, CASE WHEN ?::int = 1 THEN ${sqlNowIso('postgres')} END FROM v, file_row WHERE file_row.status = 'processing'
    ORDER BY v.ord RETURNING id, seqs),
  new_blocks AS (INSERT INTO item_blocks (request_id, file_id, first_seq, last_seq, first_line, docs, bodies)
    SELECT r.id, ?::bigint, v.first_seq, v.last_seq, v.first_line, v.docs, v.bodies FROM new_requests r JOIN v ON v.seqs = r.seqs)
  SELECT 0 AS kind, (SELECT status FROM file_row) AS status, NULL::bigint AS id, NULL::text AS seqs, NULL::bigint AS seq
  UNION ALL SELECT 1, NULL, id, seqs, NULL FROM new_requests
  ${Array(n).fill(`UNION ALL (SELECT 2, NULL, ?::bigint, NULL, seq FROM items WHERE file_id = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ${SPAN_ITEMS})`).join('\n  ')}
  UNION ALL SELECT 3, NULL, NULL, r.seqs, NULL FROM item_blocks b JOIN requests r ON r.id = b.request_id
    WHERE b.file_id = ? AND b.last_seq >= ? AND b.first_seq <= ?`;
  return texts[n];
}

/** Records the batches' requests (`sent`: marked sent, by the database's clock) and blocks; see above for what the caller checks after. */
export async function recordWithBlocks(sql: SqlPort, fileId: number, request: { sent: boolean; at: string }, batches: readonly BatchToRecord[]): Promise<RecordedBlocks> {
  const params: SqlValue[] = [fileId];
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  const seqsOf = batches.map(({ packed }) => JSON.stringify(packed.ranges));
  batches.forEach(({ packed, bodies }, ord) => {
    const from = packed.ranges[0][0];
    const to = packed.ranges[packed.ranges.length - 1][1];
    first = Math.min(first, from);
    last = Math.max(last, to);
    params.push(ord, packed.endpoint, seqsOf[ord], packed.count, from, to, packed.firstLine, packed.docs, bodies);
  });
  params.push(fileId, request.sent ? 'sent' : 'pending', request.at, request.sent ? 1 : 0, fileId);
  batches.forEach(({ packed }, ord) => params.push(ord, fileId, packed.ranges[0][0], packed.ranges[packed.ranges.length - 1][1]));
  params.push(fileId, first, last);
  const rows = await sql.values<[number, string | null, number | null, string | null, number | null]>(recordText(batches.length), params);
  const found: RecordedBlocks = { fileStatus: null, requestIds: batches.map(() => null), spanItems: batches.map(() => []), blockSeqs: [] };
  const ids = new Map<string, number>();
  for (const [kind, status, id, seqs, seq] of rows) {
    if (kind === 0) found.fileStatus = status;
    else if (kind === 1) ids.set(seqs!, id!);
    else if (kind === 2) found.spanItems[id!].push(seq!);
    else found.blockSeqs.push(JSON.parse(seqs!) as Array<[number, number]>);
  }
  found.requestIds = seqsOf.map((seqs) => ids.get(seqs) ?? null);
  return found;
}
