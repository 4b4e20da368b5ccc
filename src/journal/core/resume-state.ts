import { mergeRanges, type Blocks } from './blocks.js';
import { INBOUND_STATEMENTS as q } from '../inbound/inbound-sql.js';
import { toRequest, type RequestRow } from './rows.js';
import type { SqlPort } from './sql.js';
import type { FileSummary, ResumeClass, ResumeState } from './types.js';

/** Where a crash left a file (JournalContract.resumeState), read with the file's `summary`. */
export async function readResumeState(sql: SqlPort, blocks: Blocks, fileId: number, summary: () => Promise<FileSummary>): Promise<ResumeState> {
  const finished = mergeRanges([...await sql.values<[number, number]>(q.finishedRanges, [fileId]), ...await blocks.finishedRanges(fileId)]);
  const sentRequests = (await sql.all<RequestRow>(q.sentRequests, [fileId])).map(toRequest);
  const sent = new Set(sentRequests.flatMap((r) => r.seqs));
  const done = finished.reduce((n, [a, b]) => n + b - a + 1, 0);
  const starts = Float64Array.from(finished, (r) => r[0]);
  const classify = (seq: number): ResumeClass => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] <= seq) lo = mid + 1;
      else hi = mid - 1;
    }
    if (hi >= 0 && seq <= finished[hi][1]) return 'finished';
    return sent.has(seq) ? 'sent' : 'unsent';
  };
  const s = await summary();
  const maxItemSeq = (await sql.get<{ seq: number | null }>(q.maxSeq, [fileId]))?.seq ?? -1;
  return {
    fileId,
    maxSeq: Math.max(maxItemSeq, (await blocks.maxSeq(fileId)) ?? -1),
    counts: { finished: done, sent: sent.size, unsent: s.total - done - sent.size },
    sentRequests,
    classify,
  };
}

/**
 * What resumeState reads for a file claimed just now (claimFile answered `new`): nothing recorded, every seq unsent.
 * Given without reading: resumeState's seven queries are seven round trips a file on a distant PostgreSQL.
 */
export function freshState(fileId: number): ResumeState {
  return { fileId, maxSeq: -1, counts: { finished: 0, sent: 0, unsent: 0 }, sentRequests: [], classify: () => 'unsent' };
}
