import type { ResourceLimits } from 'node:worker_threads';
import type { DecodedPage, ListEndpointId } from '../client/index.js';
import type { Logger } from '../log.js';
import type { Mapping } from '../mapping/index.js';
import type { ExportRenderer } from '../mapping/index.js';
import { decodeExportPage, type ExportPage } from './page-decode.js';
import { WorkerThread } from '../runtime/worker-thread.js';

/**
 * The listed pages of an export, decoded (UTF-8, JSON.parse, the contract's check, the mapping's CSV rendering) on a
 * worker thread, so that the main thread only does the HTTP, the journal and the files (docs/performance.md,
 * "Settings chosen by measurement"). A page's bytes are copied to the thread (a memcpy; transferring them instead
 * saved nothing measurable: a message's cost here is its wake-up, not its size), so the main thread keeps them. The
 * thread is started once `threadFrom` records were listed; until it is ready (a moment after the build) pages are
 * decoded on the main thread (the same function), so the listing never waits for it. With `threadFrom` 0 it is
 * started at once and every page waits for it. Pages are decoded on the main thread too once the thread could not
 * start or ended: decoding is pure, so a page the thread lost is simply decoded again. `close` (always) ends the
 * thread.
 */
export class ExportPages {
  #thread: WorkerThread | undefined;
  #ready = false;
  /** Pages wait for the thread rather than being decoded here while it starts (see `expect`). */
  #waitForThread: boolean;
  #threadFailed = false;
  /** Records decoded on the main thread. */
  #decoded = 0;
  readonly #pages = { thread: 0, main: 0 };

  constructor(
    private readonly endpoint: ListEndpointId,
    private readonly mapping: Mapping,
    private readonly renderer: ExportRenderer,
    private readonly logger: Logger,
    private readonly options: { threadFrom: number; waitFrom: number; resourceLimits?: ResourceLimits },
  ) {
    this.#waitForThread = options.threadFrom === 0;
    if (this.#waitForThread) this.#startThread();
  }

  /**
   * The listing's count (ListOptions.onCount). From `waitFrom` records on, the thread is started now and every
   * page waits for it: the first pages wait for its start, instead of dozens being decoded on the main thread
   * meanwhile, which then answers the listing late.
   */
  readonly expect = (records: number): void => {
    if (records < Math.max(this.options.waitFrom, this.options.threadFrom) || this.#threadFailed) return;
    this.#waitForThread = true;
    if (!this.#thread) this.#startThread();
  };

  /** A PageDecoder for the client's `decodedPages`. */
  readonly decode = async (body: ArrayBuffer): Promise<DecodedPage<ExportPage>> => {
    if (!this.#thread && !this.#threadFailed && this.#decoded >= this.options.threadFrom) this.#startThread();
    const thread = this.#thread;
    if (!thread || (!this.#ready && !this.#waitForThread)) return this.#inline(body);
    try {
      await thread.ready;
      const page = (await thread.call('decode', [body])) as DecodedPage<ExportPage>;
      this.#pages.thread++;
      return page;
    } catch (error) {
      if (!thread.failed) throw error; // the page itself (CONTRACT_VIOLATION)
      this.#lost(thread, error);
      return this.#inline(body);
    }
  };

  #startThread(): void {
    const { definition, name, file } = this.mapping;
    const data = { endpoint: this.endpoint, mapping: { definition, name, file } };
    const thread = new WorkerThread(new URL('../export/page-worker', import.meta.url), data, 'page', undefined, this.options.resourceLimits);
    this.#thread = thread;
    thread.ready.then(() => (this.#ready = true), (error: unknown) => this.#lost(thread, error));
  }

  #lost(thread: WorkerThread, error: unknown): void {
    if (this.#thread !== thread) return;
    this.logger.warn({ err: error }, 'export: the page thread failed; pages are decoded on the main thread');
    this.#thread = undefined;
    this.#threadFailed = true;
    void thread.close();
  }

  async close(): Promise<void> {
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.close();
    this.logger.info({ pages: this.#pages }, 'export: pages decoded (on the page thread, on the main thread)');
  }

  #inline(body: ArrayBuffer): DecodedPage<ExportPage> {
    const page = decodeExportPage(this.endpoint, body, this.renderer);
    this.#decoded += page.ids.length;
    this.#pages.main++;
    return page;
  }
}
