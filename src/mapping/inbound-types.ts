import type { InboundDocument } from './definition-schema.js';
import type { RowError } from './documents.js';
import type { ReferenceIds } from './reference-ids.js';
import type { InterchangeResult } from '../x12/index.js';

// What mapping an inbound file yields: shared by mapInbound (inbound.ts) and the mapper it drives (inbound-mapper.ts).

/** One request item, validated against the contract, with the input lines it came from. */
export interface MappedDocument {
  endpoint: InboundDocument;
  /** The document key (e.g. the order number); '' for one-row documents and whole-file requests. */
  key: string;
  item: Record<string, unknown>;
  lines: number[];
}
/** Documents ready to send together; `body` is the request body for the endpoint. */
export interface MappedBatch { kind: 'batch'; endpoint: InboundDocument; body: Record<string, unknown>; documents: MappedDocument[] }
/** A document (or a lone row) refused before sending; every line it covers is reported. */
export interface RejectedDocument {
  kind: 'rejected';
  endpoint: InboundDocument;
  key: string;
  lines: number[];
  errors: RowError[];
  /** What was mapped of the item before it was refused (absent when the row did not get that far): names it in the result file. */
  item?: Record<string, unknown>;
}
/** A row left out on purpose (a skip condition, a context record without detail rows). */
export interface SkippedRow { kind: 'skipped'; line: number; reason: string }
export type InboundOutcome = MappedBatch | RejectedDocument | SkippedRow;

export interface MapInboundOptions {
  /** File name used in error messages. */
  fileName: string;
  /** Needed when the mapping replaces references with their ids; wrapped in a cache for the run. */
  referenceIds?: ReferenceIds;
  /** Items per request body (default 100, at most the contract's limit). */
  maxBatchItems?: number;
  /**
   * An X12 file's envelope verdicts, read by a pass before mapping (checkEnvelopes, the pipeline's routing): its sets'
   * rows then go on as they are read. Without, an interchange's rows are held until its IEA.
   */
  x12Verdicts?: readonly InterchangeResult[];
  /** With x12Verdicts, when the file's sets go to several mappings: which of them this mapping reads. */
  x12Share?: X12Share;
}

/**
 * Which sets of an X12 file one mapping reads when its sets go to several mappings, each read in a pass of its own
 * (pipeline/x12-route.ts): by ST01, per interchange (its number in the file, 1 the first), since the sender picks the
 * route. The sets of another pass give nothing here, not even a refusal: that pass reports them.
 */
export interface X12Share {
  /** The ST01s this pass reads in each interchange; every other set is another pass's. */
  only?: Readonly<Record<number, readonly string[]>>;
  /** The ST01s other passes read in each interchange: this pass reads the rest, and reports the envelopes' refusals. */
  except?: Readonly<Record<number, readonly string[]>>;
}
