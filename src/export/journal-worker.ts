/**
 * The worker side of JournalThread (journal-writer.ts): its own connection to the journal (the engine opens it from
 * the journal's address), running the outbound journal's writes for large export files off the bridge's main thread.
 */
import { JournalTally, openJournal, type BeginExportInput, type ExportRecordInput, type InstanceInfo, type JournalAddress } from '../journal/index.js';
import { serveCalls, threadData } from '../runtime/worker-serve.js';

const tally = new JournalTally();
const { address, instance } = threadData() as { address: JournalAddress; instance?: InstanceInfo };
// The main thread's instance: the exports recorded here are owned by it, and their writes checked as its own.
const outbound = await openJournal(address, { cacheKiB: 2000, checkpointOnClose: false, maxConnections: 2, tally, instance });

/**
 * One call at a time, in the order they came, each answered once settled: an export's parts are recorded in the
 * order its file has them, and `close` waits for every call sent before it.
 */
let last: Promise<unknown> = Promise.resolve();
function inOrder<A extends unknown[], R>(fn: (...args: A) => Promise<R> | R): (...args: A) => Promise<R> {
  return (...args) => {
    const result = last.then(() => fn(...args));
    last = result.catch(() => undefined);
    return result;
  };
}

// Records arrive as JSON text (see JournalThread).
serveCalls({
  begin: inOrder((input: BeginExportInput & { records: string }) =>
    outbound.beginExport({ ...input, records: JSON.parse(input.records) as ExportRecordInput[] })),
  add: inOrder((exportId: number, records: string, options: { repeatable?: boolean }) =>
    outbound.addExportRecords(exportId, JSON.parse(records) as ExportRecordInput[], options)),
  stage: inOrder((exportId: number, stagedName: string) => outbound.stageExport(exportId, stagedName)),
  markWritten: inOrder((exportId: number) => outbound.markExportWritten(exportId)),
  // What the thread's connection spent committing and syncing: the main thread adds it to the process's tally.
  close: inOrder(async () => {
    await outbound.close();
    return tally.snapshot();
  }),
});
