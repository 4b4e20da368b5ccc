import type { z } from 'zod';
import type { BatchEndpointId, CountEndpointId, EndpointId, endpoints, ListEndpointId } from '../contract/index.js';

type Def<K extends EndpointId> = (typeof endpoints)[K];

export type { BatchEndpointId, CountEndpointId, FailFastEndpointId, ListEndpointId } from '../contract/index.js';

/** Typed filters of a list or count endpoint (what callers may pass; `page` is managed by the client). */
export type FiltersOf<K extends ListEndpointId | CountEndpointId> = Def<K> extends { query: infer Q extends z.ZodType }
  ? Omit<z.input<Q>, 'page'>
  : never;
export type RecordOf<K extends ListEndpointId> = Def<K> extends { record: infer R extends z.ZodType } ? z.infer<R> : never;
/** One element of the write body of a batch endpoint. */
export type ItemOf<K extends BatchEndpointId> = Def<K> extends { item: infer I extends z.ZodType } ? z.input<I> : never;
/** One element of the write response of a batch endpoint. */
export type ResultOf<K extends BatchEndpointId> = Def<K> extends { responseItem: infer R extends z.ZodType } ? z.infer<R> : never;

export type { WriteOutcome } from '../contract/index.js';

export interface CallOptions {
  signal?: AbortSignal;
  /** Absolute deadline for the whole operation (epoch ms or Date). */
  deadline?: number | Date;
  /**
   * Called before every attempt of a write (the first and each retry, of every request), once it has its connection slot, right
   * before its bytes go out: a throw stops the call there, that attempt not made, the call's outcome what the earlier
   * attempts left (e.g. a lease that may have passed to another instance: nothing more goes out under it).
   */
  beforeAttempt?: () => void;
}

export interface WriteOptions extends CallOptions {
  /** Maximum items per request (default: the client's `batchSize`). */
  batchSize?: number;
  /** Batches in flight at once (default 1: in order). */
  concurrency?: number;
  /** Check items with the contract's request schema before sending (default true); bad items are not sent. */
  validate?: boolean;
  /**
   * The items as one JSON array text (e.g. as the journal recorded them): a request carrying all the items, in
   * order, is sent from this text instead of serializing them again (a bisected half is serialized). Only with
   * `validate: false`.
   */
  itemsJson?: string;
  /** After an uncertain attempt, read state back to confirm (default true where the endpoint has a verifier). */
  verifyUncertain?: boolean;
  /**
   * Awaited before every request of the write (batches, bisection halves, repeats), e.g. to journal "sent"
   * durably first. A throw stops the write before that request: its items are reported not sent.
   */
  beforeSend?: (request: { endpoint: string; indexes: number[]; keys: (number | string)[]; repeated: boolean }) => void | Promise<void>;
}

export interface ListOptions extends CallOptions {
  /** Pages fetched at once in count-based mode; 1 (default) pages sequentially on `has_more`. */
  concurrency?: number;
  /** Count-based mode: called with the count endpoint's answer, before any page is handed out. */
  onCount?: (records: number) => void;
}
