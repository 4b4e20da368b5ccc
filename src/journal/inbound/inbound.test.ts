import Database from 'better-sqlite3';
import { readlinkSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { openJournal, SCHEMA_VERSION, type Journal } from '../index.js';
import { adjustment, claimInput, useTestJournal, type TempDir, rawDatabase } from '../test-support.js';

/*
 * The SQLite engine's own guarantees when it opens and closes a journal file. What the journal does is the behaviour
 * suite's (test/journal/behaviour.ts), run on both engines.
 */

let tmp: TempDir;
let journal: Journal;
useTestJournal((j, t) => {
  journal = j;
  tmp = t;
});

describe('SQLite engine: opening', () => {
  it('sets WAL, synchronous=NORMAL (WalSync syncs each commit), foreign keys and a busy timeout, and records the schema version', () => {
    expect(rawDatabase(journal).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(rawDatabase(journal).pragma('synchronous', { simple: true })).toBe(1);
    expect(rawDatabase(journal).pragma('foreign_keys', { simple: true })).toBe(1);
    expect(rawDatabase(journal).pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(5000);
    expect(journal.schemaVersion).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
  });

  it('reopens without migrating again and refuses a journal from a newer bridge', async () => {
    await journal.close();
    journal = await openJournal(tmp.path);
    const versions = rawDatabase(journal).prepare('SELECT count(*) FROM schema_version').pluck().get();
    expect(versions).toBe(SCHEMA_VERSION);
    await journal.close();
    const raw = new Database(tmp.path);
    raw.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(SCHEMA_VERSION + 1, 'x');
    raw.close();
    await expect(openJournal(tmp.path)).rejects.toThrow(`the journal has schema version ${SCHEMA_VERSION + 1}, newer than this bridge (${SCHEMA_VERSION}): `
      + 'upgrade wisbridge, or point it at a journal of its own version (a journal is never migrated backwards)');
    journal = await openJournal(`${tmp.path}.other`);
  });

  it('resolves a write only after an fdatasync of its WAL file (WalSync), which it waits for', async () => {
    const handle = await open(tmp.path, 'r');
    const fileHandle = Object.getPrototypeOf(handle) as { datasync(this: FileHandle): Promise<void> };
    await handle.close();
    const datasync = fileHandle.datasync;
    const synced: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reached!: () => void;
    const syncing = new Promise<void>((r) => (reached = r));
    fileHandle.datasync = async function heldDatasync(this: FileHandle) {
      reached();
      await held;
      await datasync.call(this);
      synced.push(readlinkSync(`/proc/self/fd/${this.fd}`));
    };
    try {
      let resolved = false;
      const claim = journal.claimFile(claimInput('synced.csv', 'c-synced')).then((c) => ((resolved = true), c));
      // The write has reached its sync, which is held: it must not resolve before the sync ends, not even a turn of
      // the event loop later (a write that did not wait for its sync resolves in that turn).
      await syncing;
      await new Promise((r) => setImmediate(r));
      expect(resolved).toBe(false);
      release();
      expect((await claim).status).toBe('new');
      expect(synced).toEqual([`${tmp.path}-wal`]);
    } finally {
      fileHandle.datasync = datasync;
    }
  });

  it('checkpoints the WAL on close', async () => {
    const { fileId } = await journal.claimFile(claimInput('a.csv', 'c1'));
    await journal.addItems(fileId, [adjustment(0)]);
    await journal.close();
    const raw = new Database(tmp.path);
    expect(raw.prepare('SELECT count(*) FROM items').pluck().get()).toBe(1);
    raw.close();
    journal = await openJournal(tmp.path);
  });
});
