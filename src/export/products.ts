import type { FiltersOf } from '../client/index.js';
import type { Mapping } from '../mapping/index.js';
import type { ListedRecord } from './journal-record.js';
import { FileBatcher, type FileContext, type WrittenFile } from './work.js';

/** The product cursor: the latest updated_at exported, and the (id, updated_at) pairs inside the overlap window. */
interface ProductCursor {
  max: string;
  window: [number, string][];
}

const cursorKey = (job: string) => `export:${job}:products`;

function readCursor(text: string | null): ProductCursor | null {
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as ProductCursor;
    if (typeof parsed.max === 'string' && Array.isArray(parsed.window)) return parsed;
  } catch {
    // an unreadable cursor means a full export, the safe side
  }
  return null;
}

/**
 * The product catalog: everything on the first run, then what changed since the cursor (`updated_at_min` =
 * cursor − overlap_seconds, against clock skew between the service's writers). A product seen in the overlap
 * with the same updated_at as already exported is skipped. The cursor moves only after every file is written;
 * a crash before that exports the same changes again (harmless for a catalog). Products are never acknowledged.
 */
export async function exportProducts(ctx: FileContext, mapping: Mapping): Promise<{ listed: number; skipped: number; full: boolean; files: WrittenFile[] }> {
  const { job, journal } = ctx;
  const startedAt = ctx.now();
  const cursor = readCursor(await journal.getCursor(cursorKey(job.name)));
  const overlapMs = job.overlap_seconds * 1000;
  const filters: FiltersOf<'products.list'> = {};
  if (cursor) filters.updated_at_min = new Date(Date.parse(cursor.max) - overlapMs).toISOString();
  const seen = new Map<number, number>((cursor?.window ?? []).map(([id, at]) => [id, Date.parse(at)]));
  const batcher = new FileBatcher(ctx, mapping, { workType: job.work_type, kind: 'work', policy: 'never', repeatable: true }, { fileName: job.file_name });
  let max = cursor ? Date.parse(cursor.max) : -Infinity;
  let missingTimestamp = false;
  let listed = 0;
  let skipped = 0;
  const exported: [number, number][] = [];
  try {
    for await (const page of ctx.client.pages('products.list', filters, { signal: ctx.signal })) {
      for (const p of page.records as ListedRecord[]) {
        listed++;
        const at = typeof p.updated_at === 'string' ? Date.parse(p.updated_at) : NaN;
        if (Number.isNaN(at)) missingTimestamp = true;
        else if (seen.get(p.id) === at) {
          skipped++;
          continue;
        }
        if (!Number.isNaN(at)) {
          max = Math.max(max, at);
          exported.push([p.id, at]);
        }
        await batcher.add(p);
      }
    }
    await batcher.flush(job.empty_files);
  } finally {
    await batcher.close();
  }
  // Without updated_at on the records, the time the listing started is the only safe cursor.
  if (missingTimestamp || max === -Infinity) max = Math.max(max, startedAt.getTime());
  for (const [id, at] of exported) seen.set(id, at);
  const window: [number, string][] = [...seen].filter(([, at]) => at >= max - overlapMs).map(([id, at]) => [id, new Date(at).toISOString()]);
  await journal.setCursor(cursorKey(job.name), JSON.stringify({ max: new Date(max).toISOString(), window } satisfies ProductCursor));
  return { listed, skipped, full: cursor === null, files: batcher.files };
}
