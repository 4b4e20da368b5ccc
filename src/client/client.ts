import type { z } from 'zod';
import { WRITES, endpoints, type CycleCountResult, type EndpointId, type SsccResponse } from '../contract/index.js';
import { WisbridgeError, isWisbridgeError } from '../errors.js';
import { silentLogger } from '../log.js';
import { deadlineOf, getJson, serviceMessage, type Core } from './core.js';
import { countRecords, listDecodedPages, listPages, listRecords, type Page, type PageDecoder, type RawPage } from './list.js';
import { verifyApplied } from './safety.js';
import { readSecret, type SecretSource } from '../secret.js';
import { Transport, type TransportOptions } from './transport.js';
import type {
  BatchEndpointId, CallOptions, CountEndpointId, FiltersOf, ItemOf, ListEndpointId, ListOptions, RecordOf, ResultOf, WriteOptions, WriteOutcome,
} from './types.js';
import { describeIssues, parseResponse } from './validate.js';
import { runWrite } from './write.js';

export interface ClientOptions extends Omit<TransportOptions, 'token'> {
  /** The bearer token (JWT). Use `createClient` to read it from an environment variable or a file. */
  token: string;
  /** Maximum items per write request (default 100; the emulator accepts up to 1,000). */
  batchSize?: number;
  /** Default time limit of one operation (a whole listing or write run), ms; none by default. */
  operationTimeoutMs?: number;
}

type CycleCountInput = z.input<(typeof endpoints)['inventory.counts']['item']>;

/** The method an endpoint id becomes on its family object, e.g. `client.customerShipments.ship(items)`. */
export type MethodOf<K extends EndpointId> = K extends ListEndpointId
  ? (filters?: FiltersOf<K>, options?: ListOptions) => AsyncGenerator<RecordOf<K>>
  : K extends CountEndpointId
    ? (filters?: FiltersOf<K>, options?: CallOptions) => Promise<number>
    : K extends BatchEndpointId
      ? (items: readonly ItemOf<K>[], options?: WriteOptions) => Promise<WriteOutcome<ResultOf<K>>[]>
      : K extends 'customerShipments.sscc'
        ? (shipmentId: number, options?: CallOptions) => Promise<SsccResponse>
        : K extends 'inventory.counts'
          ? (request: CycleCountInput, options?: CallOptions) => Promise<CycleCountResult>
          : never;

type FamilyName = EndpointId extends `${infer F}.${string}` ? F : never;
export type Family<F extends FamilyName> = { [K in EndpointId as K extends `${F}.${infer M}` ? M : never]: MethodOf<K> };

/**
 * Typed client of the Warehouse Integration Service. One method per endpoint of the contract's table, grouped
 * by family (`client.customerShipments.list()`, `.count()`, `.acknowledge()`, …), plus the generic forms
 * (`list`, `pages`, `count`, `write`, `verify`) keyed by endpoint id.
 */
export class WisClient {
  readonly #core: Core;
  readonly products!: Family<'products'>;
  readonly customerShipments!: Family<'customerShipments'>;
  readonly outboundTransfers!: Family<'outboundTransfers'>;
  readonly inboundTransfers!: Family<'inboundTransfers'>;
  readonly supplierShipments!: Family<'supplierShipments'>;
  readonly customerReturns!: Family<'customerReturns'>;
  readonly inventory!: Family<'inventory'>;

