/**
 * The one CSV writer of the bridge (export work lists, their acknowledgement files, inbound result files) and the
 * one formula-neutralization rule. Quoting follows csv-stringify's (which the exports used before): a field holding
 * the delimiter, the quote, CR or LF is quoted; quotes inside are preceded by the escape character, and escape
 * characters inside a quoted field are doubled when escape and quote differ. Empty fields are never quoted.
 */

/** Text a spreadsheet would run as a formula: = + - @ TAB CR, and their full-width forms (Apple Numbers normalizes those). */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/** A plain signed decimal number: every spreadsheet reads it as that number, never as a formula. ASCII only. */
const PLAIN_NUMBER = { '.': /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/, ',': /^[+-]?(?:\d+(?:,\d*)?|,\d+)$/ } as const;

/**
 * OWASP CSV-injection rule: text starting like a formula gets a leading `'`, unless it is a plain signed decimal
 * number (`-2`, `+1`, `-2.5`; `-1,5` with `decimal: ','`) — prefixing one would change data a WMS imports.
 * `-1+1`, `-2e3`, full-width signs and anything else starting with a sign are neutralized.
 */
export function neutralizeFormula(text: string, decimal: '.' | ',' = '.'): string {
  const first = text.charCodeAt(0);
  // Runs per cell: most text starts with a letter, past every formula start but the full-width ones.
  if (first > 64 && first < 0xff0b) return text;
  return FORMULA_START.test(text) && !PLAIN_NUMBER[decimal].test(text) ? `'${text}` : text;
}

export interface CsvDialect {
  delimiter: string;
  /** One character. */
  quote: string;
  /** One character; the quote itself (the default) doubles quotes. */
  escape: string;
  recordDelimiter: '\n' | '\r\n';
}

export const RFC4180: CsvDialect = { delimiter: ',', quote: '"', escape: '"', recordDelimiter: '\r\n' };

const charClass = (chars: Iterable<string>) => new RegExp(`[${[...new Set(chars)].map((c) => c.replace(/[\\\]^-]/g, '\\$&')).join('')}]`);

export class CsvWriter {
  readonly dialect: CsvDialect;
  /** A field holding one of these is quoted (a delimiter of several characters is looked for on its own). */
  readonly #mustQuote: RegExp;
  /** A joined row holding one of these goes field by field (the delimiter is counted instead). */
  readonly #rowSpecial: RegExp;

  constructor(dialect: CsvDialect) {
    this.dialect = dialect;
    const { delimiter, quote, escape } = dialect;
    this.#mustQuote = charClass([quote, '\r', '\n', ...(delimiter.length === 1 ? [delimiter] : [])]);
    this.#rowSpecial = charClass([quote, escape, '\r', '\n']);
  }

  /** One field of text, quoted when needed. */
  field(text: string): string {
    const { delimiter, quote, escape } = this.dialect;
    // A field ending in the start of a longer delimiter would run into the delimiter after it: quoted too.
    if (!this.#mustQuote.test(text) && (delimiter.length === 1 || (text + delimiter).indexOf(delimiter) >= text.length)) return text;
    let v = text;
    if (escape !== quote) v = v.replaceAll(escape, escape + escape);
    v = v.replaceAll(quote, escape + quote);
    return quote + v + quote;
  }

  /**
   * A cell of any value: null and undefined are empty, numbers are written as they are, objects as JSON, and text
   * is neutralized (see neutralizeFormula), then quoted when needed. Runs per cell of a result file: no closures.
   */
  cell(value: unknown): string {
    if (value === null || value === undefined) return '';
    if (typeof value === 'number') return String(value);
    const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    return this.field(neutralizeFormula(text));
  }

  /** A row of text fields (already neutralized where wanted), with its record delimiter. */
  row(fields: readonly string[]): string {
    const { delimiter } = this.dialect;
    const line = fields.join(delimiter);
    // The common case: nothing in the joined row needs quoting, and no field holds the (one-character) delimiter.
    if (delimiter.length === 1 && !this.#rowSpecial.test(line) && !extraDelimiter(line, delimiter, fields.length)) return line + this.dialect.recordDelimiter;
    let out = '';
    for (let i = 0; i < fields.length; i++) out += (i === 0 ? '' : delimiter) + this.field(fields[i]);
    return out + this.dialect.recordDelimiter;
  }

  /** A row of any values, each written as `cell` does. */
  cells(values: readonly unknown[]): string {
    let out = '';
    for (let i = 0; i < values.length; i++) out += (i === 0 ? '' : this.dialect.delimiter) + this.cell(values[i]);
    return out + this.dialect.recordDelimiter;
  }
}

/** True when a field of the joined row holds the delimiter: the row then has more delimiters than field gaps. */
function extraDelimiter(line: string, delimiter: string, fields: number): boolean {
  let n = 0;
  for (let i = line.indexOf(delimiter); i !== -1; i = line.indexOf(delimiter, i + delimiter.length)) if (++n >= fields) return true;
  return false;
}
