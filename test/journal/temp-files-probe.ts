/**
 * Child of sqlite-files.test.ts: opens a journal file with openDatabase (the process's first), then commits a unit
 * whose nested part outgrows SQLite's 64 KiB in-memory statement journal, watching the journal's folder. Prints
 * `{"tempDirectory": …, "created": […]}`: the process's temporary folder and the SQLite temporary files created in
 * the journal's folder (created and unlinked at once; inotify still sees them).
 */
import { watch } from 'node:fs';
import { dirname } from 'node:path';
import { openDatabase } from '../../src/journal/sqlite/db.js';

const file = process.argv[2];
const folder = dirname(file);
const created: string[] = [];
const watcher = watch(folder, (_event, name) => {
  if (name?.startsWith('etilqs_') && !created.includes(name)) created.push(name);
});
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
const tempDirectory = db.pragma('temp_store_directory', { simple: true });
db.close();
await new Promise((resolve) => setTimeout(resolve, 200));
watcher.close();
console.log(JSON.stringify({ tempDirectory, created }));
