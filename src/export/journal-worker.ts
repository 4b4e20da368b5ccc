/**
 * The worker side of JournalThread (journal-writer.ts): its own connection to the journal file, running the
 * outbound journal's writes for large export files off the bridge's main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isWisbridgeError } from '../errors.js';
import { openDatabase } from '../journal/db.js';
import { createOutbound } from '../journal/outbound.js';

export interface JournalCall {
  id: number;
  op: 'begin' | 'add' | 'markRecords' | 'markWritten' | 'close';
  args: unknown[];
}
export type JournalReply =
  | { id: number; result: unknown }
  | { id: number; error: { code?: string; message: string; details?: Record<string, unknown> } };

const port = parentPort!;
const db = openDatabase((workerData as { path: string }).path);
const outbound = createOutbound(db, () => new Date().toISOString());

function run(call: JournalCall): unknown {
  const a = call.args as never[];
  switch (call.op) {
    case 'begin': {
      const input = a[0] as { records: string };
      return outbound.beginExport({ ...input, records: JSON.parse(input.records) } as never);
    }
    case 'add':
      return outbound.addExportRecords(a[0], JSON.parse(a[1]) as never, a[2]);
    case 'markRecords':
      return outbound.markExportRecordsWritten(a[0], a[1], a[2]);
    case 'markWritten':
      return outbound.markExportWritten(a[0]);
    case 'close':
      db.close();
      return undefined;
  }
}

port.on('message', (call: JournalCall) => {
  let reply: JournalReply;
  try {
    reply = { id: call.id, result: run(call) };
  } catch (error) {
    reply = isWisbridgeError(error)
      ? { id: call.id, error: { code: error.code, message: error.message, details: error.details } }
      : { id: call.id, error: { message: error instanceof Error ? error.message : String(error) } };
  }
  port.postMessage(reply);
  if (call.op === 'close') port.close();
});
port.postMessage({ id: 0, result: 'ready' } satisfies JournalReply);
