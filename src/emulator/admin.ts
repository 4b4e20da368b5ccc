import { z } from 'zod';
import { isoDate } from '../contract/index.js';
import { FAMILIES, type Db } from './db.js';
import { faultsSchema, type FaultInjector } from './faults.js';
import { HttpError, outTime, toIssues } from './http.js';
import type { Scale } from './seed.js';
import { RECORD_ROW_COLUMNS, type RecordRow, type Store } from './store.js';

export const tokenRequest = z.strictObject({
  warehouses: z.array(z.number().int().positive()).min(1).max(100),
  /** Seconds; negative mints an already expired token (for 401 tests). */
  expires_in: z.number().int().min(-86_400).max(10 * 365 * 86_400).default(3600),
});
export const resetRequest = z.strictObject({
  seed: z.number().int().min(0).default(1),
  scale: z.enum(['small', 'medium', 'large']).default('small'),
  today: isoDate.optional(),
});

export function parseAdmin<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw new HttpError(400, 'invalid_body', 'the admin request body is invalid', toIssues(parsed.error.issues));
  return parsed.data;
}

export function parseFaults(body: unknown) {
  return parseAdmin(faultsSchema, body);
}

export interface AdminHooks {
  db: Db;
  faults: FaultInjector;
  today(): string;
  deprecations: { field: string; message: string; at: string }[];
  mintToken(warehouses: number[], expiresIn: number): string;
  reset(seed: number, scale: Scale, today?: string): void;
}

/** The internal view for tests and demos (`GET /_admin/state`); `?only=a,b` limits it to some sections. */
export function stateView(h: AdminHooks, only: string | null): Record<string, unknown> {
  const want = only ? new Set(only.split(',')) : null;
  const wanted = (k: string) => want === null || want.has(k);
  const out: Record<string, unknown> = {
    today: h.today(),
    seed: Number((h.db.prepare(`SELECT value FROM meta WHERE key = 'seed'`).get() as { value: string } | undefined)?.value ?? 0),
    scale: (h.db.prepare(`SELECT value FROM meta WHERE key = 'scale'`).get() as { value: string } | undefined)?.value ?? null,
    faults: h.faults.faults,
    deprecations: h.deprecations,
  };
  if (wanted('warehouses')) {
    out.warehouses = (h.db.prepare('SELECT * FROM warehouses ORDER BY id').all() as Record<string, unknown>[]).map((w) => ({
      id: w.id, code: w.code, name: w.name, lot_inventory: w.lot_inventory === 1, companies: JSON.parse(w.companies as string), default_company: w.default_company,
    }));
  }
  if (wanted('products')) {
    out.products = (h.db.prepare('SELECT id, code, type, lot_tracked, serial_tracked, updated_at FROM products ORDER BY id').all() as Record<string, unknown>[])
      .map((p) => ({ ...p, lot_tracked: p.lot_tracked === 1, serial_tracked: p.serial_tracked === 1, updated_at: outTime(p.updated_at as string) }));
  }
  if (wanted('inventory')) {
    out.inventory = (h.db.prepare(`SELECT i.warehouse_id, i.company_code, p.code AS product_code, i.lot_number, i.quantity FROM inventory i
      JOIN products p ON p.id = i.product_id ORDER BY i.warehouse_id, i.company_code, p.code, i.lot_number`).all() as Record<string, unknown>[])
      .map((i) => ({ ...i, lot_number: i.lot_number === '' ? null : i.lot_number }));
  }
  const inFamily = 'record_id IN (SELECT id FROM records WHERE family = ?)';
  const lines = h.db.prepare(`SELECT l.id, l.record_id, p.code AS product_code, l.quantity, l.done_quantity, l.damaged_quantity, l.lot_number
    FROM lines l JOIN products p ON p.id = l.product_id WHERE l.${inFamily} ORDER BY l.id`);
  const packages = h.db.prepare(`SELECT id, record_id, sscc, tracking_number, doc FROM packages WHERE ${inFamily} ORDER BY id`);
  const writes = h.db.prepare(`SELECT record_id, endpoint, at, item FROM writes WHERE ${inFamily} ORDER BY id`);
  for (const family of FAMILIES) {
    if (!wanted(family)) continue;
    const byRecord = groupByRecord(lines.all(family) as RecordChild[], (l) => l);
    const packagesOf = groupByRecord(packages.all(family) as RecordChild[], ({ doc, ...p }) => ({ ...p, ...JSON.parse(doc as string) }));
    const writesOf = groupByRecord(writes.all(family) as RecordChild[], (w) => ({ endpoint: w.endpoint, at: outTime(w.at as string), item: JSON.parse(w.item as string) }));
    out[family] = (h.db.prepare(`SELECT ${RECORD_ROW_COLUMNS} FROM records WHERE family = ? ORDER BY id`).all(family) as Record<string, unknown>[]).map((r) => ({
      id: r.id, number: r.number, warehouse_id: r.warehouse_id, company_code: r.company_code, state: r.state, list_status: r.list_status,
      acknowledged_at: outTime(r.acknowledged_at as string | null), shipped_at: outTime(r.shipped_at as string | null),
      picking_status: r.picking_status, tpl_status: r.tpl_status, tpl_error: r.tpl_error, origin_id: r.origin_id, origin_kind: r.origin_kind,
      carrier_code: r.carrier_code, service_code: r.service_code, tracking_numbers: JSON.parse(r.tracking as string),
      updated_at: outTime(r.updated_at as string), lines: byRecord.get(r.id as number) ?? [],
      ...(family === 'customer_shipments' ? { packages: packagesOf.get(r.id as number) ?? [] } : {}),
      writes: writesOf.get(r.id as number) ?? [],
    }));
  }
  if (wanted('adjustments')) {
    out.adjustments = h.db.prepare(`SELECT id, id AS move_id, warehouse_id, company_code, product_code, nullif(lot_number, '') AS lot_number,
      quantity, reason, reference, date, created_at FROM moves WHERE kind = 'adjustment' ORDER BY id`).all();
  }
  if (wanted('counts')) {
    out.counts = (h.db.prepare('SELECT * FROM counts ORDER BY id').all() as Record<string, unknown>[]).map((c) => ({ ...c, items: JSON.parse(c.items as string) }));
  }
  return out;
}

