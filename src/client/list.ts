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
function pageQueries(endpoint: ListEndpointId, filters: Record<string, unknown>): (page: number) => string {
  const def = endpoints[endpoint];
  const parsed = def.query.safeParse({ ...filters, page: 1 });
  if (!parsed.success) return (page) => queryString(endpoint, filters, page);
  const data = parsed.data as Record<string, unknown>;
  return (page) => toQueryString({ ...data, page });
}

/** A list page's body checked against the contract's response schema: its records and `has_more`. */
function pageOf<K extends ListEndpointId>(endpoint: K, json: unknown): { records: RecordOf<K>[]; hasMore: boolean } {
  const def = endpoints[endpoint];
  // Pages are the bulk of what the client validates: the compiled check is several times cheaper per record.
  const schema = def.response as z.ZodType<unknown>;
  const body = parseResponse(endpoint, schema, json, fastValidator(schema)) as Record<string, unknown>;
  return { records: body[def.envelopeKey] as RecordOf<K>[], hasMore: body.has_more as boolean };
}

/**
 * A list page's JSON text parsed and checked like `fetchPage` does; callable anywhere, e.g. on a worker thread.
 * The body is not quoted in the error (no secret can leak through it).
 */
export function pageOfText<K extends ListEndpointId>(endpoint: K, text: string): { records: RecordOf<K>[]; hasMore: boolean } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WisbridgeError('CONTRACT_VIOLATION', `${endpoint}: the answer is not JSON (${text.length} characters)`, { details: { endpoint } });
  }
  return pageOf(endpoint, json);
}

const utf8 = new TextDecoder();

/** A list page's body as fetched by `decodedPages` (UTF-8 bytes, a BOM dropped), parsed and checked like pageOfText. */
export function pageOfBody<K extends ListEndpointId>(endpoint: K, body: ArrayBuffer): { records: RecordOf<K>[]; hasMore: boolean } {
  return pageOfText(endpoint, utf8.decode(body));
}

/** Page `page` of a listing (its query string from `query`, see pageQueries), checked against the contract. */
export async function fetchPage<K extends ListEndpointId>(
  core: Core,
  endpoint: K,
  page: number,
  query: (page: number) => string,
  options: { signal?: AbortSignal; deadline?: number } = {},
): Promise<Page<RecordOf<K>>> {
  const res = await getJson(core, endpoint as EndpointId, endpoints[endpoint].path + query(page), options);
  return { page, ...pageOf(endpoint, res.json) };
}

/** A page the caller decoded from its body (`PageDecoder`), e.g. on a worker thread. */
export interface DecodedPage<D> {
  hasMore: boolean;
  /** The ids of the page's records, in order. */
  ids: ArrayLike<number>;
  data: D;
}

/**
 * Turns a page's body (its bytes, the decoder's to keep or transfer) into the caller's form. It must check the page
 * against the contract (`pageOfBody` does) and throw CONTRACT_VIOLATION for a page that breaks it.
 */
export type PageDecoder<D> = (body: ArrayBuffer, page: number) => Promise<DecodedPage<D>>;

export interface RawPage<D> extends DecodedPage<D> {
  page: number;
  /** Indexes of records already returned by an earlier page of this listing (they moved between pages): skip them. */
  repeated: ReadonlySet<number>;
}

/** Pages fetched ahead of the one the caller is at, beyond those in flight, per request allowed at once. */
const LOOKAHEAD_PER_REQUEST = 16;

/** A page whose request ended: decoded already, or still being decoded (its request's slot is free either way). */
type Fetched<P> = { page: P } | { later: Promise<P> };
type Settled<P> = Fetched<P> | { error: unknown };

/**
 * Pages 1..pages with `concurrency` requests in flight at all times (a sliding window, not waves): whenever a
 * request ends, the next page is requested at once, whatever the caller is doing with earlier pages. Pages are
 * handed out in order; how far fetching may run ahead of the caller is bounded. Nothing is started past a page
 * known to be without `has_more`, and none after a failure.
 */
class PageWindow<P extends { hasMore: boolean }> {
  readonly #results = new Map<number, Settled<P>>();
  #next = 1;
  #wanted = 1;
  #inFlight = 0;
  #stopped = false;
  #wake: (() => void) | undefined;
  #pages: number;

  constructor(
    private readonly fetch: (page: number) => Promise<Fetched<P>>,
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
        (fetched) => this.#settle(p, fetched),
        (error: unknown) => this.#settle(p, { error }),
      );
    }
  }

  /** Page `page` (the one after the previous call's), once it is there. */
  async take(page: number): Promise<P> {
    this.#wanted = page;
    this.fill();
    let result = this.#results.get(page);
    while (!result) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
      result = this.#results.get(page);
    }
    this.#results.delete(page);
    let taken: P;
    try {
      if ('error' in result) throw result.error;
      taken = 'page' in result ? result.page : await result.later;
    } catch (error) {
      this.#stopped = true;
      throw error;
    }
    if (!taken.hasMore) this.#stopped = true;
    this.fill();
    return taken;
  }

  stop(): void {
    this.#stopped = true;
  }

  #settle(p: number, result: Settled<P>): void {
    this.#inFlight--;
    this.#results.set(p, result);
    if ('error' in result) this.#stopped = true;
    else if ('page' in result) this.#known(p, result.page);
    else {
      result.later.then((page) => this.#known(p, page), () => (this.#stopped = true));
    }
    this.fill();
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #known(p: number, page: P): void {
    if (!page.hasMore) this.#pages = Math.min(this.#pages, p);
  }
}

