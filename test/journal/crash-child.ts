/**
 * Child process for the crash and concurrency tests (test/journal/crash.test.ts), run with tsx.
 *   crash PATH   — commits batches, leaves one request sent, then loops inside one transaction until killed.
 *   writer PATH NAME BATCHES — writes batches and takes file sequence numbers, racing another connection;
 *     with BATCHES = peer it goes on (1 ms between requests) until the other process sets the cursor `peer-done`,
 *     then writes once more; it gives up after two minutes if the peer never finishes.
 * Progress goes to stdout with writeSync so the parent sees it before the next statement runs.
 */
import { writeSync } from 'node:fs';
import { openJournal } from '../../src/journal/journal.js';
import type { NewItem } from '../../src/journal/core/types.js';
import { testHooks } from '../../src/journal/testing.js';

const [mode, path, name = 'child.csv', batchesArg = '20'] = process.argv.slice(2);
const say = (line: string) => writeSync(1, `${line}\n`);
const item = (seq: number): NewItem => ({
  seq, endpoint: 'inventory.adjustments', docKey: `SKU-${seq}`, lines: [seq + 2], body: { product_code: `SKU-${seq}`, quantity: 1 },
});
const batch = (from: number, size: number) => Array.from({ length: size }, (_, i) => item(from + i));

const journal = await openJournal(path);
const { fileId } = await journal.claimFile({ drop: 'd', name, checksum: `sum-${name}`, size: 1, mapping: 'adjustments' });

if (mode === 'crash') {
  for (let b = 0; b < 3; b++) {
    const id = await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', batch(b * 100, 100));
    await journal.markSent(id);
    await journal.completeRequest(id, batch(b * 100, 100).map((i) => ({ seq: i.seq, status: 'ok' as const, result: { move_id: i.seq } })));
  }
  await journal.markSent(await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', batch(300, 100)));
  await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', batch(400, 100));
  say(`committed ${fileId}`);
  await journal.transaction(async (tx) => {
    let seq = 1000;
    await tx.addItems(fileId, batch(seq, 500));
    await tx.beginExport({ workType: 'customer-shipments', fileName: 'never.csv', records: [{ id: 1, number: 'SO-1' }] });
    await tx.setCursor('products', 'torn');
    say('in-transaction');
    for (;;) {
      seq += 500;
      await tx.addItems(fileId, batch(seq, 500));
    }
  });
} else if (mode === 'writer') {
  const untilPeer = batchesArg === 'peer';
  const batches = untilPeer ? Number.POSITIVE_INFINITY : Number(batchesArg);
  const giveUpAt = Date.now() + 120_000;
  const sequences: number[] = [];
  let last = false;
  for (let b = 0; b < batches && !last; b++) {
    last = untilPeer && (await journal.getCursor('peer-done')) !== null;
    if (Date.now() > giveUpAt) throw new Error('the peer never set peer-done');
    const id = await testHooks(journal).recordBatch(fileId, 'inventory.adjustments', batch(b * 50, 50));
    await journal.markSent(id);
    await journal.completeRequest(id, batch(b * 50, 50).map((i) => ({ seq: i.seq, status: 'ok' as const })));
    sequences.push(await journal.nextFileSequence('shared'));
    if (b === 0) say('writing');
    // A bridge's writer commits once per request and then waits on the network; a loop with no gap at all would
    // re-take the write lock the instant it drops it, and SQLite's busy handler (which sleeps, it does not queue)
    // could starve the other connection past busy_timeout on a loaded machine. One millisecond keeps both racing.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  say(JSON.stringify({ fileId, sequences, status: await journal.finishFile(fileId) }));
  await journal.close();
}
