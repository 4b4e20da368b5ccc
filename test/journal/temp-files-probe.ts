/**
 * Child of sqlite-files.test.ts, watching the journal's folder for SQLite's temporary files (created and unlinked at
 * once; inotify still sees them). Prints `{"tempDirectory": …, "created": […], "ok": …}`: the process's temporary
 * folder, the temporary files created in the journal's folder and (`units`) the items stored ok. Modes:
 * - `savepoint`: opens a journal file with openDatabase (the process's first) and commits a unit whose savepoint
 *   outgrows SQLite's 64 KiB in-memory statement journal;
 * - `units`: opens a journal and commits units of work shaped like the inbound flow's (each records three requests of 100
 *   items with their search index and stores the outcomes of the three before: two all ok with a result each, packed
 *   together, one item by item; every call a unit nested in the unit).
 */
import { watch } from 'node:fs';
import { dirname } from 'node:path';
import { openJournal, packOkOutcomes } from '../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes } from '../../src/journal/test-support.js';
import { openDatabase } from '../../src/journal/sqlite/db.js';
import { testHooks } from '../../src/journal/testing.js';

const [file, mode] = process.argv.slice(2);
const folder = dirname(file);
const created: string[] = [];
const watcher = watch(folder, (_event, name) => {
  if (name?.startsWith('etilqs_') && !created.includes(name)) created.push(name);
});
let tempDirectory: unknown;
let ok: number | undefined;
if (mode === 'units') {
  const journal = await openJournal(file);
  const { fileId } = await journal.claimFile(claimInput('NIGHT.csv', 'c-night'));
  let previous: Array<{ id: number; seqs: number[] }> = [];
  const request = (first: number) => {
    const seqs = Array.from({ length: 100 }, (_, i) => first + i);
    return { seqs, items: seqs.map((seq) => adjustment(seq, { body: { product_code: `SKU-${seq}`, quantity: seq, reference: `R-${seq}`.padEnd(60, '.') } })) };
  };
  for (let unit = 0; unit < 60; unit++) {
    const next = [request(unit * 300), request(unit * 300 + 100), request(unit * 300 + 200)];
    const [packed, other, given] = previous;
    const allOk = (done: { id: number; seqs: number[] }) => ({
      requestId: done.id, outcomes: packOkOutcomes(done.seqs.map((seq) => ({ seq, status: 'ok', result: { move_id: seq, note: 'moved' } })))!,
    });
    previous = await journal.transaction(async (tx) => {
      if (packed) await tx.completeRequests([allOk(packed), allOk(other)]);
      if (given) await tx.completeRequest(given.id, okOutcomes(given.seqs));
      const ids: Array<{ id: number; seqs: number[] }> = [];
      for (const { seqs, items } of next) ids.push({ id: await testHooks(tx).recordBatch(fileId, 'inventory.adjustments', items, { sent: true }), seqs });
      return ids;
    });
  }
  ok = (await journal.fileSummary(fileId)).ok;
  await journal.close();
} else {
  const db = openDatabase(file);
  db.exec('CREATE TABLE scratch (v TEXT)');
  const insert = db.prepare('INSERT INTO scratch VALUES (?)');
  db.exec('BEGIN IMMEDIATE');
  for (let i = 0; i < 300; i++) insert.run('x'.repeat(1000));
  // ~75 pages that existed when the savepoint began: each is copied to the statement journal before it changes.
  db.exec('SAVEPOINT nested');
  db.exec("UPDATE scratch SET v = v || 'y'");
  db.exec('RELEASE nested');
  db.exec('COMMIT');
  tempDirectory = db.pragma('temp_store_directory', { simple: true });
  db.close();
}
await new Promise((resolve) => setTimeout(resolve, 200));
watcher.close();
console.log(JSON.stringify({ tempDirectory, created, ok }));
