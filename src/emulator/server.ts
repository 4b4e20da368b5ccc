import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { LIMITS, endpointList, endpoints, sandboxOnlyEndpoints, type EndpointDef } from '../contract/index.js';
import { cancelRecords, cancelRequest, parseAdmin, parseFaults, resetRequest, stateView, tokenRequest, touchProducts, touchProductsRequest, type AdminHooks } from './admin.js';
import type { WriteContext } from './context.js';
import type { FaultInjector } from './faults.js';
import { HttpError, ItemError, readJson, sendError, sendJson } from './http.js';
import { cycleCount } from './inventory.js';
import { jwtScope } from './auth.js';
import { countRecords, listRecords, parseQuery } from './lists.js';
import { checkLabel, ssccLabels } from './shipments.js';
import type { Store } from './store.js';
import { itemsOf, runFailFast, runPerItem } from './writes.js';

export interface ServerDeps extends AdminHooks {
  store: Store;
  faults: FaultInjector;
  secret: string;
  log: Logger;
  baseUrl(): string;
}

interface Reply { status: number; body: unknown; headers?: Record<string, string> }

interface Route { endpoint: EndpointDef; pattern: RegExp; methods: string[] }
const ROUTES: Route[] = [...endpointList, ...Object.values<EndpointDef>(sandboxOnlyEndpoints)].map((endpoint) => ({
  endpoint,
  pattern: new RegExp(`^${endpoint.path.replace(/\./g, '\\.').replace('{shipment_id}', '(\\d+)')}$`),
  methods: [endpoint.method, ...(endpoint.aliasMethods ?? [])],
}));

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Count 0/Kids[]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

/**
 * API requests being answered at once (arrival to the answer's end, the injected latency included), and the most
 * seen at once since the last reset: what a client's cap on concurrent requests is checked against.
 */
class Concurrency {
  inFlight = 0;
  peak = 0;
  requests = 0;
  /** The requests' time here, summed (ms): over a client's run, ÷ its elapsed time is how many were here on average. */
  requestMs = 0;
  /** From the first request's arrival to the last answer's end (ms): a client's run without its start and its end. */
  private firstArrival: number | undefined;
  private lastEnd: number | undefined;

  enter(res: ServerResponse): void {
    this.inFlight++;
    this.requests++;
    if (this.inFlight > this.peak) this.peak = this.inFlight;
    const arrived = performance.now();
    this.firstArrival ??= arrived;
    res.once('close', () => {
      this.inFlight--;
      this.lastEnd = performance.now();
      this.requestMs += this.lastEnd - arrived;
    });
  }

  view(reset: boolean): { in_flight: number; peak: number; requests: number; request_ms: number; span_ms: number } {
    const span = this.firstArrival === undefined || this.lastEnd === undefined ? 0 : this.lastEnd - this.firstArrival;
    const seen = { in_flight: this.inFlight, peak: this.peak, requests: this.requests, request_ms: Math.round(this.requestMs), span_ms: Math.round(span) };
    if (reset) {
      this.peak = this.inFlight;
      this.requests = 0;
      this.requestMs = 0;
      this.firstArrival = undefined;
      this.lastEnd = undefined;
    }
    return seen;
  }
}

export function createHandler(deps: ServerDeps) {
  const concurrency = new Concurrency();
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://emulator.invalid');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const started = process.hrtime.bigint();
    res.on('finish', () => deps.log.debug({ method, path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'emulator request'));
    let resetAfter = false;
    let readAhead: Promise<{ reply: Reply } | { error: unknown }> | undefined;
    try {
      if (path.startsWith('/_admin/')) return send(res, await admin(deps, concurrency, req, method, path, url));
      if (path.startsWith('/v1/')) concurrency.enter(res);
      if (path.startsWith('/_labels/')) return label(deps, res, path, url);
      if (deps.faults.applies(path)) {
        const f = deps.faults.faults;
        if (f.latency_ms > 0) {
          // A read is computed at once and held until latency_ms after it arrived (a service answering in that time);
          // a write waits first, so a client that gives up during the wait finds it not applied (docs/emulator.md).
          if (method === 'GET') readAhead = api(deps, req, method, path, url).then((reply) => ({ reply }), (error: unknown) => ({ error }));
          await sleep(Math.max(0, f.latency_ms - Number(process.hrtime.bigint() - started) / 1e6));
        }
        const d = deps.faults.decide();
        if (d.kind === 'reset' && d.phase === 'before') {
          req.socket.destroy();
          return;
        }
        if (d.kind === 'reset') resetAfter = true;
        if (d.kind === 'rate_limit') throw new HttpError(429, 'rate_limited', 'too many requests (injected fault)', undefined, { 'retry-after': String(d.retryAfter) });
        if (d.kind === 'error') throw new HttpError(d.status, 'injected_error', `injected fault: status ${d.status}`);
      }
      const reply = readAhead ? await settled(readAhead) : await api(deps, req, method, path, url);
      if (resetAfter) {
        req.socket.destroy();
        return;
      }
      send(res, reply);
    } catch (error) {
      if (resetAfter) {
        req.socket.destroy();
        return;
      }
      if (error instanceof HttpError) return sendError(res, error);
      deps.log.error({ err: error, path }, 'emulator: unexpected error');
      sendError(res, new HttpError(500, 'internal_error', 'the emulator hit an unexpected error'));
    }
  };
}

async function settled(read: Promise<{ reply: Reply } | { error: unknown }>): Promise<Reply> {
  const outcome = await read;
  if ('error' in outcome) throw outcome.error;
  return outcome.reply;
}

