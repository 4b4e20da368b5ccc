import type { ResourceLimits } from 'node:worker_threads';
import type { DecodedPage, ListEndpointId } from '../client/index.js';
import type { Logger } from '../log.js';
import type { Mapping } from '../mapping/index.js';
import type { ExportRenderer } from '../mapping/export.js';
import { decodeExportPage, type ExportPage } from './page-decode.js';
import { WorkerThread } from './worker-thread.js';

/**
 * The listed pages of an export, decoded (JSON.parse, the contract's check, the mapping's CSV rendering: 2–3 ms a
 * page of 100 shipments) on a worker thread once `threadFrom` records were listed, so that the main thread only
 * does the HTTP, the journal and the files. The first pages are decoded on the main thread (the same function), and
 * so is every page once the thread could not start or ended: decoding is pure, so a page the thread lost is simply
 * decoded again. `close` (always) ends the thread.
 */
export class ExportPages {
  #thread: WorkerThread | undefined;
  #threadFailed = false;
  /** Records decoded on the main thread. */
  #decoded = 0;
  readonly #pages = { thread: 0, main: 0 };

  constructor(
    private readonly endpoint: ListEndpointId,
    private readonly mapping: Mapping,
    private readonly renderer: ExportRenderer,
    private readonly logger: Logger,
    private readonly options: { threadFrom: number; resourceLimits?: ResourceLimits },
  ) {}

  /** A PageDecoder for the client's `decodedPages`. */
  readonly decode = async (text: string): Promise<DecodedPage<ExportPage>> => {
    if (!this.#thread && !this.#threadFailed && this.#decoded >= this.options.threadFrom) {
      const { definition, name, file } = this.mapping;
      const data = { endpoint: this.endpoint, mapping: { definition, name, file } };
      this.#thread = new WorkerThread(new URL('./page-worker.ts', import.meta.url), data, 'page', undefined, this.options.resourceLimits);
    }
    const thread = this.#thread;
    if (!thread) return this.#inline(text);
    try {
      await thread.ready;
      const page = (await thread.call('decode', [text])) as DecodedPage<ExportPage>;
      this.#pages.thread++;
      return page;
    } catch (error) {
      if (!thread.failed) throw error; // the page itself (CONTRACT_VIOLATION)
      if (this.#thread === thread) {
        this.logger.warn({ err: error }, 'export: the page thread failed; pages are decoded on the main thread');
        this.#thread = undefined;
        this.#threadFailed = true;
        void thread.close();
      }
      return this.#inline(text);
    }
  };

  async close(): Promise<void> {
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.close();
    this.logger.info({ pages: this.#pages }, 'export: pages decoded (on the page thread, on the main thread)');
  }

  #inline(text: string): DecodedPage<ExportPage> {
    const page = decodeExportPage(this.endpoint, text, this.renderer);
    this.#decoded += page.ids.length;
    this.#pages.main++;
    return page;
  }
}
