import type { Mapping } from '../mapping/index.js';
import type { ListedRecord } from './journal-record.js';
import { FileBatcher, type FileContext, type WrittenFile } from './work.js';
import type { WorkTypeSpec } from './work-types.js';

const cursorKey = (job: string) => `export:${job}:cancellations`;

const later = (a: string | null, b: unknown): string | null =>
  typeof b === 'string' && (a === null || Date.parse(b) > Date.parse(a)) ? b : a;

/**
 * Customer shipments and returns cancelled after they were handed over: listed `canceled` (narrowed by
 * `updated_at_min` from a cursor, moved back by overlap_seconds), filtered to the ids the journal says were
 * exported and not yet in a cancellation list, written once as a cancellation list (never acknowledged).
 */
export async function exportCancellations(ctx: FileContext, spec: WorkTypeSpec, mapping: Mapping): Promise<{ cancelled: number; files: WrittenFile[] }> {
  const { job, journal } = ctx;
  const cursor = await journal.getCursor(cursorKey(job.name));
  const filters: Record<string, unknown> = { status: 'canceled' };
  if (cursor !== null && spec.updatedFilter) filters.updated_at_min = new Date(Date.parse(cursor) - job.overlap_seconds * 1000).toISOString();
  const batcher = new FileBatcher(ctx, mapping, { workType: job.work_type, kind: 'cancellation', policy: 'never' }, { fileName: job.cancellation_file_name });
  let max = cursor;
  let cancelled = 0;
  try {
    // eslint-disable-next-line no-restricted-syntax -- the work type's list is known at run time; `status` and `updated_at_min` only where its spec says so
    for await (const page of ctx.client.pages(spec.list, filters as never, { concurrency: ctx.concurrency, signal: ctx.signal })) {
      const records = page.records as ListedRecord[];
      for (const r of records) max = later(max, r.updated_at);
      const due = new Set((await journal.cancelledNotYetExported(job.work_type, records.map((r) => r.id))).map((r) => r.id));
      for (const r of records) {
        if (!due.has(r.id)) continue;
        cancelled++;
        await batcher.add(r);
      }
    }
    await batcher.flush();
  } finally {
    await batcher.close();
  }
  if (max !== null && max !== cursor) await journal.setCursor(cursorKey(job.name), max);
  return { cancelled, files: batcher.files };
}
