/** Text JSON.stringify escapes: quote, backslash, control characters, surrogates (a lone one is escaped, a pair kept). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Bytes a UTF-8 character may take, per UTF-16 code unit of the string it came from. */
const MAX_BYTES_PER_UNIT = 3;

let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * JSON text written byte by byte into one buffer and made a string once, at `end`. Built from templates, the JSON of
 * a block's 1,000 items left ~400 bytes of short strings per item behind for a text of ~35 characters each, and put
 * every seq and line number into V8's number-string cache, which kept them alive into the old generation: on the
 * thread that maps a 1,000,000-row file, 20 % of what it allocated (bench/inbound.ts with
 * BENCH_NODE_FLAGS=--trace-gc-nvp: 239–256 young-generation collections of that thread instead of 307–329).
 *
 * The buffer is shared by every writer of the thread: write one text at a time, synchronously, and `end` it.
 */
export class JsonTextWriter {
  #at = 0;

  /** Room for `bytes` more. */
  #room(bytes: number): Buffer {
    if (scratch.length - this.#at < bytes) {
      const grown = Buffer.allocUnsafe(Math.max(scratch.length * 2, this.#at + bytes));
      scratch.copy(grown, 0, 0, this.#at);
      scratch = grown;
    }
    return scratch;
  }

  /** ASCII that is JSON already: punctuation, `null`, a JSON text made elsewhere. */
  raw(ascii: string): this {
    const buffer = this.#room(ascii.length);
    if (ascii.length <= 4) for (let i = 0; i < ascii.length; i++) buffer[this.#at++] = ascii.charCodeAt(i);
    else this.#at += buffer.write(ascii, this.#at, 'latin1');
    return this;
  }

  /** A number as JSON.stringify writes it; a safe integer without a string in between. */
  number(n: number): this {
    if (!Number.isSafeInteger(n) || n < 0) return this.raw(Number.isFinite(n) ? String(n) : 'null');
    const buffer = this.#room(16);
    let digits = 1;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    for (let at = this.#at + digits - 1, rest = n; at >= this.#at; at--, rest = Math.floor(rest / 10)) buffer[at] = 48 + (rest % 10);
    this.#at += digits;
    return this;
  }

  /** A string (or null) as JSON.stringify writes it. */
  text(value: string | null): this {
    if (value === null) return this.raw('null');
    if (JSON_ESCAPED.test(value)) {
      const json = JSON.stringify(value);
      this.#at += this.#room(MAX_BYTES_PER_UNIT * json.length).write(json, this.#at, 'utf8');
      return this;
    }
    const buffer = this.#room(MAX_BYTES_PER_UNIT * value.length + 2);
    const start = this.#at;
    buffer[start] = 34;
    // An SKU or an order number: ASCII, copied here (a write through the binding costs more than the copy).
    let at = start + 1;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c >= 128) {
        at = start + 1 + buffer.write(value, start + 1, 'utf8');
        break;
      }
      buffer[at++] = c;
    }
    buffer[at] = 34;
    this.#at = at + 1;
    return this;
  }

  /** The text written, as one string; the writer is empty again. */
  end(): string {
    const text = scratch.toString('utf8', 0, this.#at);
    this.#at = 0;
    return text;
  }
}
