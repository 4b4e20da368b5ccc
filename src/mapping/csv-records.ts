import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parse, type Info, type Options as CsvParseOptions, type Parser } from 'csv-parse';

export interface CsvRecordsOptions {
  /** csv-parse's options for the whole file; `from_line` and `bom` are applied here while lines are split here. */
  parse: CsvParseOptions & { delimiter: string; /** '' when quoting is off */ quote: string; max_record_size: number; from_line: number };
  /** Split plain lines here (false: csv-parse reads the whole file). */
  fastPath: boolean;
}

/**
 * UTF-8 CSV bytes → records (string[]). As long as the text holds neither the quote character nor a CR, every
 * LF ends a record and every delimiter ends a field, so lines are split here with String#split: far cheaper than
 * csv-parse, which builds each field in a Buffer, most of a row's cost (docs/performance.md, "Settings chosen by
 * measurement"). The first line that holds a quote or a CR, or is longer than max_record_size, is handed to csv-parse
 * with everything after it, so csv-parse decides every case that needs a parser (quoted fields, CRLF, errors and
 * their line numbers).
 */
export function csvRecords(options: CsvRecordsOptions): Transform {
  return options.fastPath ? new CsvRecords(options.parse) : trackedParser(options.parse, 0);
}

/** csv-parse errors that leave a record unfinished: `startLine` names the line that record began on. */
const UNFINISHED = new Set(['CSV_QUOTE_NOT_CLOSED', 'CSV_MAX_RECORD_SIZE']);

/**
 * csv-parse with the end of the last complete record followed (on_record never throws, as the library notes ask):
 * an unclosed quote is then reported where it opened, not where the file ends. `offset` counts the lines read
 * before this parser took over; the empty and comment lines csv-parse skipped after that record are counted in.
 */
function trackedParser(options: CsvRecordsOptions['parse'], offset: number): Parser {
  let end = options.from_line - 1;
  let empty = 0;
  let comments = 0;
  const parser = parse({
    ...options,
    on_record: (record: string[], info: Info) => {
      end = info.lines;
      empty = info.empty_lines;
      comments = info.comment_lines;
      return record;
    },
  });
  const locate = (error: ParseError) => {
    if (!UNFINISHED.has(error.code ?? '') || error.startLine !== undefined) return;
    error.startLine = offset + end + 1 + Math.max(0, (error.empty_lines ?? empty) - empty) + Math.max(0, (error.comment_lines ?? comments) - comments);
  };
  starts.set(parser, locate);
  parser.on('error', locate);
  return parser;
}

type ParseError = Error & { code?: string; lines?: number; startLine?: number; empty_lines?: number; comment_lines?: number };
const starts = new WeakMap<Parser, (error: ParseError) => void>();

/**
 * Plain records split here, handed on together: one stream write per RECORDS_PER_BATCH records instead of one per
 * record (the stream machinery cost more per row than splitting it). InboundMapper takes them one by one.
 */
export class RecordBatch {
  constructor(readonly records: readonly string[][]) {}
}

/** Records per RecordBatch: with the buffers on both sides of the pipe (a few batches) a few hundred KB are held. */
const RECORDS_PER_BATCH = 256;

class CsvRecords extends Transform {
  private readonly decoder = new StringDecoder('utf8');
  private readonly delimiter: string;
  private readonly quote: string;
  private readonly maxRecord: number;
  /** Lines still to skip (dialect.skip_lines). */
  private skip: number;
  private started = false;
  private rest = '';
  /** Lines read here before csv-parse took over: its error line numbers start after them. */
  private lines = 0;
  private parser?: Parser;
  private parserDone?: Promise<void>;
  /** Records split from the current chunk, not handed on yet. */
  private batch: string[][] = [];

  constructor(private readonly options: CsvRecordsOptions['parse']) {
    super({ readableObjectMode: true, readableHighWaterMark: 4 });
    this.delimiter = options.delimiter;
    this.quote = options.quote;
    this.maxRecord = options.max_record_size;
    this.skip = options.from_line - 1;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    // Decoded here even after the hand-over: the decoder may hold the first bytes of a character.
    const text = this.decoder.write(chunk);
    if (this.parser) this.toParser(text, cb);
    else this.split(text, false, cb);
  }

  override _flush(cb: TransformCallback): void {
    const text = this.decoder.end();
    if (this.parser) return this.toParser(text, (error) => (error ? cb(error) : this.endParser(cb)));
    this.split(text, true, (error) => {
      if (error || !this.parser) return cb(error);
      this.endParser(cb);
    });
  }

  private split(decoded: string, last: boolean, cb: TransformCallback): void {
    let text = this.rest + decoded;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const special = firstOf(text, this.quote, '\r');
    // Lines before the one holding the quote or CR are plain.
    const end = special < 0 ? text.length : text.lastIndexOf('\n', special) + 1;
    let pos = 0;
    for (let nl = text.indexOf('\n'); nl >= 0 && nl < end; nl = text.indexOf('\n', pos)) {
      if (nl - pos > this.maxRecord) break;
      this.record(text.slice(pos, nl));
      pos = nl + 1;
    }
    const tail = text.slice(pos);
    if (special >= 0 || tail.length > this.maxRecord) {
      this.pushBatch();
      return this.handOver(tail, cb);
    }
    if (last && tail.length > 0) this.record(tail);
    else this.rest = tail;
    this.pushBatch();
    cb();
  }

  private record(line: string): void {
    this.lines++;
    if (this.skip > 0) this.skip--;
    else if (this.batch.push(line.split(this.delimiter)) >= RECORDS_PER_BATCH) this.pushBatch();
  }

  private pushBatch(): void {
    if (this.batch.length === 0) return;
    this.push(new RecordBatch(this.batch));
    this.batch = [];
  }

  private handOver(text: string, cb: TransformCallback): void {
    this.rest = '';
    // csv-parse takes the first line ending it meets for the whole file: LF, once lines were split here.
    const recordDelimiter = this.lines > 0 ? '\n' : this.options.record_delimiter;
    const parser = trackedParser({ ...this.options, bom: false, from_line: this.skip + 1, record_delimiter: recordDelimiter }, this.lines);
    this.parser = parser;
    parser.on('data', (record: string[]) => this.push(record));
    parser.on('error', () => undefined); // reported through the write and end callbacks
    this.parserDone = new Promise((resolve, reject) => {
      parser.once('end', resolve);
      parser.once('error', reject);
    });
    this.parserDone.catch(() => undefined);
    this.toParser(text, cb);
  }

  private toParser(text: string, cb: TransformCallback): void {
    if (text === '') return cb();
    this.parser!.write(text, (error) => cb(error ? this.located(error) : undefined));
  }

  private endParser(cb: TransformCallback): void {
    this.parser!.end();
    this.parserDone!.then(() => cb(), (error: Error) => cb(this.located(error)));
  }

  /** csv-parse counts lines from where it took over (an error can come through a callback and its 'end' both). */
  private located(error: Error): Error {
    const e = error as ParseError;
    starts.get(this.parser!)?.(e);
    if (typeof e.lines === 'number' && !located.has(e)) {
      e.lines += this.lines;
      located.add(e);
    }
    return error;
  }
}

const located = new WeakSet<Error>();

function firstOf(text: string, a: string, b: string): number {
  const i = a === '' ? -1 : text.indexOf(a);
  const j = text.indexOf(b);
  return i < 0 ? j : j < 0 ? i : Math.min(i, j);
}
