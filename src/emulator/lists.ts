import { LIMITS, type EndpointDef } from '../contract/index.js';
import type Database from 'better-sqlite3';
import type { Db, Family } from './db.js';
import { HttpError, outTime, toIssues } from './http.js';

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

export function listRecords(db: Db, endpoint: EndpointDef, scope: Scope, f: Filters): Record<string, unknown> {
  const family = familyOf(endpoint.id);
  const w = where(family, scope, f);
  const page = f.page ?? 1;
  const size = LIMITS.pageSize;
  const table = family === 'products' ? 'products' : 'records';
  // page over ids first (covered by the listing index), then fetch only the rows of this page
  const rows = stmt(db, `SELECT * FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ${w.sql} ORDER BY id LIMIT ? OFFSET ?) ORDER BY id`)
    .all(...w.args, size + 1, (page - 1) * size) as Row[];
  const has_more = rows.length > size;
  const pageRows = rows.slice(0, size);
  const records = family === 'products' ? pageRows.map(productOut) : recordsOut(db, pageRows);
  return { [endpoint.envelopeKey!]: records, has_more };
}

type Row = Record<string, unknown> & { id: number; doc: string };

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

function productOut(row: Row): Record<string, unknown> {
  return { id: row.id, code: row.code, name: row.name, ...JSON.parse(row.doc), updated_at: outTime(row.updated_at as string) };
}

interface WarehouseRow { id: number; code: string; name: string }
const warehouseCache = new WeakMap<Db, Map<number, WarehouseRow>>();
export function warehouseRef(db: Db, id: number): WarehouseRow {
  let cache = warehouseCache.get(db);
  if (!cache || !cache.has(id)) {
    cache = new Map((db.prepare('SELECT id, code, name FROM warehouses').all() as WarehouseRow[]).map((w) => [w.id, w]));
    warehouseCache.set(db, cache);
  }
  return cache.get(id) ?? { id, code: `WH${id}`, name: `Warehouse ${id}` };
}
export function forgetWarehouses(db: Db): void {
  warehouseCache.delete(db);
}

interface LineRow { id: number; record_id: number; quantity: number; done_quantity: number; lot_number: string | null; doc: string; code: string; name: string }

/** Serializes record rows with their lines, in the documented field types. */
export function recordsOut(db: Db, rows: Row[]): Record<string, unknown>[] {
  if (rows.length === 0) return [];
  const lines = stmt(db, `SELECT l.id, l.record_id, l.quantity, l.done_quantity, l.lot_number, l.doc, p.code, p.name FROM lines l
      JOIN products p ON p.id = l.product_id WHERE l.record_id IN (${rows.map(() => '?').join(',')}) ORDER BY l.id`).all(...rows.map((r) => r.id)) as LineRow[];
  const byRecord = new Map<number, LineRow[]>();
  for (const l of lines) {
    const list = byRecord.get(l.record_id) ?? [];
    list.push(l);
    byRecord.set(l.record_id, list);
  }
  return rows.map((r) => {
    const family = r.family as Family;
    const out: Record<string, unknown> = {
      id: r.id, number: r.number, company_code: r.company_code, warehouse: warehouseRef(db, r.warehouse_id as number),
      planned_date: r.planned_date, carrier_code: r.carrier_code, service_code: r.service_code, ...JSON.parse(r.doc),
      lines: (byRecord.get(r.id) ?? []).map((l) => lineOut(family, l)),
      status: r.list_status, updated_at: outTime(r.updated_at as string),
    };
    if (family === 'customer_shipments') {
      Object.assign(out, { picking_status: r.picking_status, tpl_status: r.tpl_status, tracking_numbers: JSON.parse(r.tracking as string) });
    }
    if (r.origin_id !== null) Object.assign(out, { origin_id: r.origin_id, origin_kind: r.origin_kind });
    return out;
  });
}

function lineOut(family: Family, l: LineRow): Record<string, unknown> {
  const base = { id: l.id, product: { code: l.code, name: l.name }, quantity: l.quantity, ...JSON.parse(l.doc) };
  if (family === 'inbound_transfers') base.lot = l.lot_number === null ? null : { number: l.lot_number, expiry_date: null };
  return base;
}
