import type { ReferenceKind, ReferenceIds } from '../../../src/mapping/index.js';

// A second, honest implementation of ReferenceIds for tests: the real emulator over HTTP, through the
// list endpoints (numbers= where the interface has it, paging otherwise). The client engineer owns the product one.
const LISTS: Record<Exclude<ReferenceKind, 'product'>, { path: string; statuses: string[]; numbers: boolean }> = {
  customerShipment: { path: '/v1/customer-shipments.json', statuses: ['pending', 'open', 'done', 'canceled'], numbers: true },
  outboundTransfer: { path: '/v1/outbound-transfers.json', statuses: ['pending', 'open', 'done'], numbers: true },
  inboundTransfer: { path: '/v1/inbound-transfers.json', statuses: ['all', 'pending', 'open'], numbers: true },
  supplierShipment: { path: '/v1/supplier-shipments.json', statuses: ['pending', 'open', 'done'], numbers: false },
  customerReturn: { path: '/v1/customer-return-shipments.json', statuses: ['pending', 'open', 'done', 'canceled'], numbers: true },
};

export class HttpReferenceIds implements ReferenceIds {
  requests = 0;
  constructor(private readonly url: string, private readonly token: string) {}

  private async get(path: string, query: Record<string, string>): Promise<{ data?: unknown[]; products?: unknown[]; has_more: boolean }> {
    this.requests++;
    const res = await fetch(`${this.url}${path}?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${this.token}` } });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    return (await res.json()) as { data?: unknown[]; has_more: boolean };
  }

  async idsOf(kind: ReferenceKind, keys: readonly string[]): Promise<ReadonlyMap<string, number>> {
    const want = new Set(keys);
    const out = new Map<string, number>();
    const take = (records: unknown[] | undefined, field: 'number' | 'code') => {
      for (const r of (records ?? []) as Record<string, unknown>[]) if (want.has(String(r[field]))) out.set(String(r[field]), Number(r.id));
    };
    if (kind === 'product') {
      for (let page = 1; out.size < want.size; page++) {
        const body = await this.get('/v1/products.json', { page: String(page) });
        take(body.products, 'code');
        if (!body.has_more) break;
      }
      return out;
    }
    const list = LISTS[kind];
    for (const status of list.statuses) {
      for (let page = 1; out.size < want.size; page++) {
        const query: Record<string, string> = { status, page: String(page) };
        if (list.numbers) query.numbers = [...want].join(',');
        const body = await this.get(list.path, query);
        take(body.data, 'number');
        if (!body.has_more) break;
      }
    }
    return out;
  }
}
