import Database from 'better-sqlite3';

export type Db = Database.Database;

/** The five listed families share one `records` table; `family` tells them apart and ids are global. */
export const FAMILIES = ['customer_shipments', 'outbound_transfers', 'inbound_transfers', 'supplier_shipments', 'customer_return_shipments'] as const;
export type Family = (typeof FAMILIES)[number];

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS warehouses (
  id INTEGER PRIMARY KEY, code TEXT NOT NULL, name TEXT NOT NULL, lot_inventory INTEGER NOT NULL,
  companies TEXT NOT NULL, default_company TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS products (
  id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, type TEXT NOT NULL,
  lot_tracked INTEGER NOT NULL, serial_tracked INTEGER NOT NULL, updated_at TEXT NOT NULL, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inventory (
  warehouse_id INTEGER NOT NULL, company_code TEXT NOT NULL, product_id INTEGER NOT NULL, lot_number TEXT NOT NULL,
  quantity REAL NOT NULL, PRIMARY KEY (warehouse_id, company_code, product_id, lot_number)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
  id INTEGER PRIMARY KEY, family TEXT NOT NULL, number TEXT NOT NULL, warehouse_id INTEGER NOT NULL,
  company_code TEXT NOT NULL, state TEXT NOT NULL, list_status TEXT NOT NULL, planned_date TEXT NOT NULL,
  updated_at TEXT NOT NULL, carrier_code TEXT NOT NULL, service_code TEXT NOT NULL, acknowledged_at TEXT,
  shipped_at TEXT, picking_status TEXT, tpl_status TEXT, tpl_error TEXT, origin_id INTEGER, origin_kind TEXT,
  tracking TEXT NOT NULL DEFAULT '[]', doc TEXT NOT NULL, rendered TEXT);
CREATE TABLE IF NOT EXISTS lines (
  id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL, product_id INTEGER NOT NULL, quantity REAL NOT NULL,
  done_quantity REAL NOT NULL DEFAULT 0, damaged_quantity REAL NOT NULL DEFAULT 0, lot_number TEXT, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS packages (
  id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL, sscc TEXT NOT NULL, tracking_number TEXT, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS moves (
  id INTEGER PRIMARY KEY, kind TEXT NOT NULL, warehouse_id INTEGER NOT NULL, company_code TEXT NOT NULL,
  product_id INTEGER NOT NULL, lot_number TEXT NOT NULL, quantity REAL NOT NULL, record_id INTEGER, created_at TEXT NOT NULL,
  product_code TEXT, reason TEXT, reference TEXT, date TEXT);
CREATE TABLE IF NOT EXISTS writes (
  id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL, endpoint TEXT NOT NULL, item TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS counts (
  id INTEGER PRIMARY KEY, number TEXT NOT NULL, warehouse_id INTEGER NOT NULL, company_code TEXT NOT NULL,
  date TEXT NOT NULL, reason TEXT NOT NULL, reference TEXT, items TEXT NOT NULL, created_at TEXT NOT NULL);
`;

/** Secondary indexes: dropped while the seed bulk-loads (building them once is faster than maintaining them per row). */
export const INDEXES = [
  'CREATE INDEX IF NOT EXISTS products_type_id ON products (type, id)',
  'CREATE INDEX IF NOT EXISTS products_type_updated ON products (type, updated_at)',
  'CREATE INDEX IF NOT EXISTS records_list ON records (family, warehouse_id, list_status, id)',
  'CREATE INDEX IF NOT EXISTS records_number ON records (family, number)',
  'CREATE INDEX IF NOT EXISTS records_updated ON records (family, warehouse_id, updated_at)',
  'CREATE INDEX IF NOT EXISTS records_origin ON records (origin_id)',
  'CREATE INDEX IF NOT EXISTS lines_record ON lines (record_id)',
  'CREATE INDEX IF NOT EXISTS packages_record ON packages (record_id)',
  'CREATE INDEX IF NOT EXISTS writes_record ON writes (record_id)',
];

/**
 * `records.rendered` holds a record's list JSON (lines included), rendered by the seed. Any write that changes what
 * a record lists as — its columns, its lines, a product or warehouse it names — clears it, whatever code path
 * writes; a cleared record is rendered on the fly by the list query (lists.ts).
 */
const RECORD_COLUMNS = 'family, number, warehouse_id, company_code, state, list_status, planned_date, updated_at, carrier_code, service_code, acknowledged_at, shipped_at, picking_status, tpl_status, tpl_error, origin_id, origin_kind, tracking, doc';
export const TRIGGERS = [
  `CREATE TRIGGER IF NOT EXISTS records_rendered_insert AFTER INSERT ON records WHEN new.rendered IS NOT NULL
    BEGIN UPDATE records SET rendered = NULL WHERE id = new.id; END`,
  `CREATE TRIGGER IF NOT EXISTS records_rendered_update AFTER UPDATE OF id, ${RECORD_COLUMNS} ON records WHEN new.rendered IS NOT NULL
    BEGIN UPDATE records SET rendered = NULL WHERE id = new.id; END`,
  `CREATE TRIGGER IF NOT EXISTS lines_rendered_insert AFTER INSERT ON lines
    BEGIN UPDATE records SET rendered = NULL WHERE id = new.record_id AND rendered IS NOT NULL; END`,
  `CREATE TRIGGER IF NOT EXISTS lines_rendered_update AFTER UPDATE ON lines
    BEGIN UPDATE records SET rendered = NULL WHERE id IN (old.record_id, new.record_id) AND rendered IS NOT NULL; END`,
  `CREATE TRIGGER IF NOT EXISTS lines_rendered_delete AFTER DELETE ON lines
    BEGIN UPDATE records SET rendered = NULL WHERE id = old.record_id AND rendered IS NOT NULL; END`,
  `CREATE TRIGGER IF NOT EXISTS products_rendered_update AFTER UPDATE OF id, code, name ON products
    WHEN old.id IS NOT new.id OR old.code IS NOT new.code OR old.name IS NOT new.name
    BEGIN UPDATE records SET rendered = NULL WHERE id IN (SELECT record_id FROM lines WHERE product_id IN (old.id, new.id)) AND rendered IS NOT NULL; END`,
  `CREATE TRIGGER IF NOT EXISTS warehouses_rendered_update AFTER UPDATE ON warehouses
    BEGIN UPDATE records SET rendered = NULL WHERE warehouse_id IN (old.id, new.id) AND rendered IS NOT NULL; END`,
  `CREATE TRIGGER IF NOT EXISTS warehouses_rendered_delete AFTER DELETE ON warehouses
    BEGIN UPDATE records SET rendered = NULL WHERE warehouse_id = old.id AND rendered IS NOT NULL; END`,
];

const TABLES = ['meta', 'warehouses', 'products', 'inventory', 'records', 'lines', 'packages', 'moves', 'counts', 'writes'];

export function openDb(file: string): Db {
  const db = new Database(file);
  if (file !== ':memory:') {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
  }
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  // state files written before the rendered column existed: the column starts empty (rendered on the fly)
  if (!(db.prepare('PRAGMA table_info(records)').all() as { name: string }[]).some((c) => c.name === 'rendered')) {
    db.exec('ALTER TABLE records ADD COLUMN rendered TEXT');
  }
  // state files written when adjustments had a table of their own (one row per adjustment now: its move)
  if (!(db.prepare('PRAGMA table_info(moves)').all() as { name: string }[]).some((c) => c.name === 'reason')) {
    db.exec('ALTER TABLE moves ADD COLUMN product_code TEXT; ALTER TABLE moves ADD COLUMN reason TEXT; ALTER TABLE moves ADD COLUMN reference TEXT; ALTER TABLE moves ADD COLUMN date TEXT');
    db.exec(`UPDATE moves SET (product_code, reason, reference, date) = (SELECT product_code, reason, reference, date FROM adjustments a WHERE a.move_id = moves.id)
      WHERE kind = 'adjustment'`);
  }
  createIndexes(db);
  createTriggers(db);
  return db;
}

export function createTriggers(db: Db): void {
  for (const sql of TRIGGERS) db.exec(sql);
}
/** Dropped while the seed bulk-loads: it renders every record once at the end instead. */
export function dropTriggers(db: Db): void {
  for (const sql of TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${/EXISTS (\w+)/.exec(sql)![1]}`);
}

export function createIndexes(db: Db): void {
  for (const sql of INDEXES) db.exec(sql);
}
export function dropIndexes(db: Db): void {
  for (const sql of INDEXES) db.exec(`DROP INDEX IF EXISTS ${/EXISTS (\w+)/.exec(sql)![1]}`);
}

export function clearDb(db: Db): void {
  for (const t of TABLES) db.exec(`DELETE FROM ${t}`);
}

export function getMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}
export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** Listing status of a record from its internal state (the mapping of the interface's "Meaning of listing statuses"). */
export function listStatus(family: Family, state: string, acknowledged: boolean): string {
  const waiting = acknowledged ? 'open' : 'pending';
  switch (family) {
    case 'customer_shipments':
    case 'outbound_transfers':
      return state === 'assigned' ? waiting : state === 'shipped' ? 'done' : state;
    case 'inbound_transfers':
      return state === 'shipped' ? waiting : state;
    case 'supplier_shipments':
      return state === 'inbound' ? waiting : state === 'received' ? 'done' : state;
    case 'customer_return_shipments':
      return state === 'draft' ? waiting : state === 'received' || state === 'done' ? 'done' : state;
  }
}
