/** The worker side of WorkerThread (worker-thread.ts): calls by operation name, answered in order of arrival. */
import { parentPort, workerData } from 'node:worker_threads';
import { isWisbridgeError, type ErrorDetails } from '../errors.js';

export interface WorkerCall {
  id: number;
  op: string;
  args: unknown[];
}
export type WorkerReply =
  | { id: number; result: unknown }
  | { id: number; error: { code?: string; message: string; details?: ErrorDetails } };

/** What the main thread gave its WorkerThread as `data`. */
export const threadData = (): unknown => (workerData as { data: unknown }).data;

/**
 * Serves the main thread's calls with `handlers` until it sends `close` (which runs `handlers.close`, if any,
 * and ends the port). A thrown WisbridgeError keeps its code and details on the way back. Handlers are synchronous:
 * what one returns is posted back as it is (a promise cannot be, and would end the thread).
 */
export function serveCalls(handlers: Record<string, (...args: never[]) => unknown>): void {
  const port = parentPort!;
  port.on('message', (call: WorkerCall) => {
    let reply: WorkerReply;
    try {
      const handler = handlers[call.op] as ((...args: unknown[]) => unknown) | undefined;
      if (!handler && call.op !== 'close') throw new Error(`unknown operation ${call.op}`);
      reply = { id: call.id, result: handler?.(...call.args) };
    } catch (error) {
      reply = isWisbridgeError(error)
        ? { id: call.id, error: { code: error.code, message: error.message, details: error.details } }
        : { id: call.id, error: { message: error instanceof Error ? error.message : String(error) } };
    }
    port.postMessage(reply);
    if (call.op === 'close') port.close();
  });
  port.postMessage({ id: 0, result: 'ready' } satisfies WorkerReply);
}
