import type { Endpoint, ListEndpointId, WriteEndpointId } from '../endpoints.js';

/** How the transport treats an attempt whose outcome is unknown: reads and repeatable writes are retried, unsafe writes never. */
export type RetryClass = 'read' | 'repeatable' | 'unsafe';

/**
 * How to read state back to learn whether items of an uncertain write were applied: an item is confirmed
 * when the listing `list` finds it under one of the `applied` statuses and under none of the `absent` ones.
 * `updatedSince`: the family has no `ids` filter; list by `updated_at_min` instead and pick the ids.
 */
export interface VerifySpec {
  list: ListEndpointId;
  applied: readonly string[];
  absent?: readonly string[];
  updatedSince?: boolean;
}

/** Retry safety of a write endpoint; the reasons are in docs/client.md. */
export interface WritePolicy {
  /** How the transport treats an attempt whose outcome is unknown. */
  retry: RetryClass;
  verify?: VerifySpec;
  /** Items the verifier could not confirm are sent once more (only where repeating is harmless). */
  resendUnconfirmed?: boolean;
}

/**
 * How to show that a write whose outcome is unknown (and not confirmed by reading back) did not touch an item:
 * the record is still under one of the `open` statuses of `list` and was not updated since just before the send.
 * Needs both an `ids` and an `updated_at_min` filter on the family.
 */
export interface UntouchedCheck {
  list: ListEndpointId;
  open: readonly string[];
}

/** Fields of a write's answer that have a result-file column of their own (`number` is `count_number`). */
export const RETURNED_FIELDS = ['id', 'acknowledged_at', 'shipped_at', 'move_id', 'number'] as const;
export type ReturnedField = (typeof RETURNED_FIELDS)[number];

/** `customerShipments.acknowledge` → `customerShipments`: the endpoint family, also the export jobs' work type. */
export type FamilyOf<K extends string> = K extends `${infer F}.${string}` ? F : never;

/**
 * Everything the bridge knows about one write endpoint beyond its schemas, in one place. Registered once in
 * `WRITES` (`./index.ts`), which the compiler checks covers every write of the contract.
 */
export interface WriteModule<K extends WriteEndpointId = WriteEndpointId> {
  /** The contract's entry (method, path, style, request and response schemas) and its section in the interface. */
  contract: Endpoint<K>;
  section: string;
  /** Retry safety and how to read state back after an unknown outcome (docs/client.md). */
  policy: WritePolicy;
  /** Uncertain items shown untouched since the send are sent again (docs/pipeline.md). */
  untouched?: UntouchedCheck;
  /** Result-file columns this write's answer fills: kept in the journal even when they echo the request. */
  kept: readonly ReturnedField[];
  /** The export work type whose records a successful write confirms (acknowledgements from the WMS). */
  confirms?: FamilyOf<K>;
  /** The key of an item in the client's outcomes (its id, its SKU); undefined: its position. Runs per item. */
  outcomeKey(item: unknown): number | string | undefined;
  /** What the result file shows as the document when the mapping has no grouping key. Runs per row. */
  documentKey(item: Record<string, unknown>): string;
  /** What a person should check before sending again an item whose outcome is unknown. */
  uncertainHint(key: string, body: Record<string, unknown>): string;
}

/**
 * The outcome of one item of a write, in one shape for 200, 207 and fail-fast 400 answers.
 * `ok` false with `uncertain` true: the item was sent but whether it was applied is unknown.
 */
export interface WriteOutcome<R = Record<string, unknown>> {
  /** The item's id, or its SKU (adjustments), or its index when it has neither. */
  key: number | string;
  /** Position of the item in the array given to the client. */
  index: number;
  ok: boolean;
  /** Messages of the service (or of the client's request check); empty when ok. */
  errors: string[];
  uncertain?: boolean;
  /** Confirmed by reading state back after an uncertain attempt. */
  verified?: boolean;
  /** Sent again after an attempt whose outcome was unknown and could not be confirmed. */
  repeated?: boolean;
  /** The fields the service returned for the item, without `errors` (empty when it answered nothing for it). */
  returned: Partial<R>;
}
