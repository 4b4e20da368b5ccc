import type { AdjustmentItem, CycleCountRequest } from '../contract/index.js';
import type { WriteContext } from './context.js';
import { HttpError, ItemError, outTime } from './http.js';
import type { ProductRow, WarehouseRow } from './store.js';

/**
 * Lookups of one request (ctx is per request): a 1,000-item adjustment asks for the same warehouse and a few
 * products again and again. Nothing an adjustment writes changes them, and a new request starts afresh.
 */
interface RequestLookups {
  warehouses: Map<number, { row: WarehouseRow; companies: string[] }>;
  goods: Map<string, ProductRow>;
}
const lookups = new WeakMap<WriteContext, RequestLookups>();
function lookupsOf(ctx: WriteContext): RequestLookups {
  let l = lookups.get(ctx);
  if (!l) lookups.set(ctx, (l = { warehouses: new Map(), goods: new Map() }));
  return l;
}
function cachedWarehouse(ctx: WriteContext, id: number): { row: WarehouseRow; companies: string[] } {
  const cache = lookupsOf(ctx).warehouses;
  let w = cache.get(id);
  if (!w) {
    const row = ctx.store.warehouse(id);
    cache.set(id, (w = { row, companies: JSON.parse(row.companies) as string[] }));
  }
  return w;
}
function cachedGoods(ctx: WriteContext, code: string): ProductRow {
  const cache = lookupsOf(ctx).goods;
  let p = cache.get(code);
  if (!p) cache.set(code, (p = ctx.store.goods(code))); // throws ItemError when unknown: not cached
  return p;
}

/** The warehouse an inventory request applies to: required when the token is scoped to several warehouses. */
function targetWarehouse(ctx: WriteContext, given: number | undefined): WarehouseRow {
  return ctx.store.warehouse(targetWarehouseId(ctx, given));
}

function targetWarehouseId(ctx: WriteContext, given: number | undefined): number {
  if (given === undefined) {
    if (ctx.scope.length > 1) throw new ItemError('warehouse is required: the token is scoped to several warehouses');
    return ctx.scope[0]!;
  }
  if (!ctx.scope.includes(given)) throw new ItemError(`warehouse ${given} not found`);
  return given;
}

function companyFor(warehouse: WarehouseRow, given: string | undefined, required: boolean, companies = JSON.parse(warehouse.companies) as string[]): string {
  if (given === undefined) {
    if (required && companies.length > 1) throw new ItemError(`company_code is required: warehouse ${warehouse.id} has more than one company`);
    return warehouse.default_company;
  }
  if (!companies.includes(given)) throw new ItemError(`company ${given} not found at warehouse ${warehouse.id}`);
  return given;
}

/**
 * The writes of one adjustment request, applied at its end (flushAdjustments): stock is checked against a running
 * balance per stock key, move ids are handed out in order, and the moves (an adjustment is one move row, with its
 * reason and reference) go in with a few multi-row INSERTs and one stock update per key instead of three statements
 * per item. What the service answers is the same.
 */
interface PendingAdjustments {
  nextMoveId: number;
  at: string;
  balances: Map<string, { warehouse: number; company: string; product: number; lot: string; quantity: number; delta: number }>;
  moves: unknown[];
}
const pendingAdjustments = new WeakMap<WriteContext, PendingAdjustments>();
const ROWS_PER_INSERT = 100;

function pendingOf(ctx: WriteContext): PendingAdjustments {
  let p = pendingAdjustments.get(ctx);
  if (!p) {
    const max = ctx.store.sql('SELECT coalesce(max(id), 0) FROM moves').pluck().get() as number;
    pendingAdjustments.set(ctx, (p = { nextMoveId: max + 1, at: ctx.store.now(), balances: new Map(), moves: [] }));
  }
  return p;
}

/**
 * Throws ItemError only before it queues anything, so runPerItem needs no savepoint per adjustment
 * (`checksFirst` in writes.ts); flushAdjustments writes the queued rows before the request's transaction ends.
 */