function send(res: ServerResponse, reply: Reply): void {
  sendJson(res, reply.status, reply.body, reply.headers);
}

async function api(deps: ServerDeps, req: IncomingMessage, method: string, path: string, url: URL): Promise<Reply> {
  if (!path.startsWith('/v1/')) throw new HttpError(404, 'not_found', `no such path: ${path.slice(0, 200)}`);
  const scope = jwtScope(deps.secret, req.headers.authorization);
  const matches = ROUTES.map((r) => ({ r, m: r.pattern.exec(path) })).filter((x) => x.m !== null);
  if (matches.length === 0) throw new HttpError(404, 'not_found', `no such endpoint: ${path.slice(0, 200)}`);
  const hit = matches.find((x) => x.r.methods.includes(method));
  if (!hit) {
    const allow = matches.flatMap((x) => x.r.methods).join(', ');
    throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}; use ${allow}`, undefined, { allow });
  }
  const { endpoint } = hit.r;
  const ctx: WriteContext = {
    store: deps.store, scope, today: deps.today(), baseUrl: deps.baseUrl(), secret: deps.secret, log: deps.log,
    deprecated: (field, message) => {
      deps.log.warn({ field, endpoint: endpoint.id }, `deprecated: ${message}`);
      deps.deprecations.push({ field, message, at: new Date().toISOString() });
      if (deps.deprecations.length > 100) deps.deprecations.shift();
    },
  };
  const filtersScope = { warehouses: scope };
  switch (endpoint.style) {
    case 'list':
      return { status: 200, body: listRecords(deps.db, endpoint, filtersScope, parseQuery(endpoint, url.searchParams)) };
    case 'count':
      return { status: 200, body: countRecords(deps.db, endpoint, filtersScope, parseQuery(endpoint, url.searchParams)) };
    case 'single':
      if (endpoint.id === 'customerShipments.sscc') {
        const id = Number(hit.m![1]);
        try {
          return { status: 200, body: deps.db.transaction(() => ssccLabels(ctx, id)).immediate() };
        } catch (error) {
          if (error instanceof ItemError) throw new HttpError(404, 'not_found', error.message);
          throw error;
        }
      }
      return { status: 200, body: countBody(ctx, await readJson(req)) };
    case 'per-item':
      return runPerItem(ctx, endpoint, itemsOf(endpoint, await readJson(req), LIMITS.maxItemsPerRequest));
    case 'fail-fast':
      return runFailFast(ctx, endpoint, itemsOf(endpoint, await readJson(req), LIMITS.maxItemsPerRequest));
  }
}

function countBody(ctx: WriteContext, body: unknown) {
  const parsed = endpoints['inventory.counts'].body.safeParse(body);
  if (!parsed.success) {
    throw new HttpError(400, 'invalid_body', 'the cycle count is invalid', parsed.error.issues.slice(0, 50).map((i) => ({ path: i.path.map(String).join('.'), message: i.message })));
  }
  return ctx.store.db.transaction(() => cycleCount(ctx, parsed.data)).immediate();
}

async function admin(deps: ServerDeps, concurrency: Concurrency, req: IncomingMessage, method: string, path: string, url: URL): Promise<Reply> {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) throw new HttpError(403, 'forbidden', 'the admin API answers loopback callers only');
  const route = `${method} ${path}`;
  const body = async () => (method === 'GET' || method === 'DELETE' ? undefined : readJson(req).catch((e: unknown) => {
    if (e instanceof HttpError && e.code === 'invalid_json' && e.message.includes('empty')) return {};
    throw e;
  }));
  switch (route) {
    case 'GET /_admin/concurrency':
      return { status: 200, body: concurrency.view(url.searchParams.get('reset') === '1') };
    case 'POST /_admin/tokens': {
      const t = parseAdmin(tokenRequest, await body());
      return { status: 200, body: { token: deps.mintToken(t.warehouses, t.expires_in) } };
    }
    case 'POST /_admin/reset': {
      const r = parseAdmin(resetRequest, await body());
      deps.reset(r.seed, r.scale, r.today);
      return { status: 200, body: { seed: r.seed, scale: r.scale, today: deps.today() } };
    }
    case 'GET /_admin/state':
      return { status: 200, body: stateView(deps, url.searchParams.get('only')) };
    case 'GET /_admin/faults':
      return { status: 200, body: deps.faults.faults };
    case 'PUT /_admin/faults':
      return { status: 200, body: deps.faults.set(parseFaults(await body())) };
    case 'DELETE /_admin/faults':
      return { status: 200, body: deps.faults.set(parseFaults({})) };
    case 'POST /_admin/cancel':
      return { status: 200, body: cancelRecords(deps.store, parseAdmin(cancelRequest, await body()).ids) };
    case 'POST /_admin/touch-products': {
      const t = parseAdmin(touchProductsRequest, await body());
      return { status: 200, body: touchProducts(deps.store, t.codes, t.name) };
    }
    default:
      throw new HttpError(404, 'not_found', `no such admin endpoint: ${route.slice(0, 200)}`);
  }
}

function label(deps: ServerDeps, res: ServerResponse, path: string, url: URL): void {
  if (!/^\/_labels\/(shipments|packages)\/\d+\.pdf$/.test(path) || !checkLabel(deps.secret, path, url.searchParams.get('expires'), url.searchParams.get('signature'))) {
    return sendError(res, new HttpError(403, 'forbidden', 'the label URL is invalid or expired'));
  }
  res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF.length });
  res.end(PDF);
}
