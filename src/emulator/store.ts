import type Database from 'better-sqlite3';
import type { Db, Family } from './db.js';
import { listStatus } from './db.js';
import { ItemError } from './http.js';

export interface RecordRow {
  id: number; family: Family; number: string; warehouse_id: number; company_code: string; state: string;
  list_status: string; planned_date: string; updated_at: string; carrier_code: string; service_code: string;
  acknowledged_at: string | null; shipped_at: string | null; picking_status: string | null; tpl_status: string | null;
  tpl_error: string | null; origin_id: number | null; origin_kind: string | null; tracking: string; doc: string;
}
/** The columns of a RecordRow (not `rendered`: derived records must not copy their origin's list JSON). */
export const RECORD_ROW_COLUMNS = 'id, family, number, warehouse_id, company_code, state, list_status, planned_date, updated_at, carrier_code, service_code, acknowledged_at, shipped_at, picking_status, tpl_status, tpl_error, origin_id, origin_kind, tracking, doc';
export interface LineRow { id: number; record_id: number; product_id: number; quantity: number; done_quantity: number; damaged_quantity: number; lot_number: string | null; doc: string }
export interface ProductRow { id: number; code: string; name: string; type: string; lot_tracked: number; serial_tracked: number }
export interface WarehouseRow { id: number; code: string; name: string; lot_inventory: number; companies: string; default_company: string }

const FAMILY_NOUN: Record<Family, string> = {
  customer_shipments: 'customer shipment', outbound_transfers: 'outbound transfer', inbound_transfers: 'inbound transfer',
  supplier_shipments: 'supplier shipment', customer_return_shipments: 'customer return',
};
export const noun = (f: Family) => FAMILY_NOUN[f];

/** Data access used inside write transactions. Prepared once per database. */
export class Store {
  private readonly s;
  /** Monotonic clock so updated_at strictly increases within one emulator (cursors rely on it). */
  private last = 0;