  constructor(options: ClientOptions) {
    if (typeof options.token !== 'string' || options.token.trim() === '') {
      throw new WisbridgeError('CONFIG_INVALID', 'the service token is empty');
    }
    const transport = new Transport(options);
    this.#core = {
      transport,
      logger: options.logger ?? silentLogger,
      batchSize: options.batchSize ?? 100,
      operationTimeoutMs: options.operationTimeoutMs,
    };
    const families: Record<string, Record<string, unknown>> = {};
    for (const def of Object.values(endpoints)) {
      const [family, method] = def.id.split('.');
      (families[family] ??= {})[method] = this.#methodFor(def.id as EndpointId);
    }
    Object.assign(this, families);
  }

  #methodFor(id: EndpointId): unknown {
    const style = endpoints[id].style;
    // eslint-disable-next-line no-restricted-syntax -- the family methods are built from the table at run time; their public types come from `Family`
    if (style === 'list') return (filters = {}, options?: ListOptions) => this.list(id as ListEndpointId, filters as never, options);
    // eslint-disable-next-line no-restricted-syntax -- as above
    if (style === 'count') return (filters = {}, options?: CallOptions) => this.count(id as CountEndpointId, filters as never, options);
    // eslint-disable-next-line no-restricted-syntax -- as above
    if (style === 'per-item' || style === 'fail-fast') return (items: unknown[], options?: WriteOptions) => this.write(id as BatchEndpointId, items as never, options);
    if (id === 'customerShipments.sscc') return (shipmentId: number, options?: CallOptions) => this.sscc(shipmentId, options);
    return (request: CycleCountInput, options?: CallOptions) => this.cycleCount(request, options);
  }

  /** Every record matching the filters; `options.concurrency` > 1 pages from the count endpoint, N pages at once. */
  list<K extends ListEndpointId>(endpoint: K, filters: FiltersOf<K> = {} as FiltersOf<K>, options?: ListOptions): AsyncGenerator<RecordOf<K>> {
    return listRecords(this.#core, endpoint, filters, options);
  }

  /** Like `list`, one page at a time (`{page, records, hasMore}`). */
  pages<K extends ListEndpointId>(endpoint: K, filters: FiltersOf<K> = {} as FiltersOf<K>, options?: ListOptions): AsyncGenerator<Page<RecordOf<K>>> {
    return listPages(this.#core, endpoint, filters, options);
  }

  /**
   * Like `pages`, but each page's body is handed to `decode` as bytes (which must check it against the contract,
   * e.g. with `pageOfBody`), so that decoding and parsing can run off the main thread; records seen on an earlier
   * page are named in `repeated`.
   */
  decodedPages<K extends ListEndpointId, D>(endpoint: K, filters: FiltersOf<K>, decode: PageDecoder<D>, options?: ListOptions): AsyncGenerator<RawPage<D>> {
    return listDecodedPages(this.#core, endpoint, filters, decode, options);
  }

  count<K extends CountEndpointId>(endpoint: K, filters: FiltersOf<K> = {} as FiltersOf<K>, options?: CallOptions): Promise<number> {
    return countRecords(this.#core, endpoint, filters, options);
  }

  /** Sends items in batches; one outcome per item, in input order (see WriteOutcome). */
  write<K extends BatchEndpointId>(endpoint: K, items: readonly ItemOf<K>[], options?: WriteOptions): Promise<WriteOutcome<ResultOf<K>>[]> {
    return runWrite(this.#core, endpoint, items, options);
  }

  /**
   * Reads state back: which of `ids` the service shows as applied by `endpoint` (acknowledged, shipped,
   * received). `since`: when the write was sent. INVALID_REQUEST for endpoints that cannot be verified.
   */
  async verify(endpoint: BatchEndpointId, ids: number[], since: Date = new Date(Date.now() - 3_600_000), options?: CallOptions): Promise<Set<number>> {
    const spec = WRITES[endpoint].policy.verify;
    if (!spec) throw new WisbridgeError('INVALID_REQUEST', `${endpoint} cannot be verified by reading state back`);
    return verifyApplied(this.#core, spec, ids, since, { signal: options?.signal, deadline: deadlineOf(this.#core, options) });
  }

  async sscc(shipmentId: number, options?: CallOptions): Promise<SsccResponse> {
    const def = endpoints['customerShipments.sscc'];
    if (!Number.isInteger(shipmentId) || shipmentId <= 0) {
      throw new WisbridgeError('INVALID_REQUEST', `customerShipments.sscc: shipment id must be a positive integer, got ${String(shipmentId)}`);
    }
    const path = def.path.replace('{shipment_id}', String(shipmentId));
    const res = await getJson(this.#core, def.id, path, { signal: options?.signal, deadline: deadlineOf(this.#core, options) });
    return parseResponse(def.id, def.response, res.json);
  }

  /**
   * Records a cycle count. Never repeated after an unknown outcome (UNCERTAIN_OUTCOME is thrown); a 400
   * (e.g. a SKU not at the warehouse) is thrown as BAD_REQUEST with the service's message.
   */
  async cycleCount(request: CycleCountInput, options?: CallOptions): Promise<CycleCountResult> {
    const def = endpoints['inventory.counts'];
    const parsed = def.body.safeParse(request);
    if (!parsed.success) throw new WisbridgeError('INVALID_REQUEST', `${def.id}: ${describeIssues(parsed.error).join('; ')}`, { details: { endpoint: def.id } });
    const res = await this.#core.transport.send({
      endpoint: def.id, method: def.method, path: def.path, body: parsed.data, retry: 'unsafe',
      signal: options?.signal, deadline: deadlineOf(this.#core, options), beforeAttempt: options?.beforeAttempt,
    });
    if (res.status < 200 || res.status >= 300) {
      throw new WisbridgeError('BAD_REQUEST', `${def.id}: the service answered ${res.status}: ${serviceMessage(res.json, res.status)}`, {
        details: { endpoint: def.id, status: res.status },
      });
    }
    return parseResponse(def.id, def.response, res.json).count;
  }

  /** Closes the connection pool. `force` destroys requests in flight (shutdown must not hang). */
  close(force = false): Promise<void> {
    return this.#core.transport.close(force);
  }

  toJSON(): Record<string, unknown> {
    return { client: 'WisClient', transport: this.#core.transport.toJSON() };
  }
}

export interface CreateClientOptions extends Omit<ClientOptions, 'token'> {
  token: string | SecretSource;
}

/** Builds a client, reading the token from a value, an environment variable or a file. */
export async function createClient(options: CreateClientOptions): Promise<WisClient> {
  const token = typeof options.token === 'string' ? options.token : await readSecret(options.token, 'service token');
  return new WisClient({ ...options, token });
}

/** True for errors after which a run must stop rather than fail row after row. */
export function isFatalClientError(error: unknown): boolean {
  return isWisbridgeError(error) && ['AUTHENTICATION', 'CONTRACT_VIOLATION', 'ABORTED', 'TIMEOUT', 'UNAVAILABLE', 'RATE_LIMITED'].includes(error.code);
}
