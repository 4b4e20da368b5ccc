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

/**
 * The query string of each page: the filters are checked by the contract's schema once (zod per page costs more
 * than the rest of building the request), then only the page number changes. Same text as queryString(…, page).
 */
export function pageQueries(endpoint: ListEndpointId, filters: Record<string, unknown>): (page: number) => string {
  const def = endpoints[endpoint];
  const parsed = def.query.safeParse({ ...filters, page: 1 });
  if (!parsed.success) return (page) => queryString(endpoint, filters, page);
  const data = parsed.data as Record<string, unknown>;
  return (page) => toQueryString({ ...data, page });
}

export async function fetchPage<K extends ListEndpointId>(
  core: Core,
  endpoint: K,
  filters: FiltersOf<K>,
  page: number,
  options: { signal?: AbortSignal; deadline?: number; query?: (page: number) => string } = {},
): Promise<Page<RecordOf<K>>> {
  const def = endpoints[endpoint];
  const query = options.query ? options.query(page) : queryString(endpoint, filters as Record<string, unknown>, page);
  const res = await getJson(core, endpoint as EndpointId, def.path + query, options);
  // Pages are the bulk of what the client validates: the compiled check is several times cheaper per record.
  const schema = def.response as z.ZodType<unknown>;
  const body = parseResponse(endpoint, schema, res.json, fastValidator(schema)) as Record<string, unknown>;
  return { page, records: body[def.envelopeKey] as RecordOf<K>[], hasMore: body.has_more as boolean };
}

/** Pages fetched ahead of the one the caller is at, beyond those in flight, per request allowed at once. */
const LOOKAHEAD_PER_REQUEST = 16;

/**
 * Pages 1..pages with `concurrency` requests in flight at all times (a sliding window, not waves): whenever a
 * request ends, the next page is requested at once, whatever the caller is doing with earlier pages. Pages are
 * handed out in order; how far fetching may run ahead of the caller is bounded. Nothing is started past a page
 * without `has_more`, and none after a failure.
 */
class PageWindow<R> {
  readonly #results = new Map<number, { page: Page<R> } | { error: unknown }>();
  #next = 1;
  #wanted = 1;
  #inFlight = 0;
  #stopped = false;
  #wake: (() => void) | undefined;
  #pages: number;

  constructor(
    private readonly fetch: (page: number) => Promise<Page<R>>,
    pages: number,
    private readonly concurrency: number,
  ) {
    this.#pages = pages;
  }

  /** Requests pages while the window has room. */
  fill(): void {
    const limit = this.#wanted + this.concurrency * (1 + LOOKAHEAD_PER_REQUEST);
    while (!this.#stopped && this.#inFlight < this.concurrency && this.#next <= this.#pages && this.#next < limit) {
      const p = this.#next++;
      this.#inFlight++;
      this.fetch(p).then(
        (page) => this.#settle(p, { page }),
        (error: unknown) => this.#settle(p, { error }),
      );
    }
  }

  /** Page `page` (the one after the previous call's), once it is there. */
  async take(page: number): Promise<Page<R>> {
    this.#wanted = page;
    this.fill();
    let result = this.#results.get(page);
    while (!result) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
      result = this.#results.get(page);
    }
    this.#results.delete(page);
    if ('error' in result) {
      this.#stopped = true;
      throw result.error;
    }
    if (!result.page.hasMore) this.#stopped = true;
    this.fill();
    return result.page;
  }

  stop(): void {
    this.#stopped = true;
  }

  #settle(p: number, result: { page: Page<R> } | { error: unknown }): void {
    this.#inFlight--;
    this.#results.set(p, result);
    if ('error' in result) this.#stopped = true;
    else if (!result.page.hasMore) this.#pages = Math.min(this.#pages, p);
    this.fill();
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * Every record matching the filters, page by page. `concurrency` 1 follows `has_more` from page 1; more than 1
 * reads the count endpoint (page 1 is requested meanwhile) and keeps that many page requests in flight, handing
 * pages out in order, then follows `has_more` past the counted pages in case records were added meanwhile.
 * Records are deduplicated by `id`, so one that moves between pages while listing is returned once.
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
  const query = pageQueries(endpoint, filters as Record<string, unknown>);
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
    const stop = new AbortController();
    const link = linkSignals([options.signal, stop.signal]);
    const signal = link.signal;
    const fetch = (p: number) => fetchPage(core, endpoint, filters, p, { signal, deadline, query });
    let last: Page<RecordOf<K>> | undefined;
    try {
      const first = fetch(1);
      first.catch(() => undefined); // awaited below; this only silences it when the count fails first
      const total = await countRecords(core, countId, filters as never, { signal: options.signal, deadline });
      const pages = Math.max(1, Math.ceil(total / LIMITS.pageSize));
      const window = new PageWindow<RecordOf<K>>((p) => (p === 1 ? first : fetch(p)), pages, concurrency);
      try {
        for (let p = 1; p <= pages; p++) {
          const page = await window.take(p);
          last = page;
          yield fresh(page);
          if (!page.hasMore) break;
        }
      } finally {
        window.stop();
      }
    } finally {
      stop.abort();
      link.dispose();
    }
    if (!last || !last.hasMore) return;
    next = last.page + 1;
  }
  for (let page = next; ; page++) {
    const result = await fetchPage(core, endpoint, filters, page, { signal: options.signal, deadline, query });
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
