import type { ReferenceKind, ReferenceIds } from '../mapping/index.js';
import type { WisClient } from './client.js';
import type { ListEndpointId } from './types.js';

export interface ApiReferenceIdsOptions {
  /** Numbers per `numbers=` query (default 100). */
  numbersPerQuery?: number;
  /**
   * Supplier shipments have no `numbers` (nor `ids`) filter: ApiReferenceIds lists these statuses once and keeps a
   * number → id table, rescanning on a miss at most every `refreshAfterMs` (default pending and open: the
   * shipments a 3PL still receives; add `done` to find finished ones, at the cost of listing them all).
   */
  supplierStatuses?: readonly ('pending' | 'open' | 'done')[];
  /** A miss triggers a refresh of a listing-based table (products, supplier shipments) only if older than this (default 60 s). */
  refreshAfterMs?: number;
  signal?: AbortSignal;
}

/** List endpoint and the statuses searched, most likely first; the search stops once every key is found. */
const BY_NUMBER: Record<Exclude<ReferenceKind, 'product' | 'supplierShipment'>, { list: ListEndpointId; statuses: readonly string[] }> = {
  customerShipment: { list: 'customerShipments.list', statuses: ['pending', 'open', 'done', 'canceled'] },
  outboundTransfer: { list: 'outboundTransfers.list', statuses: ['pending', 'open', 'done'] },
  inboundTransfer: { list: 'inboundTransfers.list', statuses: ['pending', 'open', 'all'] },
  customerReturn: { list: 'customerReturns.list', statuses: ['pending', 'open', 'done', 'canceled'] },
};

interface Table {
  ids: Map<string, number>;
  loadedAt: number;
  /** `updated_at_min` for an incremental refresh (products), taken before the previous scan began. */
  since?: string;
}

/**
 * The mapping's ReferenceIds over the service: shipment / transfer / return numbers → ids through the
 * `numbers` filter (batched), product codes → ids through a products listing kept in memory (refreshed
 * incrementally with `updated_at_min`), supplier shipment numbers through a listing table (no filter exists).
 * Wrap it in the mapping's `cachedReferenceIds` for per-run caching of hits and misses.
 */
export class ApiReferenceIds implements ReferenceIds {
  readonly #client: WisClient;
  readonly #options: ApiReferenceIdsOptions;
  readonly #tables = new Map<'product' | 'supplierShipment', Table>();
  readonly #loading = new Map<'product' | 'supplierShipment', Promise<Table>>();

  constructor(client: WisClient, options: ApiReferenceIdsOptions = {}) {
    this.#client = client;
    this.#options = options;
  }

  async idsOf(kind: ReferenceKind, keys: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const wanted = [...new Set(keys.map((k) => k.trim()).filter((k) => k !== ''))];
    if (wanted.length === 0) return new Map();
    if (kind === 'product' || kind === 'supplierShipment') return this.#fromTable(kind, wanted);
    return this.#byNumbers(kind, wanted);
  }

  /** One key: its id, or undefined when the service does not know it. */
  async idOf(kind: ReferenceKind, key: string): Promise<number | undefined> {
    return (await this.idsOf(kind, [key])).get(key.trim());
  }

  async #byNumbers(kind: keyof typeof BY_NUMBER, keys: string[]): Promise<Map<string, number>> {
    const { list, statuses } = BY_NUMBER[kind];
    const per = Math.max(1, this.#options.numbersPerQuery ?? 100);
    const found = new Map<string, number>();
    for (const status of statuses) {
      const missing = keys.filter((k) => !found.has(k));
      if (missing.length === 0) break;
      for (let i = 0; i < missing.length; i += per) {
        const filters = { status, numbers: missing.slice(i, i + per) };
        // eslint-disable-next-line no-restricted-syntax -- the list is chosen by reference kind at run time; every list in BY_NUMBER has `status` and `numbers` filters
        for await (const record of this.#client.list(list, filters as never, { signal: this.#options.signal })) {
          const r = record as { id: number; number: string };
          if (!found.has(r.number)) found.set(r.number, r.id);
        }
      }
    }
    return found;
  }

  async #fromTable(kind: 'product' | 'supplierShipment', keys: string[]): Promise<Map<string, number>> {
    let table = await this.#table(kind, false);
    const refreshAfter = this.#options.refreshAfterMs ?? 60_000;
    if (keys.some((k) => !table.ids.has(k)) && Date.now() - table.loadedAt >= refreshAfter) table = await this.#table(kind, true);
    const out = new Map<string, number>();
    for (const k of keys) {
      const id = table.ids.get(k);
      if (id !== undefined) out.set(k, id);
    }
    return out;
  }

  #table(kind: 'product' | 'supplierShipment', refresh: boolean): Promise<Table> {
    const existing = this.#tables.get(kind);
    if (existing && !refresh) return Promise.resolve(existing);
    let loading = this.#loading.get(kind);
    if (!loading) {
      loading = (kind === 'product' ? this.#loadProducts(existing) : this.#loadSupplierShipments()).finally(() => this.#loading.delete(kind));
      this.#loading.set(kind, loading);
    }
    return loading.then((t) => {
      this.#tables.set(kind, t);
      return t;
    });
  }

  async #loadProducts(previous: Table | undefined): Promise<Table> {
    const startedAt = new Date(Date.now() - 1_000).toISOString();
    const ids = new Map(previous?.ids ?? []);
    const filters = previous?.since ? { updated_at_min: previous.since } : {};
    for await (const p of this.#client.products.list(filters, { signal: this.#options.signal })) ids.set(p.code, p.id);
    return { ids, loadedAt: Date.now(), since: startedAt };
  }

  async #loadSupplierShipments(): Promise<Table> {
    const ids = new Map<string, number>();
    for (const status of this.#options.supplierStatuses ?? ['pending', 'open']) {
      for await (const s of this.#client.supplierShipments.list({ status }, { signal: this.#options.signal, concurrency: 4 })) ids.set(s.number, s.id);
    }
    return { ids, loadedAt: Date.now() };
  }
}
