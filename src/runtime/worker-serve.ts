/**
 * The worker side of WorkerThread (worker-thread.ts): calls by operation name; the worker may also call the main
 * thread's handlers (`callMain`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WisbridgeError, isWisbridgeError, type CodeWithoutDetails, type DetailsOf, type ErrorCode } from '../errors.js';

export interface WorkerCall {
  id: number;
  op: string;
  args: unknown[];
}
export type WorkerReply =
  | { id: number; result: unknown }
  | { id: number; error: SerializedError };
/** A call from the worker to a handler of the main thread (WorkerThread's `handlers`), and its reply. */
export interface MainCall { mainCall: number; op: string; args: unknown[] }
export type MainReply = { mainReply: number; result?: unknown; error?: SerializedError };
export interface SerializedError { code?: ErrorCode; message: string; details?: DetailsOf<ErrorCode> }

/** What the main thread gave its WorkerThread as `data`. */
export const threadData = (): unknown => (workerData as { data: unknown }).data;

/** An error as it crosses between threads: a WisbridgeError keeps its code and details. */
export function serializeError(error: unknown): SerializedError {
  return isWisbridgeError(error)
    ? { code: error.code, message: error.message, details: error.details }
    : { message: error instanceof Error ? error.message : String(error) };
}

export function deserializeError(e: SerializedError, fallback?: CodeWithoutDetails): Error {
  const code = e.code ?? fallback;
  return code ? new WisbridgeError(code, e.message, { details: e.details }) : new Error(e.message);
}

const mainCalls = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
let nextMainCall = 1;

/** Calls a handler the main thread gave its WorkerThread (a reference lookup through its client, say). */
export function callMain(op: string, args: unknown[]): Promise<unknown> {
  const id = nextMainCall++;
  return new Promise((resolve, reject) => {
    mainCalls.set(id, { resolve, reject });
    parentPort!.postMessage({ mainCall: id, op, args } satisfies MainCall);
  });
}

/**
 * Serves the main thread's calls with `handlers` until it sends `close` (which runs `handlers.close`, if any,
 * and ends the port). A thrown WisbridgeError keeps its code and details on the way back. A handler may return a
 * promise: its value is posted once settled (replies then follow the order of completion, matched by id).
 */
export function serveCalls(handlers: Record<string, (...args: never[]) => unknown>): void {
  const port = parentPort!;
  port.on('message', (message: WorkerCall | MainReply) => {
    if ('mainReply' in message) {
      const call = mainCalls.get(message.mainReply);
      mainCalls.delete(message.mainReply);
      if (message.error) call?.reject(deserializeError(message.error));
      else call?.resolve(message.result);
      return;
    }
    const call = message;
    const reply = (r: WorkerReply) => {
      port.postMessage(r);
      if (call.op === 'close') port.close();
    };
    try {
      const handler = handlers[call.op] as ((...args: unknown[]) => unknown) | undefined;
      if (!handler && call.op !== 'close') throw new Error(`unknown operation ${call.op}`);
      const result = handler?.(...call.args);
      if (result instanceof Promise) {
        result.then((value) => reply({ id: call.id, result: value }), (error: unknown) => reply({ id: call.id, error: serializeError(error) }));
      } else reply({ id: call.id, result });
    } catch (error) {
      reply({ id: call.id, error: serializeError(error) });
    }
  });
  port.postMessage({ id: 0, result: 'ready' } satisfies WorkerReply);
}
