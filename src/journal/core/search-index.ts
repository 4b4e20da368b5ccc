/**
 * The console search's per-block term index: for each item block (one request), which of its items carried which
 * term — their document key and the short string values of their request bodies (SKU, order or ASN number,
 * reference…), compared without case. Terms are not stored, fingerprints are, split by the term's hash into 16 parts,
 * in two tables:
 * - block_tokens: per block and part, a 3-character token (22 bits with the part) of each distinct term. Small (3
 *   bytes a term) and, on SQLite, stored in part order: a search reads only its part's tokens of every block, and the
 *   database itself picks the blocks whose text holds the token (instr), so no block that cannot hold the term comes
 *   back; about 1 in 2,000 blocks of 1,000 rows comes back without holding it.
 * - block_index: per block and part, the rest of each term's 46-bit fingerprint (the token is not repeated) with the
 *   index of every item that carried it: read only for the blocks block_tokens let through — it says which rows, and
 *   how many, without reading a block.
 *
 * Built on the thread that maps the rows, so it is made to cost little there: hashing folds ASCII case in place (no
 * lower-cased copy of a string), no Set of strings, no sort — entries are grouped by part in two passes and written
 * as Latin-1 text into one buffer.
 *
 * A part's entries: one digit W (the width of an item's index, 1–5 characters of 6 bits), then entries of 4 + W
 * characters: the fingerprint's last 4 characters and the item's index in the block.
 */

/** Strings longer than this are not terms (free texts, notes): the index stays small. */
const MAX_TERM = 64;
const MIN_TERM = 2;
/** Bodies deeper than this are not walked (a line of an order is at depth 2–3). */
const MAX_DEPTH = 4;
/** Parts a block's index is split into, by the term's hash: a search reads one part of each block, not all of it. */
export const INDEX_PARTS = 16;
/** A term's fingerprint: 7 characters (32 bits of one hash, 10 of another); its first 3 are its token in block_tokens. */
const KEY_CHARS = 7;
const TOKEN_CHARS = 3;
/** What block_index keeps of a fingerprint: the characters after the token (a block gets there only through its token). */
const REST_CHARS = KEY_CHARS - TOKEN_CHARS;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const CODE = new Uint8Array(64);
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) {
  CODE[i] = ALPHABET.charCodeAt(i);
  VALUE[ALPHABET.charCodeAt(i)] = i;
}

/** The two 32-bit hashes of a term, any case: [h1, h2]. ASCII is folded in place; other text through toLowerCase. */
const hashed = new Uint32Array(2);
function hashTerm(text: string): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    else if (c >= 128) return hashFolded(text.toLowerCase());
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  finish(h1, h2);
}

function hashFolded(text: string): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  finish(h1, h2);
}

/** Murmur3's finalizer on both: every bit of the result depends on every character. */
function finish(h1: number, h2: number): void {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b);
  h1 = Math.imul(h1 ^ (h1 >>> 13), 0xc2b2ae35);
  hashed[0] = h1 ^ (h1 >>> 16);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 0x85ebca6b);
  h2 = Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  hashed[1] = h2 ^ (h2 >>> 16);
}

const partOf = (h2: number): number => h2 & (INDEX_PARTS - 1);

/** The 3 characters of a term's token, written at `at`. */
function writeToken(out: Uint8Array, at: number, h1: number): void {
  out[at] = CODE[h1 >>> 26];
  out[at + 1] = CODE[(h1 >>> 20) & 63];
  out[at + 2] = CODE[(h1 >>> 14) & 63];
}

/** The 4 characters of a fingerprint after its token, written at `at`. */
function writeRest(out: Uint8Array, at: number, h1: number, h2: number): void {
  const low = (h2 >>> 4) & 0x3ff;
  out[at] = CODE[(h1 >>> 8) & 63];
  out[at + 1] = CODE[(h1 >>> 2) & 63];
  out[at + 2] = CODE[((h1 & 3) << 4) | (low >>> 6)];
  out[at + 3] = CODE[low & 63];
}

