import type { VerifySpec } from '../contract/index.js';
import type { Core } from './core.js';
import { listRecords } from './list.js';

/**
 * Ids per read-back query: a tenth of what the contract's `ids` filter takes (1,000), so that a query's URL stays
 * short (100 ids of 7 digits are ~800 characters) whatever proxy sits in front of the service.
 */
export const IDS_PER_QUERY = 100;

async function idsIn(core: Core, spec: VerifySpec, status: string, ids: number[], since: Date, options: { signal?: AbortSignal; deadline?: number }): Promise<Set<number>> {
  const found = new Set<number>();
  const wanted = new Set(ids);
  const queries: Record<string, unknown>[] = spec.updatedSince
    ? [{ status, updated_at_min: new Date(since.getTime() - 60_000).toISOString() }]
    : Array.from({ length: Math.ceil(ids.length / IDS_PER_QUERY) }, (_, i) => ({ status, ids: ids.slice(i * IDS_PER_QUERY, (i + 1) * IDS_PER_QUERY) }));
  for (const filters of queries) {
    // eslint-disable-next-line no-restricted-syntax -- the list comes from a write's verify spec at run time; the module names only lists with these filters (src/contract/writes/)
    for await (const record of listRecords(core, spec.list, filters as never, options)) {
      const id = (record as { id: number }).id;
      if (wanted.has(id)) found.add(id);
    }
  }
  return found;
}

/**
 * Reads state back: the subset of `ids` that the service shows as applied by `endpoint` (see the endpoint's module in src/contract/writes/).
 * `since`: when the write was sent (used where the family cannot be filtered by id).
 * Throws INVALID_REQUEST for an endpoint that cannot be verified (change-status, failed, adjustments).
 */
export async function verifyApplied(
  core: Core,
  spec: VerifySpec,
  ids: number[],
  since: Date,
  options: { signal?: AbortSignal; deadline?: number } = {},
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const confirmed = new Set<number>();
  for (const status of spec.applied) for (const id of await idsIn(core, spec, status, ids, since, options)) confirmed.add(id);
  for (const status of spec.absent ?? []) {
    const left = [...confirmed];
    if (left.length === 0) break;
    for (const id of await idsIn(core, spec, status, left, since, options)) confirmed.delete(id);
  }
  return confirmed;
}
