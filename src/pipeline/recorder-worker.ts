/**
 * The worker side of RecorderThread (recorder-thread.ts): its own connection to the journal file, committing a
 * file's requests and outcomes off the bridge's main thread, through the same applyUnit as the inline recorder.
 */
import { openJournal, type NewItem } from '../journal/index.js';
import { silentLogger } from '../log.js';
import { serveCalls, threadData } from '../runtime/worker-serve.js';
import { applyUnit, type NewRequest, type StoredOutcome } from './completions.js';

// It appends: a small page cache is enough (every MB of it is resident beside the main connection's), and the main
// thread's connection stays open and checkpoints when it closes.
const journal = openJournal((threadData() as { path: string }).path, { cacheKiB: 2000, checkpointOnClose: false });

// Units arrive packed and as JSON text (see RecorderThread); confirmations are logged by the main thread from the count returned.
serveCalls({
  commit: (fileId: number, packed: StoredOutcome[], single: string, extra: string, request?: NewRequest) =>
    applyUnit(journal, silentLogger, {
      fileId,
      stores: [...packed, ...(JSON.parse(single) as StoredOutcome[])],
      extra: JSON.parse(extra) as NewItem[],
      request,
    }),
  close: () => journal.close(),
});
