import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../sqlite/migrations.js';

/*
 * The SQLite engine's migration of file events. What file events do is the behaviour suite's
 * (test/journal/behaviour.ts), run on both engines.
 */

describe('SQLite engine: file events', () => {
  it('migration 6 takes the events recorded before it as disposed (no old duplicate is "finished" again)', () => {
    const db = new Database(':memory:');
    for (const sql of MIGRATIONS.slice(0, 5)) db.exec(sql);
    db.prepare(`INSERT INTO file_events (drop_name, name, kind, original_file_id, reason, at) VALUES ('wms', 'KORR.csv', 'duplicate', NULL, 'x', '2026-11-01T00:00:00Z')`).run();
    db.exec(MIGRATIONS[5]!);
    expect(db.prepare('SELECT result_name, disposed_to FROM file_events').get()).toEqual({ result_name: null, disposed_to: 'unknown' });
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'file_events_name'`).pluck().get()).toBe('file_events_name');
    db.close();
  });
});
