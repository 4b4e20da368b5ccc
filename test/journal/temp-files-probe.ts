/**
 * Child of sqlite-files.test.ts, watching the journal's folder for SQLite's temporary files (created and unlinked at
 * once; inotify still sees them). Prints `{"tempDirectory": …, "created": […], "ok": …}`: the process's temporary
 * folder, the temporary files created in the journal's folder and (`units`) the items stored ok. Modes:
 * - `savepoint`: opens a journal file with openDatabase (the process's first) and commits a unit whose savepoint
 *   outgrows SQLite's 64 KiB in-memory statement journal;
 * - `units`: opens a journal and commits units of work shaped like the inbound flow's (each records a request of 100
 *   items with their search index and stores the outcomes of the one before, every call a unit nested in the unit).
 */
import { watch } from 'node:fs';
import { dirname } from 'node:path';
import { openJournal } from '../../src/journal/index.js';
import { adjustment, claimInput, okOutcomes } from '../../src/journal/test-support.js';
import { openDatabase } from '../../src/journal/sqlite/db.js';

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
  let previous: { id: number; seqs: number[] } | undefined;
  for (let unit = 0; unit < 60; unit++) {
    const seqs = Array.from({ length: 100 }, (_, i) => unit * 100 + i);
    const items = seqs.map((seq) => adjustment(seq, { body: { product_code: `SKU-${seq}`, quantity: seq, reference: `R-${seq}`.padEnd(60, '.') } }));
    const done = previous;
    const id = await journal.transaction(async (tx) => {
      if (done) await tx.completeRequest(done.id, okOutcomes(done.seqs));
      return tx.recordBatch(fileId, 'inventory.adjustments', items, { sent: true });
    });
    previous = { id, seqs };
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
