import { Worker, type ResourceLimits } from 'node:worker_threads';
import { WisbridgeError, type CodeWithoutDetails } from '../errors.js';
import { youngGenerationFor } from './young-generation.js';
import { deserializeError, serializeError, type MainCall, type MainReply, type WorkerCall, type WorkerReply } from './worker-serve.js';

/** Handlers the worker may call (`callMain` on its side), by operation name. */
export type MainHandlers = Record<string, (...args: never[]) => Promise<unknown>>;

/**
 * A module (`serveCalls` on its side) running in a worker thread, called by operation name. The worker starts
 * without the main thread's tsx loader, so it boots through worker-boot.mjs, which registers tsx first when the
 * module is TypeScript (running from the sources; the build's JavaScript is imported as it is).
 * It is referenced only while a call is open, so an idle one never keeps the process alive. Errors come back as
 * WisbridgeError with their code; uncoded ones (and the thread's own failure) get `failureCode`, or stay plain
 * errors without one.
 */
export class WorkerThread {
  readonly #worker: Worker;
  readonly #calls = new Map<number, { resolve: (value: unknown) => void; reject: (error: unknown) => void }>();
  #nextId = 1;
  #failure: Error | undefined;
  /** Settles once the worker is ready to serve calls (or failed to start). */
  readonly ready: Promise<void>;

  /**
   * `module`: the worker's module, named without extension and by its area (`new URL('../area/name', import.meta.url)`,
   * which holds in the sources and in the bundle's chunks alike): `.ts` from the sources, `.js` from the build.
   */
  constructor(
    module: URL,
    data: unknown,
    private readonly what: string,
    private readonly failureCode: CodeWithoutDetails | undefined,
    resourceLimits?: ResourceLimits & { semiSpaceMb?: number },
    handlers: MainHandlers = {},
  ) {
    let started!: { resolve: (value: unknown) => void; reject: (error: unknown) => void };
    this.ready = new Promise<unknown>((resolve, reject) => (started = { resolve, reject })).then(() => undefined);
    this.ready.catch(() => undefined); // also reported to every call
    this.#calls.set(0, started);
    const href = `${module.href}${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`;
    const { semiSpaceMb, ...limits } = resourceLimits ?? {};
    const young = semiSpaceMb === undefined ? undefined : youngGenerationFor(semiSpaceMb);
    this.#worker = new Worker(new URL('../runtime/worker-boot.mjs', import.meta.url), {
      workerData: { module: href, data },
      resourceLimits: young === undefined ? limits : { ...limits, maxYoungGenerationSizeMb: young.maxYoungGenerationSizeMb },
    });
    if (young) void this.ready.finally(young.done).catch(() => undefined);
    this.#worker.on('message', (message: WorkerReply | MainCall) => {
      if ('mainCall' in message) return this.#serve(handlers, message);
      const reply = message;
      const call = this.#calls.get(reply.id);
      if (!call) return;
      this.#calls.delete(reply.id);
      if (this.#calls.size === 0) this.#worker.unref();
      if ('error' in reply) call.reject(deserializeError(reply.error, this.failureCode));
      else call.resolve(reply.result);
    });
    this.#worker.on('error', (error) => this.#fail(error));
    this.#worker.on('exit', () => this.#fail(this.#error(`the ${what} thread ended`)));
  }

  /** True once the thread failed or ended: every call is refused from then on. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  call(op: string, args: unknown[]): Promise<unknown> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject });
      if (this.#calls.size === 1) this.#worker.ref();
      this.#worker.postMessage({ id, op, args } satisfies WorkerCall);
    });
  }

  /** Lets the worker close what it holds (its `close` operation), then ends it; resolves what that operation returned. */
  async close(): Promise<unknown> {
    const closed = this.#failure ? undefined : await this.call('close', []).catch(() => undefined);
    await this.#worker.terminate();
    return closed;
  }

  #serve(handlers: MainHandlers, { mainCall, op, args }: MainCall): void {
    const handler = handlers[op] as ((...a: unknown[]) => Promise<unknown>) | undefined;
    const answer = (reply: MainReply) => {
      if (!this.#failure) this.#worker.postMessage(reply);
    };
    (handler ? handler(...args) : Promise.reject(new Error(`unknown operation ${op}`))).then(
      (result) => answer({ mainReply: mainCall, result }),
      (error: unknown) => answer({ mainReply: mainCall, error: serializeError(error) }),
    );
  }

  #fail(error: Error): void {
    this.#failure ??= error instanceof WisbridgeError ? error : this.#error(`the ${this.what} thread failed: ${(error as Partial<Error>)?.message ?? String(error)}`, error);
    for (const call of this.#calls.values()) call.reject(this.#failure);
    this.#calls.clear();
    this.#worker.unref();
  }

  #error(message: string, cause?: unknown): Error {
    const code = this.failureCode;
    return code ? new WisbridgeError(code, message, { cause }) : new Error(message, { cause });
  }
}
