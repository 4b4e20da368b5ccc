import { LIMITS, type EndpointDef } from '../contract/index.js';
import type Database from 'better-sqlite3';
import type { Db, Family } from './db.js';
import { HttpError, JsonText, toIssues } from './http.js';

export interface Scope {
  warehouses: number[];
}

const FAMILY_BY_PREFIX: Record<string, Family | 'products'> = {
  products: 'products',
  customerShipments: 'customer_shipments',
  outboundTransfers: 'outbound_transfers',
  inboundTransfers: 'inbound_transfers',
  supplierShipments: 'supplier_shipments',
  customerReturns: 'customer_return_shipments',
};
export const familyOf = (endpointId: string): Family | 'products' => FAMILY_BY_PREFIX[endpointId.split('.')[0]!]!;

/** Filters as parsed by the contract's query schema. */
type Filters = Record<string, unknown> & { page?: number; status?: string };

export function parseQuery(endpoint: EndpointDef, params: URLSearchParams): Filters {
  const raw: Record<string, string> = {};
  for (const [k, v] of params) raw[k] = v;
  if (endpoint.queryRequired && Object.keys(raw).length === 0) {
    throw new HttpError(400, 'query_required', 'this list needs at least one query parameter (for example status=all)');
  }
  const parsed = endpoint.query!.safeParse(raw);
  if (!parsed.success) throw new HttpError(400, 'invalid_query', 'the query parameters are invalid', toIssues(parsed.error.issues));
  return parsed.data as Filters;
}

