/**
 * The worker side of JournalThread (journal-writer.ts): its own connection to the journal file, running the
 * outbound journal's writes for large export files off the bridge's main thread.
 */
import { openDatabase } from '../journal/db.js';
import type { BeginExportInput, ExportRecordInput } from '../journal/index.js';
import { createOutbound } from '../journal/outbound.js';
import { serveCalls, threadData } from '../runtime/worker-serve.js';

const db = openDatabase((threadData() as { path: string }).path);
const outbound = createOutbound(db, () => new Date().toISOString());

// Records arrive as JSON text (see JournalThread).
serveCalls({
  begin: (input: BeginExportInput & { records: string }) => outbound.beginExport({ ...input, records: JSON.parse(input.records) as ExportRecordInput[] }),
  add: (exportId: number, records: string, options: { repeatable?: boolean }) => outbound.addExportRecords(exportId, JSON.parse(records) as ExportRecordInput[], options),
  markWritten: (exportId: number) => outbound.markExportWritten(exportId),
  close: () => db.close(),
});