/** Entries gathered for one block: [h1, h2, item index] triples, reused from block to block (one thread, one at a time). */
let triples = new Uint32Array(3 * 4096);
let count = 0;
let itemStart = 0;

function push(h1: number, h2: number, item: number): void {
  // The same term twice in one item (a SKU as document key and as product code): one entry. Items hold few terms.
  for (let k = itemStart; k < count && count - itemStart < 64; k++) {
    if (triples[3 * k] === h1 && triples[3 * k + 1] === h2) return;
  }
  if (3 * count + 3 > triples.length) {
    const grown = new Uint32Array(triples.length * 2);
    grown.set(triples);
    triples = grown;
  }
  triples[3 * count] = h1;
  triples[3 * count + 1] = h2;
  triples[3 * count + 2] = item;
  count++;
}

function addTerm(text: string, item: number): void {
  hashTerm(text);
  push(hashed[0], hashed[1], item);
}

function addBody(body: unknown, item: number, depth: number): void {
  if (typeof body === 'string') {
    if (body.length >= MIN_TERM && body.length <= MAX_TERM) addTerm(body, item);
  } else if (Array.isArray(body)) {
    if (depth < MAX_DEPTH) for (const v of body) addBody(v, item, depth + 1);
  } else if (body !== null && typeof body === 'object' && depth < MAX_DEPTH) {
    for (const key in body) addBody((body as Record<string, unknown>)[key], item, depth + 1);
  }
}

/** Characters of an item index for a block of `items` items (6 bits each). */
function indexWidth(items: number): number {
  let width = 1;
  while (width < 5 && items > 64 ** width) width++;
  return width;
}

/** A set of the block's distinct terms by their two hashes (open addressing), reused from block to block. */
let slotHashes = new Uint32Array(2 * 8192);
let slotUsed = new Uint8Array(8192);

/** Whether the term [h1, h2] was not in the set yet (and is now). `mask`: the set's size - 1. */
function firstSeen(h1: number, h2: number, mask: number): boolean {
  for (let slot = h1 & mask; ; slot = (slot + 1) & mask) {
    if (slotUsed[slot] === 0) {
      slotUsed[slot] = 1;
      slotHashes[2 * slot] = h1;
      slotHashes[2 * slot + 1] = h2;
      return true;
    }
    if (slotHashes[2 * slot] === h1 && slotHashes[2 * slot + 1] === h2) return false;
  }
}

/** A block's index: for every part that holds a term, its tokens (block_tokens) and entries (block_index). */
export interface BlockIndexPart {
  part: number;
  tokens: string;
  entries: string;
}

/**
 * The index of a block, by part. `items[i]` and `bodies[i]` (a value, not JSON text) are of the block's i-th item.
 */