/**
 * The pages of a listing, each from `fetch`. `concurrency` 1 follows `has_more` from page 1; more than 1 reads
 * the count endpoint (page 1 is requested meanwhile) and keeps that many page requests in flight, handing pages
 * out in order, then follows `has_more` past the counted pages in case records were added meanwhile.
 */
async function* pagesFrom<K extends ListEndpointId, P extends { page: number; hasMore: boolean }>(
  core: Core,
  endpoint: K,
  filters: FiltersOf<K>,
  options: ListOptions,
  fetch: (page: number, signal: AbortSignal | undefined, deadline: number | undefined) => Promise<Fetched<P>>,
): AsyncGenerator<P> {
  const deadline = deadlineOf(core, options);
  const countId = countEndpointOf(endpoint);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  let next = 1;
  if (concurrency > 1 && countId !== undefined) {
    const stop = new AbortController();
    const link = linkSignals([options.signal, stop.signal]);
    const signal = link.signal;
    let last: P | undefined;
    try {
      const first = fetch(1, signal, deadline);
      first.catch(() => undefined); // awaited below; this only silences it when the count fails first
      // eslint-disable-next-line no-restricted-syntax -- a list's filters are its count's (same query schema); the types are two tables apart
      const total = await countRecords(core, countId, filters as never, { signal: options.signal, deadline });
      options.onCount?.(total);
      const pages = Math.max(1, Math.ceil(total / LIMITS.pageSize));
      const window = new PageWindow<P>((p) => (p === 1 ? first : fetch(p, signal, deadline)), pages, concurrency);
      try {
        for (let p = 1; p <= pages; p++) {
          const page = await window.take(p);
          last = page;
          yield page;
          if (!page.hasMore) break;
        }
      } finally {
        window.stop();
      }
    } finally {
      stop.abort();
      link.release();
    }
    if (!last || !last.hasMore) return;
    next = last.page + 1;
  }
  for (let page = next; ; page++) {
    const fetched = await fetch(page, options.signal, deadline);
    const result = 'page' in fetched ? fetched.page : await fetched.later;
    yield result;
    if (!result.hasMore) return;
  }
}

/**
 * Every record matching the filters, page by page (see pagesFrom for the order of requests). Records are
 * deduplicated by `id`, so one that moves between pages while listing is returned once.
 */
export async function* listPages<K extends ListEndpointId>(
  core: Core,
  endpoint: K,
  filters: FiltersOf<K>,
  options: ListOptions = {},
): AsyncGenerator<Page<RecordOf<K>>> {
  const query = pageQueries(endpoint, filters as Record<string, unknown>);
  const seen = new Set<unknown>();
  const fetch = async (p: number, signal: AbortSignal | undefined, deadline: number | undefined) =>
    ({ page: await fetchPage(core, endpoint, p, query, { signal, deadline }) });
  for await (const page of pagesFrom(core, endpoint, filters, options, fetch)) {
    const records = page.records.filter((r) => {
      const id = (r as { id?: unknown }).id;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    yield { ...page, records };
  }
}

/**
 * Like listPages, but each page's body goes to `decode` as bytes (which checks it against the contract), e.g. on a
 * worker thread: the main thread only does the HTTP. A request's slot in the window is free once its body is in,
 * while the page is still being decoded. Records seen on an earlier page are named in `repeated`.
 */
export async function* listDecodedPages<K extends ListEndpointId, D>(
  core: Core,
  endpoint: K,
  filters: FiltersOf<K>,
  decode: PageDecoder<D>,
  options: ListOptions = {},
): AsyncGenerator<RawPage<D>> {
  const query = pageQueries(endpoint, filters as Record<string, unknown>);
  const seen = new Set<number>();
  const fetch = async (p: number, signal: AbortSignal | undefined, deadline: number | undefined) => {
    const res = await getJson(core, endpoint as EndpointId, endpoints[endpoint].path + query(p), { signal, deadline, raw: true });
    const later = decode(res.bytes ?? new ArrayBuffer(0), p).then((decoded) => ({ page: p, ...decoded }));
    later.catch(() => undefined); // taken in order by the listing; this only silences it when the listing stops first
    return { later };
  };
  for await (const page of pagesFrom(core, endpoint, filters, options, fetch)) {
    const repeated = new Set<number>();
    for (let i = 0; i < page.ids.length; i++) {
      const id = page.ids[i]!;
      if (seen.has(id)) repeated.add(i);
      else seen.add(id);
    }
    yield { ...page, repeated };
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
