/**
 * The worker side of BatchesThread (batches-thread.ts): reads the file's private copy, maps it and records its
 * requests on its own connection to the journal, through the same FileBatches and applyUnit as the main thread.
 */
import { createReadStream } from 'node:fs';
import { freshState, JournalTally, openJournal, type Journal } from '../journal/index.js';
import { silentLogger } from '../log.js';
import { compileMapping, type ReferenceKind, type ReferenceIds } from '../mapping/index.js';
import { callMain, serveCalls, threadData } from '../runtime/worker-serve.js';
import type { ThreadData } from './batches-thread.js';
import { applyUnit } from './completions.js';
import { FileBatches, type FileStep, type StoredOutcome } from './file-batches.js';

// It appends: a small page cache is enough (every MB of it is resident beside the main connection's), and the main
// thread's connection stays open and checkpoints when it closes.
const journalOptions = { cacheKiB: 2000, checkpointOnClose: false, maxConnections: 2 } as const;
const referenceIds: ReferenceIds = {
  idsOf: async (kind: ReferenceKind, keys: readonly string[]) => (await callMain('idsOf', [kind, keys])) as ReadonlyMap<string, number>,
};

interface OpenFile {
  journal: Journal;
  tally: JournalTally;
  batches: FileBatches;
}
let file: OpenFile | undefined;

async function open(data: ThreadData): Promise<void> {
  const tally = new JournalTally();
  const journal = await openJournal(data.journalAddress, { ...journalOptions, tally, ...data.lease });
  const batches = new FileBatches({
    fileId: data.fileId,
    fileName: data.fileName,
    source: createReadStream(data.snapshotPath),
    mapping: compileMapping(data.mapping.definition, data.mapping.name, data.mapping.file),
    referenceIds,
    state: data.fresh ? freshState(data.fileId) : await journal.resumeState(data.fileId),
    requestSize: data.requestSize,
    warehouse: data.warehouse,
    x12Verdicts: data.x12Verdicts,
    x12Share: data.x12Share,
    // Confirmations are logged by the main thread from the count returned.
    commit: (unit) => applyUnit(journal, silentLogger, unit),
    mapAhead: true,
  });
  file = { journal, tally, batches };
}

/** Closes the file and the thread's connection; what the connection spent committing and syncing goes to the main thread's tally. */
async function release() {
  const closing = file;
  file = undefined;
  if (!closing) return undefined;
  await closing.batches.close();
  await closing.journal.close();
  return closing.tally.snapshot();
}

function opened(): FileBatches {
  if (!file) throw new Error('no file is open on this thread');
  return file.batches;
}

await open(threadData() as ThreadData);

const stores = (packed: StoredOutcome[], single: string): StoredOutcome[] => (single === '[]' ? packed : [...packed, ...(JSON.parse(single) as StoredOutcome[])]);

serveCalls({
  // Mapped ahead, a request carries no documents: the main thread rebuilds them from the texts the journal stored
  // (cheaper than cloning them).
  next: (packed: StoredOutcome[], single: string, stop: boolean, most: number): Promise<FileStep> => opened().next(stores(packed, single), stop, most),
  store: (packed: StoredOutcome[], single: string) => opened().store(stores(packed, single)),
  finish: () => opened().finish(),
  // Another file on the same thread (its modules are loaded once): the one open is released first.
  open: async (data: ThreadData) => {
    const closed = await release();
    await open(data);
    return closed;
  },
  release,
  close: release,
});
