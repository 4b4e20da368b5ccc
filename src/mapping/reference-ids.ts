import type { ReferenceKind } from './definition-schema.js';

export type { ReferenceKind };

/**
 * Finds the ids of records named by the legacy WMS (a shipment number, a SKU). The client implements it over
 * HTTP (list endpoints with `numbers=`, products by code); keys it cannot find are absent from the answer.
 * The mapping calls it once per kind per batch, through `cachedReferenceIds`.
 */
export interface ReferenceIds {
  idsOf(kind: ReferenceKind, keys: readonly string[]): Promise<ReadonlyMap<string, number>>;
}

const KIND_WORDS: Record<ReferenceKind, string> = {
  customerShipment: 'customer shipment',
  outboundTransfer: 'outbound transfer',
  inboundTransfer: 'inbound transfer',
  supplierShipment: 'supplier shipment',
  customerReturn: 'customer return',
  product: 'product',
};
export const describeKind = (kind: ReferenceKind) => KIND_WORDS[kind];

/** Wraps a source of reference ids with a cache of hits and misses (misses too: an unknown number stays unknown for the run). */
export function cachedReferenceIds(inner: ReferenceIds, options: { maxEntries?: number } = {}): ReferenceIds & { readonly calls: number } {
  const max = options.maxEntries ?? 100_000;
  const caches = new Map<ReferenceKind, Map<string, number | null>>();
  let size = 0;
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    async idsOf(kind, keys) {
      let cache = caches.get(kind);
      if (!cache) caches.set(kind, (cache = new Map()));
      const out = new Map<string, number>();
      const missing = new Set<string>();
      for (const key of keys) {
        const hit = cache.get(key);
        if (hit === undefined) missing.add(key);
        else if (hit !== null) out.set(key, hit);
      }
      if (missing.size > 0) {
        calls++;
        const found = await inner.idsOf(kind, [...missing]);
        if (size + missing.size > max) {
          for (const c of caches.values()) c.clear();
          size = 0;
        }
        for (const key of missing) {
          const id = found.get(key);
          cache.set(key, id ?? null);
          size++;
          if (id !== undefined) out.set(key, id);
        }
      }
      return out;
    },
  };
}

/** Reference ids from known values: for dry runs with a reference file, and for tests without the service. */
export class TableReferenceIds implements ReferenceIds {
  private readonly tables: Map<ReferenceKind, Map<string, number>>;
  constructor(tables: Partial<Record<ReferenceKind, Record<string, number>>>) {
    this.tables = new Map(Object.entries(tables).map(([k, v]) => [k as ReferenceKind, new Map(Object.entries(v ?? {}))]));
  }
  async idsOf(kind: ReferenceKind, keys: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const table = this.tables.get(kind);
    const out = new Map<string, number>();
    if (!table) return out;
    for (const key of keys) {
      const id = table.get(key);
      if (id !== undefined) out.set(key, id);
    }
    return out;
  }
}
