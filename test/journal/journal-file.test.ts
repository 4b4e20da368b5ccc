import { copyFileSync, existsSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isWisbridgeError } from '../../src/errors.js';
import { openJournal, type Journal } from '../../src/journal/index.js';
import { tempDir } from '../../src/journal/test-support.js';

let tmp: ReturnType<typeof tempDir>;
let journal: Journal | undefined;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  await journal?.close();
  journal = undefined;
  tmp.remove();
});

const claim = (j: Journal, name: string) => j.claimFile({ drop: 'in', name, checksum: `sum-${name}`, size: 1, mapping: 'm' });

it('a journal file deleted under a running bridge takes no more writes, says how to put it back, and put back that way it lacks nothing', async () => {
  journal = await openJournal(tmp.path);
  const first = await claim(journal, 'A.csv');
  unlinkSync(tmp.path);

  const refused = await claim(journal, 'B.csv').catch((error: unknown) => error);
  expect(isWisbridgeError(refused, 'JOURNAL')).toBe(true);
  const message = (refused as Error).message;
  expect(message).toContain(`the journal ${tmp.path} was deleted or moved while this process had it open: nothing more is written to it`);
  // What the message says to do, done: the file as the process holds it, copied back while it runs.
  const held = /copy (\/proc\/\d+\/fd\/\d+) \(the file as this process holds it\) to /.exec(message)?.[1];
  expect(held).toBeDefined();
  copyFileSync(held!, tmp.path);
  await journal.close();
  journal = await openJournal(tmp.path);
  // The claim made before the deletion is there (its frames were still in the write-ahead log): claimed again, the
  // file is resumed, not new; and writes go on.
  expect(first.status).toBe('new');
  expect(await claim(journal, 'A.csv')).toMatchObject({ status: 'resume', fileId: first.fileId });
  expect((await claim(journal, 'B.csv')).status).toBe('new');
});

it('a journal file replaced under a running bridge (a backup copied over it) takes no more writes', async () => {
  journal = await openJournal(tmp.path);
  const { fileId } = await claim(journal, 'A.csv');
  copyFileSync(tmp.path, `${tmp.path}.copy`);
  renameSync(`${tmp.path}.copy`, tmp.path);
  const refused = await claim(journal, 'B.csv').catch((error: unknown) => error);
  expect(isWisbridgeError(refused, 'JOURNAL')).toBe(true);
  expect((refused as Error).message).toContain('was replaced by another file while this process had it open');
  // Reads still answer from the file the process holds.
  expect((await journal.getFile(fileId)).name).toBe('A.csv');
});

it('a journal file missing where its working folder says there was one (deleted or moved while the bridge was down) is not replaced by an empty one', async () => {
  journal = await openJournal(tmp.path);
  await claim(journal, 'A.csv');
  await journal.close();
  journal = undefined;
  // The working folder is marked when the journal is opened, small files or not.
  expect(existsSync(`${tmp.path}.snapshots/journal-was-here`)).toBe(true);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${tmp.path}${suffix}`, { force: true });

  const refused = await openJournal(tmp.path).catch((error: unknown) => error);
  expect(isWisbridgeError(refused, 'JOURNAL')).toBe(true);
  expect((refused as Error).message).toBe(`the journal ${tmp.path} is missing, but ${tmp.path}.snapshots/journal-was-here says there was one: the journal was deleted `
    + 'or moved, and a new, empty one would take every file processed before as new (and apply it again if it is dropped again). Put the journal back '
    + `(from a backup), or, to start a new journal on purpose, remove ${tmp.path}.snapshots too`);
  expect(existsSync(tmp.path)).toBe(false);

  // Removing the working folder too is how an operator starts a new journal on purpose.
  rmSync(`${tmp.path}.snapshots`, { recursive: true });
  journal = await openJournal(tmp.path);
  expect((await claim(journal, 'A.csv')).status).toBe('new');
});
