import { mkdtempSync, rmSync, statSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './db.js';
import { SqlitePort } from './port.js';
import { WalSync } from './wal-sync.js';

/** A sync the test releases by hand: each call waits for its own `release` (or `fail`). */
function heldSyncs() {
  const calls: Array<{ file: FileHandle; release: () => void; fail: (error: Error) => void }> = [];
  const sync = (file: FileHandle) => new Promise<void>((release, fail) => calls.push({ file, release, fail }));
  return { calls, sync };
}

/** Whether `promise` has settled by the time the microtasks and I/O callbacks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => (done = true), () => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

const until = async (what: () => boolean) => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(what()).toBe(true);
};

describe('SQLite commits are durable before their Promise resolves, without holding the thread (WalSync)', () => {
  let dir: string;
  let db: Db;
  let wal: WalSync;
  afterEach(async () => {
    await wal?.close();
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A journal file with a table `t`; its sync is `sync`, or WalSync's own (fdatasync). */
  const open = (sync?: (file: FileHandle) => Promise<void>) => {
    dir = mkdtempSync(join(tmpdir(), 'wb-walsync-'));
    const path = join(dir, 'journal.db');
    db = openDatabase(path);
    db.exec('CREATE TABLE t (v INTEGER)');
    wal = sync ? new WalSync(`${path}-wal`, sync) : new WalSync(`${path}-wal`);
    return { path, port: new SqlitePort(db, () => wal.durable()) };
  };
  const count = () => (db.prepare('SELECT count(*) FROM t').pluck().get() as number);

  it('a unit of work resolves only once a sync of the log that started after its COMMIT returned; the next one commits meanwhile', async () => {
    const { calls, sync } = heldSyncs();
    const { path, port } = open(sync);
    const first = port.tx(async (tx) => tx.run('INSERT INTO t VALUES (1)'));
    await until(() => calls.length === 1);
    // Committed (another reader sees it) but not reported: nothing may act on it before it is on disk.
    expect(count()).toBe(1);
    expect(await settled(first)).toBe(false);
    // The sync is of the log itself.
    expect((await calls[0].file.stat()).ino).toBe(statSync(`${path}-wal`).ino);
    // The thread is not held: another unit of work commits while the first one's sync runs.
    const second = port.tx(async (tx) => tx.run('INSERT INTO t VALUES (2)'));
    await until(() => count() === 2);
    expect(await settled(second)).toBe(false);
    calls[0].release();
    await expect(first).resolves.toBe(1);
    // The second committed after the first sync started: it waits for a sync of its own.
    expect(await settled(second)).toBe(false);
    await until(() => calls.length === 2);
    calls[1].release();
    await expect(second).resolves.toBe(1);
  });

  it('commits made while a sync runs share the next one; a write outside a unit of work (run, or one returning rows) waits for its sync too', async () => {
    const { calls, sync } = heldSyncs();
    const { port } = open(sync);
    const first = port.run('INSERT INTO t VALUES (0)');
    await until(() => calls.length === 1);
    expect(await settled(first)).toBe(false);
    const more = [
      ...Array.from({ length: 4 }, (_, i) => port.tx(async (tx) => tx.run('INSERT INTO t VALUES (?)', [i + 1]))),
      port.run('INSERT INTO t VALUES (9)'),
    ];
    await until(() => count() === 6);
    calls[0].release();
    await first;
    await until(() => calls.length === 2);
    for (const p of more) expect(await settled(p)).toBe(false);
    calls[1].release();
    expect(await Promise.all(more)).toEqual([1, 1, 1, 1, 1]);
    expect(calls).toHaveLength(2);
    // A write that returns rows (INSERT … RETURNING) waits for its sync like any other.
    const returning = port.get<{ v: number }>('INSERT INTO t VALUES (7) RETURNING v');
    await until(() => calls.length === 3);
    expect(await settled(returning)).toBe(false);
    calls[2].release();
    expect(await returning).toEqual({ v: 7 });
    // A read does not wait for a sync.
    expect(await port.get<{ n: number }>('SELECT count(*) AS n FROM t')).toEqual({ n: 7 });
    expect(calls).toHaveLength(3);
  });

  it('a sync that fails fails the commits waiting on it and every later write, naming the log and what to do', async () => {
    const { calls, sync } = heldSyncs();
    const { path, port } = open(sync);
    const first = port.tx(async (tx) => tx.run('INSERT INTO t VALUES (1)'));
    await until(() => calls.length === 1);
    const queued = port.run('INSERT INTO t VALUES (2)');
    calls[0].fail(Object.assign(new Error('I/O error'), { code: 'EIO' }));
    const message = `the journal's write-ahead log ${path}-wal could not be synced to disk (EIO): the last commits may not be durable; `
      + 'stop the bridge, check the disk, and start it again (a file in flight resumes from what the journal holds)';
    await expect(first).rejects.toMatchObject({ code: 'JOURNAL', message });
    await expect(queued).rejects.toMatchObject({ code: 'JOURNAL', message });
    await expect(port.run('INSERT INTO t VALUES (3)')).rejects.toMatchObject({ code: 'JOURNAL', message });
    expect(calls).toHaveLength(1);
  });

  it('closes the log\'s descriptor only after the syncs asked for are done', async () => {
    const { calls, sync } = heldSyncs();
    const { port } = open(sync);
    const write = port.run('INSERT INTO t VALUES (1)');
    await until(() => calls.length === 1);
    const closing = wal.close();
    expect(await settled(closing)).toBe(false);
    calls[0].release();
    await write;
    await expect(closing).resolves.toBeUndefined();
  });

  it('syncs with fdatasync by default, and a reopened file holds every commit that resolved', async () => {
    const { path, port } = open();
    await Promise.all(Array.from({ length: 20 }, (_, i) => port.tx(async (tx) => tx.run('INSERT INTO t VALUES (?)', [i]))));
    expect(await port.get<{ n: number }>('SELECT count(*) AS n FROM t')).toEqual({ n: 20 });
    await wal.close();
    db.close();
    db = openDatabase(path);
    expect(count()).toBe(20);
  });
});
