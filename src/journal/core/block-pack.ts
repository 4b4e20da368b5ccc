import { blockIndex, type BlockIndexPart } from './search-index.js';
import { encodeLines, stateError, toRanges } from './rows.js';
import type { ItemOutcome, NewItem } from './types.js';
import { JsonTextWriter } from '../../util/json-text.js';

/*
 * What is packed for the journal before the transaction that stores it, on whichever thread maps the file (the main
 * thread, or a BatchesThread): a request's items as one item block (blocks.ts), its search index, its ok outcomes.
 */

/**
 * A request's items as item_blocks stores them, packed before the transaction that records them (on whichever
 * thread maps the file: the main thread, or a BatchesThread).
 */
export interface PackedBatch {
  endpoint: string;
  count: number;
  /** The items' seqs as sorted [from, to] ranges (the request's `seqs`). */
  ranges: Array<[number, number]>;
  firstLine: number;
  /** JSON text of the PackedDoc list. */
  docs: string;
  /** The items' search terms by part (search-index.ts), when their bodies were given. */
  index?: BlockIndexPart[];
}

/** The search index of one recorded block, written after it (JournalContract.indexBlocks). */
export interface BlockIndexOf {
  requestId: number;
  index: BlockIndexPart[];
}

/** Packs the items of a new request; refuses an item for another endpoint, a seq listed twice, an item without lines. */
export function packBatch(endpoint: string, items: readonly Pick<NewItem, 'seq' | 'endpoint' | 'docKey' | 'lines'>[], bodies?: readonly unknown[]): PackedBatch {
  if (items.length === 0) throw stateError('a request needs at least one item');
  const seqs: number[] = new Array(items.length);
  let firstLine = Number.POSITIVE_INFINITY;
  // The PackedDoc list written as its JSON text directly: no array per item to stringify, no string per field.
  const docs = new JsonTextWriter().raw('[');
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item.endpoint !== undefined && item.endpoint !== null && item.endpoint !== endpoint) {
      throw stateError(`item ${item.seq} is for ${item.endpoint}, not ${endpoint}`);
    }
    seqs[i] = item.seq;
    const lines = item.lines;
    let first = lines[0];
    let last = first;
    let list: string | null = null;
    if (lines.length !== 1) ({ first, last, list } = encodeLines(lines));
    docs.raw(i === 0 ? '[' : ',[').number(item.seq).raw(',').text(item.docKey ?? null).raw(',').number(first).raw(',').number(last).raw(',').raw(list ?? 'null').raw(']');
    if (first < firstLine) firstLine = first;
  }
  const text = docs.raw(']').end();
  const index = bodies ? blockIndex(items, bodies) : undefined;
  return { endpoint, count: items.length, ranges: toRanges(seqs), firstLine, docs: text, index };
}

/** Every item of a request came back ok: what completeRequest stores of them (the results), packed ahead. */
export interface PackedOkOutcomes {
  ok: number;
  /** JSON text of the [seq, result] pairs of the items that returned something; null when none did. */
  results: string | null;
}

/** A request whose items all came back ok, with its packed outcomes (JournalContract.completeRequests). */
export interface AllOkRequest {
  requestId: number;
  outcomes: PackedOkOutcomes;
}

/**
 * The outcomes packed for completeRequest when every one is ok, else undefined (they are stored one by one): the
 * [seq, result] pairs of those that returned something, as one JSON text written without a pair or a string per item.
 */
export function packOkOutcomes(outcomes: readonly ItemOutcome[]): PackedOkOutcomes | undefined {
  let returned = 0;
  for (const o of outcomes) {
    if (o.status !== 'ok') return undefined;
    if (o.result !== undefined && o.result !== null) returned++;
  }
  if (returned === 0) return { ok: outcomes.length, results: null };
  const json = new JsonTextWriter().raw('[');
  let first = true;
  for (const o of outcomes) {
    if (o.result === undefined || o.result === null) continue;
    json.raw(first ? '[' : ',[').number(o.seq).raw(',').value(o.result).raw(']');
    first = false;
  }
  return { ok: outcomes.length, results: json.raw(']').end() };
}
