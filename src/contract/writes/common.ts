import { endpoints, type ListEndpointId, type WriteEndpointId } from '../endpoints.js';
import type { FamilyOf, WriteModule, WritePolicy } from './types.js';

// Module-level functions, not closures: documentKey and outcomeKey run once per row, and where the sources run through
// tsx (the tests, bench/, and an install without dev dependencies, which has no dist/) each closure created is wrapped
// in a `__name` call, a cost on every row (docs/performance.md, "Settings chosen by measurement"). dist/, built by
// tsc, has no such wrapping.

/** A cell's text; empty for a missing value. */
export function text(value: unknown): string {
  return value === undefined || value === null || value === '' ? '' : String(value);
}

/** The `id` of a shipment-like item, when it is a number. */
export function idOf(item: unknown): number | undefined {
  const id = (item as { id?: unknown } | null)?.id;
  return typeof id === 'number' ? id : undefined;
}

export function idText(item: Record<string, unknown>): string {
  return text(item.id);
}

/** How a person names the document of an uncertain item: its document key, or its id. */
export const named = (key: string, body: Record<string, unknown>): string => key || `id ${String(body.id)}`;

export function receivedHint(key: string, body: Record<string, unknown>): string {
  return `check whether ${named(key, body)} was received in the service before receiving it again`;
}

export function shippedHint(key: string, body: Record<string, unknown>): string {
  return `check whether ${named(key, body)} is shipped in the service (a split shipment may exist) before shipping it again`;
}

/** Acknowledging twice is harmless: read back, and send again what the read did not confirm. */
export const acknowledgePolicy = (list: ListEndpointId, applied: readonly string[]): WritePolicy => ({
  retry: 'unsafe',
  verify: { list, applied },
  resendUnconfirmed: true,
});

/** The five acknowledge endpoints: the WMS took the record over; repeating is harmless; it confirms exported records. */
export function acknowledgeModule<K extends WriteEndpointId & `${string}.acknowledge`>(
  id: K, section: string, list: ListEndpointId, applied: readonly string[],
): WriteModule<K> {
  return {
    contract: endpoints[id], section, policy: acknowledgePolicy(list, applied), kept: ['id', 'acknowledged_at'],
    confirms: id.slice(0, id.indexOf('.')) as FamilyOf<K>,
    outcomeKey: idOf, documentKey: idText, uncertainHint: receivedHint,
  };
}

/** change-status and the two `failed` endpoints: setting the same state again changes nothing, so they are repeated. */
export function repeatableModule<K extends WriteEndpointId>(id: K, section: string): WriteModule<K> {
  return { contract: endpoints[id], section, policy: { retry: 'repeatable' }, kept: ['id'], outcomeKey: idOf, documentKey: idText, uncertainHint: receivedHint };
}
