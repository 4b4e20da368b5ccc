import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqlitePort } from './port.js';

describe('SqlitePort: a unit of work commits whole or not at all', () => {
  let db: Database.Database;
  let port: SqlitePort;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE t (name TEXT PRIMARY KEY)');
    port = new SqlitePort(db, async () => undefined);
  });
  afterEach(() => db.close());
  const names = () => (db.prepare('SELECT name FROM t ORDER BY name').all() as { name: string }[]).map((r) => r.name);

  it('a failed statement caught inside the unit still fails the unit, with its own error', async () => {
    await port.run('INSERT INTO t (name) VALUES (?)', ['a']);
    await expect(port.tx(async (t) => {
      await t.run('INSERT INTO t (name) VALUES (?)', ['b']);
      await t.run('INSERT INTO t (name) VALUES (?)', ['a']).catch(() => undefined);
      return 'went on';
    })).rejects.toThrow(/UNIQUE constraint failed: t\.name/);
    expect(names()).toEqual(['a']);
  });

  it('after a statement of the unit failed its later ones are refused: none lands on its own when the failure ended the transaction', async () => {
    await port.run('INSERT INTO t (name) VALUES (?)', ['a']);
    await expect(port.tx(async (t) => {
      await t.run('INSERT INTO t (name) VALUES (?)', ['b']);
      // Started together; OR ROLLBACK ends the transaction itself, as SQLITE_FULL may.
      const [, later] = await Promise.allSettled([
        t.run('INSERT OR ROLLBACK INTO t (name) VALUES (?)', ['a']),
        t.run('INSERT INTO t (name) VALUES (?)', ['c']),
      ]);
      expect(later.status).toBe('rejected');
    })).rejects.toThrow(/UNIQUE constraint failed: t\.name/);
    expect(names()).toEqual(['a']);
  });

  it('an INSERT OR FAIL that stops half-way leaves none of its rows, and neither does a nested unit that threw', async () => {
    await port.run('INSERT INTO t (name) VALUES (?)', ['c']);
    await expect(port.tx(async (t) => {
      await t.tx((inner) => inner.run('INSERT OR FAIL INTO t (name) VALUES (?), (?), (?)', ['a', 'b', 'c'])).catch(() => undefined);
      await t.run('INSERT INTO t (name) VALUES (?)', ['d']);
    })).rejects.toThrow(/UNIQUE constraint failed/);
    // 'a' and 'b' were inserted before the statement failed on 'c': the unit's rollback took them back.
    expect(names()).toEqual(['c']);
    // The port serves the next unit.
    await port.tx((t) => t.run('INSERT INTO t (name) VALUES (?)', ['e']));
    expect(names()).toEqual(['c', 'e']);
  });
});