type RecordChild = Record<string, unknown> & { record_id: number };

/** Rows of a child table by their record, `record_id` left out. */
function groupByRecord(rows: RecordChild[], shape: (row: Record<string, unknown>) => Record<string, unknown>): Map<number, Record<string, unknown>[]> {
  const byRecord = new Map<number, Record<string, unknown>[]>();
  for (const { record_id, ...rest } of rows) {
    const list = byRecord.get(record_id) ?? [];
    list.push(shape(rest));
    byRecord.set(record_id, list);
  }
  return byRecord;
}

export const cancelRequest = z.strictObject({ ids: z.array(z.number().int().positive()).min(1).max(1000) });
export const touchProductsRequest = z.strictObject({
  codes: z.array(z.string().min(1).max(255)).min(1).max(1000),
  name: z.string().min(1).max(4000).optional(),
});

/**
 * Test hook: the service cancels customer shipments or returns (any warehouse) that are not shipped or received.
 * The interface has no cancel endpoint; the warehouse's users cancel in the service.
 */
export function cancelRecords(store: Store, ids: number[]): { cancelled: number[] } {
  return store.db.transaction(() => {
    for (const id of ids) {
      const row = store.db.prepare(`SELECT ${RECORD_ROW_COLUMNS} FROM records WHERE id = ?`).get(id) as RecordRow | undefined;
      if (!row || !['customer_shipments', 'customer_return_shipments'].includes(row.family)) {
        throw new HttpError(400, 'invalid_body', `record ${id} is not a customer shipment or return`);
      }
      if (!['assigned', 'draft', 'canceled'].includes(row.state)) throw new HttpError(400, 'invalid_body', `record ${id} is ${row.state}`);
      store.update(row, { state: 'canceled' });
    }
    return { cancelled: ids };
  }).immediate();
}

/** Test hook: products change in the service (updated_at moves on, optionally a new name). */
export function touchProducts(store: Store, codes: string[], name?: string): { products: { code: string; updated_at: string }[] } {
  const products = store.db.transaction(() => codes.map((code) => {
    const product = store.product(code);
    if (!product) throw new HttpError(400, 'invalid_body', `no product ${code}`);
    const at = store.now();
    store.db.prepare('UPDATE products SET updated_at = ?, name = coalesce(?, name) WHERE id = ?').run(at, name ?? null, product.id);
    return { code, updated_at: outTime(at)! };
  })).immediate();
  store.forgetProducts();
  return { products };
}
