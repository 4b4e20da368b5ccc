import { TextBuffer } from './text-buffer.js';

/** Text JSON.stringify escapes: quote, backslash, control characters, surrogates (a lone one is escaped, a pair kept). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** What the shared buffer may keep between texts; a bigger one (a block of very long keys) is let go after its text. */
const KEPT_CAPACITY = 1024 * 1024;

let scratch = new TextBuffer();

/**
 * JSON text written byte by byte into one buffer and made a string once, at `end`. Built from templates, the JSON of
 * a block's items left many times its own size in short strings behind, and put every seq and line number into
 * V8's number-string cache, which kept them alive into the old generation: a large share of what the thread that
 * maps a big file allocated, and more young-generation collections of that thread
 * (docs/performance.md, "Settings chosen by measurement").
 *
 * The buffer is shared by every writer of the thread: write one text at a time, synchronously. A new writer starts
 * empty, whatever a writer before it left unended (one whose caller threw half-way).
 */
export class JsonTextWriter {
  constructor() {
    scratch.clear();
  }

  /** JSON made elsewhere, or punctuation. */
  raw(ascii: string): this {
    scratch.ascii(ascii);
    return this;
  }

  /** A number as JSON.stringify writes it. */
  number(n: number): this {
    if (Number.isFinite(n)) scratch.number(n);
    else scratch.ascii('null');
    return this;
  }

  /** A string (or null) as JSON.stringify writes it. */
  text(value: string | null): this {
    if (value === null) scratch.ascii('null');
    else if (JSON_ESCAPED.test(value)) scratch.text(JSON.stringify(value));
    else scratch.ascii('"').text(value).ascii('"');
    return this;
  }

  /**
   * Any value as JSON.stringify writes it: strings, numbers, booleans, null and plain objects of them written here (what
   * the service answers of an item: `{"move_id":4711}`), anything else through JSON.stringify.
   */
  value(value: unknown): this {
    if (typeof value === 'string') return this.text(value);
    if (typeof value === 'number') return this.number(value);
    if (typeof value === 'boolean' || value === null) return this.raw(String(value));
    if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype && !('toJSON' in value)) {
      const object = value as Record<string, unknown>;
      let first = true;
      scratch.ascii('{');
      for (const key in object) {
        const v = object[key];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        if (!first) scratch.ascii(',');
        first = false;
        this.text(key).raw(':').value(v);
      }
      scratch.ascii('}');
      return this;
    }
    const json = JSON.stringify(value) as string | undefined;
    if (json === undefined) return this.raw('null');
    scratch.text(json);
    return this;
  }

  /** The text written, as one string; the writer is empty again. */
  end(): string {
    const text = scratch.toString();
    if (scratch.capacity > KEPT_CAPACITY) scratch = new TextBuffer();
    else scratch.clear();
    return text;
  }
}