export function adjust(ctx: WriteContext, item: AdjustmentItem) {
  const { store } = ctx;
  const { row: warehouse, companies } = cachedWarehouse(ctx, targetWarehouseId(ctx, item.warehouse));
  const company = companyFor(warehouse, item.company_code, true, companies);
  const product = cachedGoods(ctx, item.product_code);
  const lot = store.lotFor(warehouse, product, item.lot_number);
  const pending = pendingOf(ctx);
  const key = `${warehouse.id}\u0000${company}\u0000${product.id}\u0000${lot ?? ''}`;
  let balance = pending.balances.get(key);
  if (!balance) {
    const quantity = store.stock(warehouse.id, company, product.id, lot);
    pending.balances.set(key, (balance = { warehouse: warehouse.id, company, product: product.id, lot: lot ?? '', quantity, delta: 0 }));
  }
  if (item.quantity < 0 && balance.quantity + item.quantity < 0) {
    throw new ItemError(`insufficient stock of ${product.code}${lot ? ` lot ${lot}` : ''} for company ${company} at warehouse ${warehouse.id}: ${balance.quantity} on hand, ${-item.quantity} needed`);
  }
  balance.quantity += item.quantity;
  balance.delta += item.quantity;
  const moveId = pending.nextMoveId++;
  pending.moves.push(moveId, 'adjustment', warehouse.id, company, product.id, lot ?? '', item.quantity, pending.at,
    product.code, item.reason ?? null, item.reference ?? null, item.date ?? null);
  return { product_code: product.code, reference: item.reference ?? null, lot_number: lot, move_id: moveId, company_code: company, errors: null };
}

/** Writes what the adjustments of this request queued (inside its transaction). */
export function flushAdjustments(ctx: WriteContext): void {
  const pending = pendingAdjustments.get(ctx);
  if (!pending) return;
  pendingAdjustments.delete(ctx);
  const { store } = ctx;
  insertRows(store, 'moves (id, kind, warehouse_id, company_code, product_id, lot_number, quantity, created_at, product_code, reason, reference, date)', 12, pending.moves);
  const upsert = store.sql(`INSERT INTO inventory VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (warehouse_id, company_code, product_id, lot_number) DO UPDATE SET quantity = quantity + excluded.quantity`);
  for (const b of pending.balances.values()) if (b.delta !== 0) upsert.run(b.warehouse, b.company, b.product, b.lot, b.delta);
}

/** SQL texts of the multi-row INSERTs by target and row count: the same string each time, so its hash is kept. */
const insertTexts = new Map<string, string>();

function insertRows(store: WriteContext['store'], target: string, width: number, values: unknown[]): void {
  const chunk = ROWS_PER_INSERT * width;
  for (let i = 0; i < values.length; i += chunk) {
    const part = values.length <= chunk ? values : values.slice(i, i + chunk);
    const rows = part.length / width;
    const key = `${rows} ${target}`;
    let text = insertTexts.get(key);
    if (!text) insertTexts.set(key, (text = `INSERT INTO ${target} VALUES ${Array(rows).fill(`(${Array(width).fill('?').join(', ')})`).join(', ')}`));
    store.sql(text).run(part);
  }
}

/** The per-item error answer of an adjustment that failed. */
export function adjustmentError(raw: unknown, errors: string[]) {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' ? v.slice(0, 255) : null); // never echo a huge input back
  return { product_code: s(r.product_code), reference: s(r.reference), lot_number: s(r.lot_number), move_id: null, company_code: s(r.company_code), errors };
}

/** A historical cycle count: recorded, on-hand stock is not changed. Any problem is a 400. */
export function cycleCount(ctx: WriteContext, body: CycleCountRequest) {
  const { store } = ctx;
  const bad = (message: string) => new HttpError(400, 'invalid_count', message);
  if (body.date >= ctx.today) throw bad(`date ${body.date} must be strictly earlier than today (${ctx.today})`);
  let warehouse: WarehouseRow;
  let company: string;
  try {
    warehouse = targetWarehouse(ctx, body.warehouse);
    company = companyFor(warehouse, body.company_code, false);
  } catch (error) {
    throw bad((error as Error).message);
  }
  const problems: { path: string; message: string }[] = [];
  body.items.forEach((line, i) => {
    const product = store.product(line.product_code);
    if (!product || product.type !== 'goods') return problems.push({ path: `items.${i}.product_code`, message: `SKU ${line.product_code} not found at warehouse ${warehouse.id}` });
    try {
      store.lotFor(warehouse, product, line.lot_number);
    } catch (error) {
      problems.push({ path: `items.${i}.lot_number`, message: (error as Error).message });
    }
    return undefined;
  });
  if (problems.length > 0) throw new HttpError(400, 'invalid_count', problems[0]!.message, problems);
  const now = store.now();
  const info = store.sql('INSERT INTO counts (number, warehouse_id, company_code, date, reason, reference, items, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run('', warehouse.id, company, body.date, body.reason, body.reference ?? null, JSON.stringify(body.items), now);
  const id = Number(info.lastInsertRowid);
  const number = `CC-${String(id).padStart(6, '0')}`;
  store.sql('UPDATE counts SET number = ? WHERE id = ?').run(number, id);
  return { count: { id, reference: body.reference ?? null, number, create_date: outTime(now), company_code: company } };
}
