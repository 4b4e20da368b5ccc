import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CsvError } from 'csv-parse';
import { csvRecords } from './csv-records.js';
import { WisbridgeError } from '../errors.js';
import { createDecoder } from './decode.js';
import { InboundMapper } from './inbound-mapper.js';
import { FixedRecords } from './fixed-width.js';
import { X12Rows } from './x12-rows.js';
import type { Mapping } from './mapping.js';
import type { InboundOutcome, MapInboundOptions } from './inbound-types.js';

export type { InboundOutcome, MapInboundOptions, MappedBatch, MappedDocument, RejectedDocument, SkippedRow, X12Share } from './inbound-types.js';

/**
 * Streams a CSV, fixed-width or X12 file through a mapping: rows are parsed, grouped, given their reference ids, validated and batched. One bad row
 * rejects only its document; file-level problems (undecodable CSV, missing columns, limits) throw WisbridgeError.
 */
export async function* mapInbound(source: Readable, mapping: Mapping, options: MapInboundOptions): AsyncGenerator<InboundOutcome> {
  if (!mapping.inbound) throw new WisbridgeError('USAGE', `mapping "${mapping.name}" is an export, not an inbound mapping`);
  const d = mapping.dialect;
  const fixed = mapping.inbound.fixed;
  const mapper = new InboundMapper(mapping, options, d.comment !== undefined && !fixed);
  const decode = d.encoding === 'utf-8' ? [] : [createDecoder(d.encoding)];
  const quote = d.quote === false ? '' : d.quote;
  // The watch sees the bytes before decoding (quote and CR are ASCII in every encoding read here).
  const x12 = mapping.inbound.x12;
  const stages = x12
    ? [source, new X12Rows(x12, options.fileName, mapping.name, options.x12Verdicts, options.x12Share), mapper]
    : fixed
    ? [source, ...decode, new FixedRecords(fixed, d.skip_lines, d.max_record_size, options.fileName), mapper]
    : [source, breakWatch(quote, mapper), ...decode, csvParser(mapping, quote), mapper];
  const done = pipeline(stages as [Readable, Transform, Transform]);
  done.catch(() => undefined);
  try {
    for await (const outcome of mapper) yield outcome as InboundOutcome;
  } catch (error) {
    throw fileError(error, options.fileName);
  } finally {
    if (!mapper.readableEnded) mapper.destroy();
  }
  await done.catch((error) => {
    throw fileError(error, options.fileName);
  });
}

/** The CSV reader of a dialect: the plain-line splitter, handing over to csv-parse where a parser is needed. */
function csvParser(mapping: Mapping, quote: string): Transform {
  const d = mapping.dialect;
  // Line numbers: csv-parse's `info` costs a third of the parse time, so lines are counted here from the
  // records themselves (empty lines are skipped here too); only comment lines, which csv-parse drops
  // unseen, need `info`.
  const useInfo = d.comment !== undefined;
  return csvRecords({
    // Comment lines need csv-parse's `info`, an explicit CRLF delimiter makes a lone LF part of a field, and a
    // quote character beyond ASCII is looked for in bytes by breakWatch: those files go through csv-parse whole.
    fastPath: !useInfo && d.record_delimiter !== 'crlf' && (quote === '' || quote.charCodeAt(0) < 128),
    parse: {
      delimiter: d.delimiter, quote, escape: d.escape, bom: true, info: useInfo,
      comment: d.comment, comment_no_infix: true, from_line: d.skip_lines + 1,
      skip_empty_lines: useInfo && d.skip_empty_lines, skip_records_with_empty_values: useInfo && d.skip_empty_lines,
      max_record_size: d.max_record_size, relax_column_count: true, relax_quotes: true,
      record_delimiter: d.record_delimiter === 'lf' ? '\n' : d.record_delimiter === 'crlf' ? '\r\n' : undefined,
    },
  });
}

const CSV_MESSAGES: Record<string, string> = {
  CSV_MAX_RECORD_SIZE: 'a record is longer than dialect.max_record_size (an unclosed quote?)',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed before the end of the file (its quote opens on this line; if the WMS never quotes fields, set dialect.quote: false)',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote is followed by other characters than the delimiter',
};

function fileError(error: unknown, fileName: string): unknown {
  if (error instanceof WisbridgeError) return error;
  const csv = error as CsvError & { lines?: number; startLine?: number };
  if (typeof csv?.code === 'string' && csv.code.startsWith('CSV_')) {
    const message = CSV_MESSAGES[csv.code] ?? csv.message;
    return new WisbridgeError('FILE_UNREADABLE', `${fileName}, line ${csv.startLine ?? csv.lines ?? '?'}: ${message}`, { cause: error });
  }
  return error;
}

/**
 * Only a quoted field holds an LF, and a CR stays in a field only when it is quoted or not part of the record
 * delimiter. Counting line breaks costs two scans per field, so it starts only once the bytes (seen before
 * csv-parse gets them) hold the quote character or a CR; the flag never goes back, so it is conservative.
 * Quote and CR are ASCII, so this holds for UTF-8, windows-1252 and ISO-8859-1 bytes alike.
 */
function breakWatch(quote: string, mapper: { mayBreak: boolean }): Transform {
  const q = quote === '' ? -1 : quote.charCodeAt(0);
  if (q > 127) mapper.mayBreak = true;
  return new Transform({
    transform(chunk: Buffer | string, _enc, cb) {
      if (!mapper.mayBreak) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        if ((q >= 0 && bytes.indexOf(q) >= 0) || bytes.indexOf(13) >= 0) mapper.mayBreak = true;
      }
      cb(null, chunk);
    },
  });
}