const filterTime = (t: string) => new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t}Z`).toISOString();

function where(family: Family | 'products', scope: Scope, f: Filters): { sql: string; args: unknown[] } {
  const clauses: string[] = [];
  const args: unknown[] = [];
  if (family === 'products') {
    clauses.push(`type = 'goods'`);
  } else {
    clauses.push('family = ?', `warehouse_id IN (${scope.warehouses.map(() => '?').join(',')})`);
    args.push(family, ...scope.warehouses);
    const statuses = f.status === 'all' ? ['pending', 'open', 'done'] : [f.status as string];
    clauses.push(`list_status IN (${statuses.map(() => '?').join(',')})`);
    args.push(...statuses);
  }
  const list = (col: string, values: unknown) => {
    if (!Array.isArray(values)) return;
    clauses.push(`${col} IN (${values.map(() => '?').join(',')})`);
    args.push(...values);
  };
  list('id', f.ids);
  list('number', f.numbers);
  const cmp = (col: string, op: string, value: unknown, map: (v: string) => string = (v) => v) => {
    if (typeof value !== 'string') return;
    clauses.push(`${col} ${op} ?`);
    args.push(map(value));
  };
  cmp('planned_date', '>=', f.planned_date_min);
  cmp('planned_date', '<=', f.planned_date_max);
  cmp('updated_at', '>=', f.updated_at_min, filterTime);
  cmp('updated_at', '<=', f.updated_at_max, filterTime);
  cmp('service_code', '=', f.carrier_service);
  return { sql: clauses.join(' AND '), args };
}

export function countRecords(db: Db, endpoint: EndpointDef, scope: Scope, f: Filters): { count: number } {
  const family = familyOf(endpoint.id);
  const w = where(family, scope, f);
  const row = stmt(db, `SELECT count(*) AS n FROM ${family === 'products' ? 'products' : 'records'} WHERE ${w.sql}`).get(...w.args) as { n: number };
  return { count: row.n };
}
/**
 * One page of a list as JSON text, rendered by SQLite: no JSON.parse of the stored documents, no objects and no
 * JSON.stringify of the page in JS. A deep page starts after the last id of an earlier page of the same listing
 * when nothing changed since (keyset), instead of walking the index with a large OFFSET.
 */
export function listRecords(db: Db, endpoint: EndpointDef, scope: Scope, f: Filters): JsonText {
  const family = familyOf(endpoint.id);
  const w = where(family, scope, f);
  const page = f.page ?? 1;
  const size = LIMITS.pageSize;
  const table = family === 'products' ? 'products' : 'records';
  const boundaries = pageBoundaries(db, `${table} ${w.sql} ${JSON.stringify(w.args)}`);
  let from = boundaries.nearest(page);
  if (page - (from?.page ?? 0) > 2 && page <= MAX_REMEMBERED_PAGE) {
    // a jump ahead (a random page, or concurrent pages answered out of order): step from the nearest known page,
    // remembering every page end on the way; this costs about what OFFSET would, once, and later pages are keyset
    const next = stmt(db, `SELECT id FROM ${table} WHERE ${w.sql} AND id > ? ORDER BY id LIMIT 1 OFFSET ${size - 1}`).pluck();
    let lastId = from?.lastId ?? Number.MIN_SAFE_INTEGER;
    for (let p = (from?.page ?? 0) + 1; p < page; p++) {
      const id = next.get(...w.args, lastId) as number | undefined;
      if (id === undefined) break;
      boundaries.set(p, (lastId = id));
      from = { page: p, lastId };
    }
  }
  const after = from === undefined ? '' : ' AND id > ?';
  // The page's ids first (covered by the listing index), then its records rendered and joined by SQLite into one
  // string (no row per record in JS, cheaper a page: docs/performance.md, "Settings chosen by measurement"); one
  // read transaction, one snapshot.
  const { ids, body } = db.transaction(() => {
    const ids = stmt(db, `SELECT id FROM ${table} WHERE ${w.sql}${after} ORDER BY id LIMIT ? OFFSET ?`).pluck()
      .all(...w.args, ...(from === undefined ? [] : [from.lastId]), size + 1, (page - 1 - (from?.page ?? 0)) * size) as number[];
    const n = Math.min(ids.length, size);
    const body = n === 0 ? '' : stmt(db, `SELECT group_concat(${family === 'products' ? PRODUCT_JSON : `coalesce(r.rendered, ${RECORD_JSON})`}, ',' ORDER BY r.id)
        FROM ${table} r WHERE r.id BETWEEN ? AND ? AND ${w.sql}`).pluck().get(ids[0], ids[n - 1], ...w.args) as string;
    return { ids, body };
  })();
  const hasMore = ids.length > size;
  if (ids.length >= size) boundaries.set(page, ids[size - 1]!);
  const text = `{${JSON.stringify(endpoint.envelopeKey!)}:[${body}`;
  return new JsonText(`${text}],"has_more":${hasMore}}`);
}

/** Stored `…Z` timestamps are sent with an explicit offset `+00:00` (as `outTime`). */
const time = (col: string) => `json_quote(CASE WHEN substr(${col}, -1) = 'Z' THEN substr(${col}, 1, length(${col}) - 1) || '+00:00' ELSE ${col} END)`;
/** The members of a stored document spliced in; documents are written by JSON.stringify, so `{…}` without spaces. */
const spread = (col: string) => `CASE WHEN length(${col}) > 2 THEN ',' || substr(${col}, 2, length(${col}) - 2) ELSE '' END`;
/** REAL columns holding whole numbers are sent as integers (2, not 2.0), as JSON.stringify writes them. */
const num = (col: string) => `CASE WHEN ${col} = CAST(${col} AS INTEGER) THEN CAST(${col} AS INTEGER) ELSE ${col} END`;

const PRODUCT_JSON = `'{"id":' || r.id || ',"code":' || json_quote(r.code) || ',"name":' || json_quote(r.name) || ${spread('r.doc')}
  || ',"updated_at":' || ${time('r.updated_at')} || '}'`;

// Fields in the order the emulator always sent them: header columns, the document, lines, then the derived fields.
const LINE_JSON = `'{"id":' || l.id || ',"product":{"code":' || json_quote(p.code) || ',"name":' || json_quote(p.name) || '},"quantity":' || ${num('l.quantity')}
  || ${spread('l.doc')}
  || CASE WHEN r.family = 'inbound_transfers' THEN ',"lot":' || CASE WHEN l.lot_number IS NULL THEN 'null' ELSE '{"number":' || json_quote(l.lot_number) || ',"expiry_date":null}' END ELSE '' END
  || '}'`;
const RECORD_JSON = `'{"id":' || r.id || ',"number":' || json_quote(r.number) || ',"company_code":' || json_quote(r.company_code)
  || ',"warehouse":' || coalesce((SELECT '{"id":' || w.id || ',"code":' || json_quote(w.code) || ',"name":' || json_quote(w.name) || '}' FROM warehouses w WHERE w.id = r.warehouse_id),
       '{"id":' || r.warehouse_id || ',"code":"WH' || r.warehouse_id || '","name":"Warehouse ' || r.warehouse_id || '"}')
  || ',"planned_date":' || json_quote(r.planned_date) || ',"carrier_code":' || json_quote(r.carrier_code) || ',"service_code":' || json_quote(r.service_code)
  || ${spread('r.doc')}
  || ',"lines":[' || coalesce((SELECT group_concat(${LINE_JSON}, ',' ORDER BY l.id) FROM lines l JOIN products p ON p.id = l.product_id WHERE l.record_id = r.id), '') || ']'
  || ',"status":' || json_quote(r.list_status) || ',"updated_at":' || ${time('r.updated_at')}
  || CASE WHEN r.family = 'customer_shipments' THEN ',"picking_status":' || json_quote(r.picking_status) || ',"tpl_status":' || json_quote(r.tpl_status) || ',"tracking_numbers":' || r.tracking ELSE '' END
  || CASE WHEN r.origin_id IS NOT NULL THEN ',"origin_id":' || r.origin_id || ',"origin_kind":' || json_quote(r.origin_kind) ELSE '' END
  || '}'`;

/** Fills `records.rendered` of every record (the seed; writes clear it again through the triggers of db.ts). */
export function renderAllRecords(db: Db): void {
  db.exec(`UPDATE records AS r SET rendered = ${RECORD_JSON}`);
}

/** Prepared statements by SQL text: the filter combinations are few, compiling them per request is not free. */
const statements = new WeakMap<Db, Map<string, Database.Statement>>();
function stmt(db: Db, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let s = cache.get(sql);
  if (!s) {
    if (cache.size > 500) cache.clear();
    cache.set(sql, (s = db.prepare(sql)));
  }
  return s;
}

/**
 * The last id of each page served, per listing (table + filters), valid while the data is unchanged:
 * `total_changes()` counts every row this connection wrote (rolled-back writes too, so it only errs towards
 * forgetting) and `data_version` moves when another connection commits to the same file. While both stand still,
 * page n is exactly the 100 ids after the last id of page n−1 (or after the nearest page served before it).
 */
class PageBoundaries {
  private version = '';
  private readonly last: number[] = [];
  constructor(private readonly current: () => string) {}

  nearest(page: number): { page: number; lastId: number } | undefined {
    const v = this.current();
    if (v !== this.version) {
      this.version = v;
      this.last.length = 0;
    }
    for (let p = Math.min(page - 1, this.last.length - 1); p >= 1; p--) {
      const lastId = this.last[p];
      if (lastId !== undefined) return { page: p, lastId };
    }
    return undefined;
  }

  set(page: number, lastId: number): void {
    if (page <= MAX_REMEMBERED_PAGE) this.last[page] = lastId;
  }
}
const MAX_REMEMBERED_PAGE = 100_000;
const MAX_LISTINGS = 64;
const boundaryCache = new WeakMap<Db, Map<string, PageBoundaries>>();
function pageBoundaries(db: Db, key: string): PageBoundaries {
  let cache = boundaryCache.get(db);
  if (!cache) boundaryCache.set(db, (cache = new Map()));
  let b = cache.get(key);
  if (b) {
    cache.delete(key); // re-inserted below: the map's order is least recently used first
  } else {
    if (cache.size >= MAX_LISTINGS) cache.delete(cache.keys().next().value!);
    const changes = stmt(db, 'SELECT total_changes()').pluck();
    const dataVersion = stmt(db, 'PRAGMA data_version').pluck();
    b = new PageBoundaries(() => `${changes.get() as number}:${dataVersion.get() as number}`);
  }
  cache.set(key, b);
  return b;
}

/** The state was rebuilt (admin reset): forget what was derived from it. */
export function forgetWarehouses(db: Db): void {
  boundaryCache.delete(db);
}
