import type { z } from 'zod';
import { LIMITS, countResponse, endpoints, fastValidator, toQueryString, type EndpointId } from '../contract/index.js';
import { WisbridgeError } from '../errors.js';
import { linkSignals } from './backoff.js';
import { deadlineOf, getJson, type Core } from './core.js';
import type { CountEndpointId, FiltersOf, ListEndpointId, ListOptions, RecordOf } from './types.js';
import { describeIssues, parseResponse } from './validate.js';

/** Checks filters with the contract's query schema (status default included) and builds the query string. */
export function queryString(endpoint: ListEndpointId | CountEndpointId, filters: Record<string, unknown>, page?: number): string {
  const def = endpoints[endpoint];
  const parsed = def.query.safeParse(page === undefined ? filters : { ...filters, page });
  if (!parsed.success) {
    throw new WisbridgeError('INVALID_REQUEST', `${endpoint}: invalid filters: ${describeIssues(parsed.error).join('; ')}`, {
      details: { endpoint },
    });
  }
  return toQueryString(parsed.data as Record<string, unknown>);
}

/** The count endpoint paired with a list endpoint, if the contract has one (products has none). */
export function countEndpointOf(list: ListEndpointId): CountEndpointId | undefined {
  const id = list.replace(/\.list$/, '.count');
  return id in endpoints ? (id as CountEndpointId) : undefined;
}

export async function countRecords<K extends CountEndpointId>(core: Core, endpoint: K, filters: FiltersOf<K>, options: ListOptions = {}): Promise<number> {
  const def = endpoints[endpoint];
  const path = def.path + queryString(endpoint, filters as Record<string, unknown>);
  const res = await getJson(core, endpoint, path, { signal: options.signal, deadline: deadlineOf(core, options) });
  return parseResponse(endpoint, countResponse, res.json).count;
}

export interface Page<R> {
  page: number;
  records: R[];
  hasMore: boolean;
}

export async function fetchPage<K extends ListEndpointId>(
  core: Core,
  endpoint: K,
  filters: FiltersOf<K>,
  page: number,
  options: { signal?: AbortSignal; deadline?: number } = {},
): Promise<Page<RecordOf<K>>> {
  const def = endpoints[endpoint];
  const path = def.path + queryString(endpoint, filters as Record<string, unknown>, page);
  const res = await getJson(core, endpoint as EndpointId, path, options);
  // Pages are the bulk of what the client validates: the compiled check is several times cheaper per record.
  const schema = def.response as z.ZodType<unknown>;
  const body = parseResponse(endpoint, schema, res.json, fastValidator(schema)) as Record<string, unknown>;
  return { page, records: body[def.envelopeKey] as RecordOf<K>[], hasMore: body.has_more as boolean };
}

/**
 * Every record matching the filters, page by page. `concurrency` 1 follows `has_more` from page 1; more than 1
 * reads the count endpoint and fetches that many pages at once (in order), then follows `has_more` past the
 * counted pages in case records were added meanwhile. Records are deduplicated by `id`, so one that moves
 * between pages while listing is returned once.
 */
export async function* listPages<K extends ListEndpointId>(
  core: Core,
  endpoint: K,
  filters: FiltersOf<K>,
  options: ListOptions = {},
): AsyncGenerator<Page<RecordOf<K>>> {
  const deadline = deadlineOf(core, options);
  const countId = countEndpointOf(endpoint);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const seen = new Set<unknown>();
  const fresh = (page: Page<RecordOf<K>>): Page<RecordOf<K>> => {
    const records = page.records.filter((r) => {
      const id = (r as { id?: unknown }).id;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    return { ...page, records };
  };

  let next = 1;
  if (concurrency > 1 && countId !== undefined) {
    const total = await countRecords(core, countId, filters as never, { signal: options.signal, deadline });
    const pages = Math.max(1, Math.ceil(total / LIMITS.pageSize));
    const stop = new AbortController();
    const link = linkSignals([options.signal, stop.signal]);
    const signal = link.signal;
    const inFlight = new Map<number, Promise<Page<RecordOf<K>>>>();
    const start = (p: number) => {
      const promise = fetchPage(core, endpoint, filters, p, { signal, deadline });
      promise.catch(() => undefined); // awaited below; this only silences pages abandoned by an early exit
      inFlight.set(p, promise);
    };
    let last: Page<RecordOf<K>> | undefined;
    try {
      for (let p = 1; p <= Math.min(pages, concurrency); p++) start(p);
      for (let p = 1; p <= pages; p++) {
        const page = await inFlight.get(p)!;
        inFlight.delete(p);
        if (p + concurrency <= pages) start(p + concurrency);
        last = page;
        yield fresh(page);
        if (!page.hasMore) break;
      }
    } finally {
      stop.abort();
      link.dispose();
    }
    if (!last || !last.hasMore) return;
    next = last.page + 1;
  }
  for (let page = next; ; page++) {
    const result = await fetchPage(core, endpoint, filters, page, { signal: options.signal, deadline });
    yield fresh(result);
    if (!result.hasMore) return;
  }
}

export async function* listRecords<K extends ListEndpointId>(
  core: Core,
  endpoint: K,
  filters: FiltersOf<K>,
  options: ListOptions = {},
): AsyncGenerator<RecordOf<K>> {
  for await (const page of listPages(core, endpoint, filters, options)) yield* page.records;
}