  constructor(readonly db: Db) {
    this.s = {
      record: db.prepare(`SELECT ${RECORD_ROW_COLUMNS} FROM records WHERE id = ? AND family = ?`),
      lines: db.prepare('SELECT * FROM lines WHERE record_id = ? ORDER BY id'),
      product: db.prepare('SELECT id, code, name, type, lot_tracked, serial_tracked FROM products WHERE code = ?'),
      productById: db.prepare('SELECT id, code, name, type, lot_tracked, serial_tracked FROM products WHERE id = ?'),
      warehouse: db.prepare('SELECT * FROM warehouses WHERE id = ?'),
      stock: db.prepare('SELECT quantity FROM inventory WHERE warehouse_id = ? AND company_code = ? AND product_id = ? AND lot_number = ?'),
      upsertStock: db.prepare(`INSERT INTO inventory VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (warehouse_id, company_code, product_id, lot_number) DO UPDATE SET quantity = quantity + excluded.quantity`),
      move: db.prepare('INSERT INTO moves (kind, warehouse_id, company_code, product_id, lot_number, quantity, record_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      maxId: db.prepare('SELECT max(id) AS m FROM records'),
      maxLine: db.prepare('SELECT max(id) AS m FROM lines'),
      children: db.prepare('SELECT count(*) AS n FROM records WHERE origin_id = ?'),
    };
  }

  private readonly cache = new Map<string, Database.Statement>();
  /** A prepared statement, compiled once per SQL text. */
  sql(text: string): Database.Statement {
    let st = this.cache.get(text);
    if (!st) this.cache.set(text, (st = this.db.prepare(text)));
    return st;
  }

  now(): string {
    const t = Math.max(Date.now(), this.last + 1);
    this.last = t;
    // toISOString is the costly part here and an adjustment asks twice: format the second once, then add the ms
    // (docs/performance.md, "Settings chosen by measurement").
    const ms = t % 1000;
    if (t - ms !== this.isoSecond) {
      this.isoSecond = t - ms;
      this.isoPrefix = new Date(this.isoSecond).toISOString().slice(0, 20);
    }
    return `${this.isoPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }
  private isoSecond = -1;
  private isoPrefix = '';

  /** A record of the family in the token's scope; anything else is "not found" (invisible). */
  record(family: Family, id: number, scope: number[]): RecordRow {
    const row = this.s.record.get(id, family) as RecordRow | undefined;
    if (!row || !scope.includes(row.warehouse_id)) throw new ItemError(`${noun(family)} ${id} not found`);
    return row;
  }

  lines(recordId: number): LineRow[] {
    return this.s.lines.all(recordId) as LineRow[];
  }

  /**
   * Products by code, read once: an adjustment request looks up the same few hundred products a thousand times,
   * and only a reset or touchProducts changes them (both call forgetProducts).
   */
  private readonly products = new Map<string, ProductRow | undefined>();

  product(code: string): ProductRow | undefined {
    if (this.products.has(code)) return this.products.get(code);
    const row = this.s.product.get(code) as ProductRow | undefined;
    if (this.products.size >= 100_000) this.products.clear();
    this.products.set(code, row);
    return row;
  }

  /** Products changed (reset, touchProducts): read them again. */
  forgetProducts(): void {
    this.products.clear();
  }
  productById(id: number): ProductRow | undefined {
    return this.s.productById.get(id) as ProductRow | undefined;
  }

  warehouse(id: number): WarehouseRow {
    return this.s.warehouse.get(id) as WarehouseRow;
  }

  /** Sets columns of a record and recomputes its listing status and updated_at. */
  update(row: RecordRow, changes: Partial<RecordRow>): RecordRow {
    const next = { ...row, ...changes, updated_at: this.now() };
    next.list_status = listStatus(next.family, next.state, next.acknowledged_at !== null);
    const cols = Object.keys(changes).concat('list_status', 'updated_at');
    const unique = [...new Set(cols)];
    this.sql(`UPDATE records SET ${unique.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...unique.map((c) => (next as unknown as Record<string, unknown>)[c]), row.id);
    return next;
  }

  setLine(lineId: number, changes: Partial<Pick<LineRow, 'quantity' | 'done_quantity' | 'damaged_quantity' | 'lot_number'>>): void {
    const cols = Object.keys(changes);
    this.sql(`UPDATE lines SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...cols.map((c) => (changes as Record<string, unknown>)[c]), lineId);
  }
  deleteLine(lineId: number): void {
    this.sql('DELETE FROM lines WHERE id = ?').run(lineId);
  }

  /**
   * A new record derived from `origin` (split, deferred or follow-up): same header, new id and number, the given lines.
   * Numbers are `<origin number>-<letter><n>`, e.g. `SO-1001-S1`.
   */
  derive(origin: RecordRow, kind: 'split' | 'deferred' | 'follow_up', letter: string, changes: Partial<RecordRow>,
    lines: { source: LineRow; quantity: number; done_quantity: number; damaged_quantity?: number }[]): RecordRow {
    const id = Math.max((this.s.maxId.get() as { m: number }).m + 1, 1);
    const n = (this.s.children.get(origin.id) as { n: number }).n + 1;
    const row: RecordRow = {
      ...origin, id, number: `${origin.number}-${letter}${n}`, origin_id: origin.id, origin_kind: kind,
      picking_status: null, tpl_status: null, tpl_error: null, tracking: '[]', ...changes, updated_at: this.now(),
    };
    row.list_status = listStatus(row.family, row.state, row.acknowledged_at !== null);
    const cols = Object.keys(row);
    this.sql(`INSERT INTO records (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...cols.map((c) => (row as unknown as Record<string, unknown>)[c]));
    let lineId = (this.s.maxLine.get() as { m: number }).m;
    const ins = this.sql('INSERT INTO lines (id, record_id, product_id, quantity, done_quantity, damaged_quantity, lot_number, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    for (const l of lines) ins.run(++lineId, id, l.source.product_id, l.quantity, l.done_quantity, l.damaged_quantity ?? 0, l.source.lot_number, l.source.doc);
    return row;
  }

  stock(warehouse: number, company: string, product: number, lot: string | null): number {
    const row = this.s.stock.get(warehouse, company, product, lot ?? '') as { quantity: number } | undefined;
    return row?.quantity ?? 0;
  }

  /** Changes on-hand stock and records a move; refuses to go below zero. Returns the move id. */
  move(kind: string, warehouse: number, company: string, product: ProductRow, lot: string | null, quantity: number, recordId: number | null): number {
    if (quantity < 0) {
      const have = this.stock(warehouse, company, product.id, lot);
      if (have + quantity < 0) {
        throw new ItemError(`insufficient stock of ${product.code}${lot ? ` lot ${lot}` : ''} for company ${company} at warehouse ${warehouse}: ${have} on hand, ${-quantity} needed`);
      }
    }
    this.s.upsertStock.run(warehouse, company, product.id, lot ?? '', quantity);
    return Number(this.s.move.run(kind, warehouse, company, product.id, lot ?? '', quantity, recordId, this.now()).lastInsertRowid);
  }

  /**
   * Lot rules: in a warehouse with lot inventory, lot-tracked SKUs need a lot; in one without, lot fields are refused.
   * Returns the lot to book against ('' / null means no lot).
   */
  lotFor(warehouse: WarehouseRow, product: ProductRow, lot: string | undefined): string | null {
    if (warehouse.lot_inventory) {
      if (product.lot_tracked && !lot) throw new ItemError(`${product.code} is lot-tracked: lot_number is required`);
      return product.lot_tracked ? lot! : lot ?? null;
    }
    if (lot) throw new ItemError(`warehouse ${warehouse.id} does not have lot inventory enabled; remove lot_number for ${product.code}`);
    return null;
  }

  goods(code: string): ProductRow {
    const p = this.product(code);
    if (!p || p.type !== 'goods') throw new ItemError(`product ${code} not found`);
    return p;
  }
}
