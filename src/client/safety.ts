import type { Core } from './core.js';
import { listRecords } from './list.js';
import type { RetryClass } from './transport.js';
import type { BatchEndpointId, ListEndpointId } from './types.js';

/**
 * How to read state back to learn whether items of an uncertain write were applied: an item is confirmed
 * when the listing `list` finds it under one of the `applied` statuses and under none of the `absent` ones.
 * `updatedSince`: the family has no `ids` filter; list by `updated_at_min` instead and pick the ids.
 */
export interface VerifySpec {
  list: ListEndpointId;
  applied: readonly string[];
  absent?: readonly string[];
  updatedSince?: boolean;
}

/** Retry safety of a write endpoint; the reasons are in docs/client.md. */
export interface WritePolicy {
  /** How the transport treats an attempt whose outcome is unknown. */
  retry: RetryClass;
  verify?: VerifySpec;
  /** Items the verifier could not confirm are sent once more (only where repeating is harmless). */
  resendUnconfirmed?: boolean;
}

const ack = (list: ListEndpointId, applied: readonly string[]): WritePolicy => ({
  retry: 'unsafe',
  verify: { list, applied },
  resendUnconfirmed: true,
});

export const WRITE_POLICIES: Record<BatchEndpointId, WritePolicy> = {
  'customerShipments.acknowledge': ack('customerShipments.list', ['open', 'done']),
  'supplierShipments.acknowledge': ack('supplierShipments.list', ['open', 'done']),
  'customerReturns.acknowledge': ack('customerReturns.list', ['open', 'done']),
  'outboundTransfers.acknowledge': ack('outboundTransfers.list', ['open', 'done']),
  'inboundTransfers.acknowledge': ack('inboundTransfers.list', ['open']),
  'customerShipments.changeStatus': { retry: 'repeatable' },
  'customerShipments.failed': { retry: 'repeatable' },
  'supplierShipments.failed': { retry: 'repeatable' },
  'customerShipments.ship': { retry: 'unsafe', verify: { list: 'customerShipments.list', applied: ['done'] } },
  'outboundTransfers.ship': { retry: 'unsafe', verify: { list: 'outboundTransfers.list', applied: ['done'] } },
  'inboundTransfers.receive': { retry: 'unsafe', verify: { list: 'inboundTransfers.list', applied: ['all'], absent: ['pending', 'open'] } },
  'supplierShipments.receive': { retry: 'unsafe', verify: { list: 'supplierShipments.list', applied: ['done'], updatedSince: true } },
  'customerReturns.receive': { retry: 'unsafe', verify: { list: 'customerReturns.list', applied: ['done'] } },
  'inventory.adjustments': { retry: 'unsafe' },
};

const IDS_PER_QUERY = 100;

async function idsIn(core: Core, spec: VerifySpec, status: string, ids: number[], since: Date, options: { signal?: AbortSignal; deadline?: number }): Promise<Set<number>> {
  const found = new Set<number>();
  const wanted = new Set(ids);
  const queries: Record<string, unknown>[] = spec.updatedSince
    ? [{ status, updated_at_min: new Date(since.getTime() - 60_000).toISOString() }]
    : Array.from({ length: Math.ceil(ids.length / IDS_PER_QUERY) }, (_, i) => ({ status, ids: ids.slice(i * IDS_PER_QUERY, (i + 1) * IDS_PER_QUERY) }));
  for (const filters of queries) {
    for await (const record of listRecords(core, spec.list, filters as never, options)) {
      const id = (record as { id: number }).id;
      if (wanted.has(id)) found.add(id);
    }
  }
  return found;
}

/**
 * Reads state back: the subset of `ids` that the service shows as applied by `endpoint` (see WRITE_POLICIES).
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
