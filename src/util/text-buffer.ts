/** Bytes a UTF-8 character may take, per UTF-16 code unit of the string it came from. */
const MAX_BYTES_PER_UNIT = 3;

/**
 * Text written as UTF-8 into a buffer that grows, read out as bytes or as one string. What the hot paths build row
 * by row (a block's JSON, a result file's CSV) goes here instead of through string templates and `+=`: those leave a
 * few hundred bytes of short-lived strings per row for a row of forty characters, and the collections they cause cost
 * more than the copying (see JsonTextWriter and ResultSpool).
 */
export class TextBuffer {
  #buffer: Buffer;
  #at = 0;

  constructor(size = 64 * 1024) {
    this.#buffer = Buffer.allocUnsafe(size);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.#at;
  }

  /** Bytes it can hold before it grows again. */
  get capacity(): number {
    return this.#buffer.length;
  }

  /** The buffer, with room for `bytes` more. */
  #room(bytes: number): Buffer {
    if (this.#buffer.length - this.#at < bytes) {
      const grown = Buffer.allocUnsafe(Math.max(this.#buffer.length * 2, this.#at + bytes));
      this.#buffer.copy(grown, 0, 0, this.#at);
      this.#buffer = grown;
    }
    return this.#buffer;
  }

  /** Text known to be ASCII (punctuation, a number's digits, a JSON text made elsewhere). */
  ascii(text: string): this {
    const length = text.length;
    const buffer = this.#room(length);
    let at = this.#at;
    if (length <= 8) for (let i = 0; i < length; i++) buffer[at++] = text.charCodeAt(i);
    else at += buffer.write(text, at, 'latin1');
    this.#at = at;
    return this;
  }

  /** A number as String(n) writes it; an integer digit by digit, without a string in between. */
  number(n: number): this {
    if (!Number.isSafeInteger(n) || n < 0) return this.ascii(String(n));
    const buffer = this.#room(16);
    let rest = n;
    let at = (this.#at += digitsOf(n));
    // Integer division below 2^31 (a line, a seq, an id); floating division above.
    for (; rest > 0x7fffffff; rest = Math.floor(rest / 10)) buffer[--at] = 48 + (rest % 10);
    do {
      const next = (rest / 10) | 0;
      buffer[--at] = 48 + rest - next * 10;
      rest = next;
    } while (rest > 0);
    return this;
  }

  /** Any text, as UTF-8. */
  text(text: string): this {
    const buffer = this.#room(MAX_BYTES_PER_UNIT * text.length);
    const start = this.#at;
    // An SKU or an order number: ASCII, copied here (a write through the binding costs more than the copy).
    let at = start;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128) {
        at = start + buffer.write(text, start, 'utf8');
        break;
      }
      buffer[at++] = c;
    }
    this.#at = at;
    return this;
  }

  /** Bytes `from` to `to` of what was written, written again at the end. */
  again(from: number, to: number): this {
    const buffer = this.#room(to - from);
    buffer.copyWithin(this.#at, from, to);
    this.#at += to - from;
    return this;
  }

  /** The bytes written (a view: valid until the next write or `clear`). */
  bytes(): Buffer {
    return this.#buffer.subarray(0, this.#at);
  }

  /** The text written, as one string. */
  toString(): string {
    return this.#buffer.toString('utf8', 0, this.#at);
  }

  clear(): void {
    this.#at = 0;
  }
}

/** Decimal digits of a non-negative safe integer. */
export function digitsOf(n: number): number {
  let digits = 1;
  for (let limit = 10; n >= limit && digits < 16; limit *= 10) digits++;
  return digits;
}
