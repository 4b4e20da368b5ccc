/**
 * What the console's search finds a row by: its document key and the short string values of its request body
 * (SKU, order or ASN number, reference…), compared without case. Blocks recorded before the term index
 * (search-index.ts) carry instead a Bloom filter of their terms (table block_terms, split in parts by hash): a
 * search reads those filters and opens only the few blocks that may hold the term. Nothing writes new filters; the
 * writing side (bodyTerms, termFilters) stays beside the probe because it defines the format the probe reads, and
 * tests build such blocks with it.
 */

/** Strings longer than this are not terms (free texts, notes): the filter stays small. */
const MAX_TERM = 64;
const MIN_TERM = 2;
/**
 * Bits per distinct term and hash functions: about 0.01 % false positives, each of which opens a block for nothing
 * (docs/performance.md, "Settings chosen by measurement").
 */
const BITS_PER_TERM = 20;
const HASHES = 10;

export function normalizeTerm(text: string): string {
  return text.trim().toLowerCase();
}

function usable(value: string): boolean {
  return value.length >= MIN_TERM && value.length <= MAX_TERM;
}

/** Adds the string values of a body (and its nested objects and arrays) to `into`, lower-cased. */
export function bodyTerms(body: unknown, into: Set<string>, depth = 0): void {
  if (typeof body === 'string') {
    if (usable(body)) into.add(body.toLowerCase());
  } else if (Array.isArray(body)) {
    if (depth < 4) for (const v of body) bodyTerms(v, into, depth + 1);
  } else if (body !== null && typeof body === 'object' && depth < 4) {
    for (const key in body) bodyTerms((body as Record<string, unknown>)[key], into, depth + 1);
  }
}

/** FNV-1a (32 bit) and a second hash from it: the k positions are h1 + i * h2 (Kirsch–Mitzenmacher). */
function hashes(term: string): [number, number] {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  const h1 = h >>> 0;
  let h2 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b);
  h2 = (Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35) ^ (h2 >>> 16)) >>> 0;
  return [h1, (h2 | 1) >>> 0];
}

/** Filters a block's terms are split into, by hash: a search reads one part of each block's filter, not all of it. */
const TERM_PARTS = 16;

/** The part a term's filter bits live in. */
export function termPart(term: string): number {
  return hashes(term)[0] % TERM_PARTS;
}

/** A Bloom filter of the terms, as base64 text (its size in bits is the byte length × 8). */
export function termFilter(terms: Iterable<string>, count: number): string {
  const bytes = Math.max(8, Math.ceil((count * BITS_PER_TERM) / 8));
  const bits = Buffer.alloc(bytes);
  const m = bytes * 8;
  for (const term of terms) {
    const [h1, h2] = hashes(term);
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) % m;
      bits[bit >>> 3] |= 1 << (bit & 7);
    }
  }
  return bits.toString('base64');
}

/** The filters of a block's terms, one per part that holds any: [part, filter]. */
export function termFilters(terms: ReadonlySet<string>): Array<[number, string]> {
  const parts = new Map<number, string[]>();
  for (const term of terms) {
    const part = termPart(term);
    let list = parts.get(part);
    if (!list) parts.set(part, (list = []));
    list.push(term);
  }
  return [...parts].sort((a, b) => a[0] - b[0]).map(([part, list]) => [part, termFilter(list, list.length)]);
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SEXTET = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE64.length; i++) SEXTET[BASE64.charCodeAt(i)] = i;

/** Byte `k` of base64 text, decoded alone (a search tests a few bits of thousands of filters: no Buffer per filter). */
function byteAt(text: string, k: number): number {
  const group = Math.floor(k / 3) * 4;
  const n = (SEXTET[text.charCodeAt(group)] << 18) | (SEXTET[text.charCodeAt(group + 1)] << 12)
    | ((SEXTET[text.charCodeAt(group + 2)] & 63) << 6) | (SEXTET[text.charCodeAt(group + 3)] & 63);
  return (n >>> (16 - 8 * (k % 3))) & 255;
}

/** The hashes of one term, tested against many filters. */
export class TermProbe {
  readonly #h: [number, number];
  constructor(readonly term: string) {
    this.#h = hashes(term);
  }

  /** Whether a filter (base64) may hold the term: false means it certainly does not. */
  mayHold(filter: string): boolean {
    const padding = filter.endsWith('==') ? 2 : filter.endsWith('=') ? 1 : 0;
    const m = ((filter.length / 4) * 3 - padding) * 8;
    const [h1, h2] = this.#h;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) % m;
      if ((byteAt(filter, bit >>> 3) & (1 << (bit & 7))) === 0) return false;
    }
    return true;
  }
}

/**
 * The elements of a JSON array text (a block's bodies) that hold `term` as a whole string value, any case: found in
 * the text and mapped to their index by one scan, without parsing the bodies.
 */
export function elementsHolding(text: string, term: string): Set<number> {
  const found = new Set<number>();
  const needle = new RegExp(JSON.stringify(term).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  const positions: number[] = [];
  for (let m = needle.exec(text); m !== null; m = needle.exec(text)) {
    let after = m.index + m[0].length;
    while (text[after] === ' ') after++;
    if (text[after] !== ':') positions.push(m.index); // a value, not a key
  }
  if (positions.length === 0) return found;
  let depth = 0;
  let element = 0;
  let inString = false;
  let next = 0;
  for (let i = 0; i < text.length && next < positions.length; i++) {
    if (i === positions[next]) {
      found.add(element);
      next++;
    }
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) depth--;
    else if (c === 44 && depth === 1) element++;
  }
  return found;
}

/**
 * Calls `visit` with the index and [start, end) of each element of a JSON array text, in order, until it returns
 * true: one scan, nothing parsed (a search reads a few items of a block's 1,000 without parsing the other 999).
 */
function forEachElement(text: string, visit: (index: number, start: number, end: number) => boolean | void): void {
  let depth = 0;
  let element = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (depth === 1 && start < 0 && c !== 32 && c !== 10 && c !== 13 && c !== 9 && c !== 44 && c !== 93) start = i;
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) {
      depth--;
      if (depth === 0) {
        if (start >= 0 && visit(element, start, i)) return;
        return;
      }
    } else if (c === 44 && depth === 1) {
      if (start >= 0 && visit(element, start, i)) return;
      element++;
      start = -1;
    }
  }
}

/** The values of the elements of a JSON array text at `indexes` (ascending), parsed alone. */
export function elementsAt(text: string, indexes: readonly number[]): Map<number, unknown> {
  const found = new Map<number, unknown>();
  if (indexes.length === 0) return found;
  let next = 0;
  forEachElement(text, (index, start, end) => {
    if (index !== indexes[next]) return false;
    found.set(index, JSON.parse(text.slice(start, end)) as unknown);
    return ++next === indexes.length;
  });
  return found;
}

/** What a request's results (`[[seq, result], …]` as JSON text) hold for `seq`, or null; only that pair is parsed. */
export function resultOf(results: string, seq: number): unknown {
  const prefix = `[${seq},`;
  let value: unknown = null;
  forEachElement(results, (_, start, end) => {
    if (!results.startsWith(prefix, start)) return false;
    value = (JSON.parse(results.slice(start, end)) as [number, unknown])[1];
    return true;
  });
  return value;
}