export function blockIndex(items: ReadonlyArray<{ readonly docKey?: string | null }>, bodies: readonly unknown[]): BlockIndexPart[] {
  count = 0;
  for (let i = 0; i < items.length; i++) {
    itemStart = count;
    const key = items[i].docKey;
    if (key) addTerm(key.trim(), i);
    addBody(bodies[i], i, 0);
  }
  const width = indexWidth(items.length);
  const entry = REST_CHARS + width;
  const perPart = new Uint32Array(INDEX_PARTS);
  for (let k = 0; k < count; k++) perPart[partOf(triples[3 * k + 1])]++;
  const start = new Uint32Array(INDEX_PARTS + 1);
  for (let p = 0; p < INDEX_PARTS; p++) start[p + 1] = start[p] + (perPart[p] > 0 ? 1 + perPart[p] * entry : 0);
  const out = Buffer.allocUnsafe(start[INDEX_PARTS]);
  const next = start.slice(0, INDEX_PARTS);
  for (let p = 0; p < INDEX_PARTS; p++) if (perPart[p] > 0) out[next[p]++] = 48 + width;
  for (let k = 0; k < count; k++) {
    const h2 = triples[3 * k + 1];
    const at = next[partOf(h2)];
    writeRest(out, at, triples[3 * k], h2);
    let item = triples[3 * k + 2];
    for (let c = width - 1; c >= 0; c--, item = Math.floor(item / 64)) out[at + REST_CHARS + c] = CODE[item % 64];
    next[partOf(h2)] = at + entry;
  }
  // The tokens of each part's distinct terms (an item's index is not needed there: block_index has it).
  let size = 1024;
  while (size < 2 * count) size *= 2;
  if (slotUsed.length < size) {
    slotUsed = new Uint8Array(size);
    slotHashes = new Uint32Array(2 * size);
  }
  slotUsed.fill(0, 0, size);
  const tokens = Buffer.allocUnsafe(count * TOKEN_CHARS);
  const tokenStart = new Uint32Array(INDEX_PARTS + 1);
  const tokenCount = new Uint32Array(INDEX_PARTS);
  const firsts = new Uint8Array(count);
  for (let k = 0; k < count; k++) {
    if (!firstSeen(triples[3 * k], triples[3 * k + 1], size - 1)) continue;
    firsts[k] = 1;
    tokenCount[partOf(triples[3 * k + 1])]++;
  }
  for (let p = 0; p < INDEX_PARTS; p++) tokenStart[p + 1] = tokenStart[p] + tokenCount[p] * TOKEN_CHARS;
  const tokenNext = tokenStart.slice(0, INDEX_PARTS);
  for (let k = 0; k < count; k++) {
    if (firsts[k] === 0) continue;
    const h1 = triples[3 * k];
    const at = tokenNext[partOf(triples[3 * k + 1])];
    writeToken(tokens, at, h1);
    tokenNext[partOf(triples[3 * k + 1])] = at + TOKEN_CHARS;
  }
  const parts: BlockIndexPart[] = [];
  for (let p = 0; p < INDEX_PARTS; p++) {
    if (perPart[p] > 0) parts.push({ part: p, tokens: tokens.toString('latin1', tokenStart[p], tokenStart[p + 1]), entries: out.toString('latin1', start[p], start[p + 1]) });
  }
  return parts;
}

/** One term, looked up in many blocks' tokens and index texts. */
export class IndexProbe {
  readonly part: number;
  /** The term's 7-character fingerprint in block_index. */
  readonly key: string;
  /** Its 3-character token in block_tokens: the key's first characters. */
  readonly token: string;
  constructor(readonly term: string) {
    hashTerm(term);
    const key = Buffer.alloc(KEY_CHARS);
    writeToken(key, 0, hashed[0]);
    writeRest(key, TOKEN_CHARS, hashed[0], hashed[1]);
    this.key = key.toString('latin1');
    this.token = this.key.slice(0, TOKEN_CHARS);
    this.part = partOf(hashed[1]);
  }

  /** Whether a block's tokens (of the term's part) hold the term's token: false means the block certainly does not hold the term. */
  mayHold(tokens: string): boolean {
    for (let at = tokens.indexOf(this.token); at >= 0; at = tokens.indexOf(this.token, at + 1)) if (at % TOKEN_CHARS === 0) return true;
    return false;
  }

  /** The indexes of the block's items that carried the term (a part's text of block_index), ascending. */
  items(text: string): number[] {
    const width = text.charCodeAt(0) - 48;
    const entry = REST_CHARS + width;
    const rest = this.key.slice(TOKEN_CHARS);
    const found: number[] = [];
    for (let at = text.indexOf(rest, 1); at >= 0; at = text.indexOf(rest, at + 1)) {
      if ((at - 1) % entry !== 0) continue; // the characters straddle two entries
      let item = 0;
      for (let c = 0; c < width; c++) item = item * 64 + VALUE[text.charCodeAt(at + REST_CHARS + c)];
      found.push(item);
    }
    return found.length > 1 ? [...new Set(found)].sort((a, b) => a - b) : found;
  }
}
