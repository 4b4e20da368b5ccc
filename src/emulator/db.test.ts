import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from './db.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('emulator state files', () => {
  it('a file written when adjustments had a table of their own opens with each adjustment on its move row', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wisbridge-emulator-db-'));
    dirs.push(dir);
    const file = join(dir, 'state.db');
    const old = new Database(file);
    old.exec(`CREATE TABLE moves (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, warehouse_id INTEGER NOT NULL, company_code TEXT NOT NULL,
        product_id INTEGER NOT NULL, lot_number TEXT NOT NULL, quantity REAL NOT NULL, record_id INTEGER, created_at TEXT NOT NULL);
      CREATE TABLE adjustments (id INTEGER PRIMARY KEY, move_id INTEGER NOT NULL, warehouse_id INTEGER NOT NULL, company_code TEXT NOT NULL,
        product_code TEXT NOT NULL, lot_number TEXT, quantity REAL NOT NULL, reason TEXT, reference TEXT, date TEXT, created_at TEXT NOT NULL);
      INSERT INTO moves VALUES (5, 'adjustment', 1, 'ACME', 1, '', 3, NULL, 't'), (6, 'ship', 1, 'ACME', 1, '', -1, 9, 't');
      INSERT INTO adjustments VALUES (1, 5, 1, 'ACME', 'SKU-00001', NULL, 3, 'found', 'R-1', '2026-11-01', 't');`);
    old.close();
    const db = openDb(file);
    try {
      expect(db.prepare('SELECT id, kind, product_code, reason, reference, date FROM moves ORDER BY id').all()).toEqual([
        { id: 5, kind: 'adjustment', product_code: 'SKU-00001', reason: 'found', reference: 'R-1', date: '2026-11-01' },
        { id: 6, kind: 'ship', product_code: null, reason: null, reference: null, date: null },
      ]);
    } finally {
      db.close();
    }
  });
});
