import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Journal } from './index.js';
import { MIGRATIONS } from './sqlite/migrations.js';
import { claimInput, useTestJournal } from './test-support.js';

let journal: Journal;
useTestJournal((j) => (journal = j));

describe('file events: duplicates are recorded, finished and found again after a crash', () => {
  it('a duplicate is unfinished until its disposition is recorded; a file rejected unread never is', async () => {
    const { fileId } = (await journal.claimFile(claimInput('KORR.csv', 'c1'))) as { fileId: number };
    const recorded = await journal.recordFileEvent({ drop: 'wms', name: 'KORR.csv', kind: 'duplicate', originalFileId: fileId, reason: 'same bytes', resultName: 'KORR.1.result.csv' });
    const id = recorded.eventId;
    await journal.recordFileEvent({ drop: 'wms', name: 'BAD.csv', kind: 'rejected', reason: 'FILE_NAME' });
    expect((await journal.fileEventsNamed('KORR.csv'))[0]).toEqual(recorded);
    expect(recorded).toMatchObject({ kind: 'duplicate', resultName: 'KORR.1.result.csv', disposedTo: null });
    expect((await journal.fileEventsNamed('BAD.csv'))[0]).toMatchObject({ kind: 'rejected', disposedTo: 'unknown' });
    expect((await journal.unfinishedDuplicate('wms', 'KORR.csv', fileId))?.eventId).toBe(id);
    expect(await journal.unfinishedDuplicate('other-drop', 'KORR.csv', fileId)).toBeUndefined();
    expect(await journal.unfinishedDuplicate('wms', 'KORR.csv', fileId + 1)).toBeUndefined();
    await journal.recordEventDisposition(id, 'archive/KORR.1.csv');
    expect(await journal.unfinishedDuplicate('wms', 'KORR.csv', fileId)).toBeUndefined();
    expect((await journal.fileEventsNamed('KORR.csv'))[0].disposedTo).toBe('archive/KORR.1.csv');
  });

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
