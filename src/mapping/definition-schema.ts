import { z } from 'zod';
import { WRITE_ENDPOINT_IDS } from '../contract/index.js';
import { EXPORT_DOCUMENTS } from './export-documents.js';

// The schema of a mapping definition file (YAML). Descriptions feed schemas/mapping.schema.json and docs/mapping.md.

export const REFERENCE_KINDS = ['customerShipment', 'outboundTransfer', 'inboundTransfer', 'supplierShipment', 'customerReturn', 'product'] as const;

/** The writes an inbound mapping can feed: every write endpoint of the registry (src/contract/writes/). */
export const INBOUND_DOCUMENTS = WRITE_ENDPOINT_IDS;

export { EXPORT_DOCUMENTS };

const columnRef = z
  .union([z.string().min(1), z.number().int().min(1)])
  .describe('A column: its header name (or a name from `columns` / `record_types`), or its 1-based position.');

const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const conditionSchema = z
  .strictObject({
    column: columnRef,
    equals: z.string().optional().describe('the raw value equals this text'),
    not_equals: z.string().optional().describe('the raw value differs from this text'),
    in: z.array(z.string()).optional().describe('the raw value is one of these'),
    not_in: z.array(z.string()).optional().describe('the raw value is none of these'),
    empty: z.boolean().optional().describe('true: the value is empty or blank; false: it is not'),
    matches: z.string().optional().describe('the raw value matches this regular expression'),
  })
  .describe('A test on one raw cell value; every test given must hold.');

export type ConditionTree = z.output<typeof conditionSchema> | { any: ConditionTree[] } | { all: ConditionTree[] };

/** A test, or any-of / all-of a list of them (nested as deep as needed). */
export const conditionTreeSchema: z.ZodType<ConditionTree> = z.union([
  conditionSchema,
  z.strictObject({
    get any() {
      return z.array(conditionTreeSchema).min(1).describe('holds when at least one of these holds');
    },
  }),
  z.strictObject({
    get all() {
      return z.array(conditionTreeSchema).min(1).describe('holds when every one of these holds');
    },
  }),
]).describe('A test on one raw cell, or { any: [...] } / { all: [...] } of tests.');

const conditions = z.union([conditionTreeSchema, z.array(conditionTreeSchema)]);

export const transformSchema = z
  .union([
    z.enum(['trim', 'trim_start', 'trim_end', 'upper', 'lower', 'collapse_spaces']),
    z.strictObject({
      pad: z.strictObject({
        length: z.number().int().min(1),
        char: z.string().length(1).default(' '),
        side: z.enum(['left', 'right']).default('left'),
      }),
    }).describe('pad to a length (e.g. leading zeros)'),
    z.strictObject({
      substring: z.strictObject({ start: z.number().int().min(0).describe('0-based'), length: z.number().int().min(0).optional() }),
    }).describe('keep part of the value'),
    z.strictObject({
      regex: z.strictObject({
        pattern: z.string().describe('a regular expression; the value must match'),
        group: z.union([z.number().int().min(0), z.string()]).default(1).describe('capture group kept (number or name)'),
      }),
    }).describe('extract with a regular expression; a value that does not match is a row error'),
    z.strictObject({
      replace: z.strictObject({ pattern: z.string(), with: z.string().default(''), regex: z.boolean().default(false) }),
    }).describe('replace every occurrence of a text (or regular expression)'),
    z.strictObject({
      map: z.strictObject({
        values: z.record(z.string(), z.string()),
        default: z.string().optional().describe('used for values not in the table; without it an unknown value is a row error'),
      }),
    }).describe('a value map written inline'),
    z.strictObject({
      lookup: z.strictObject({ table: z.string().describe('a name under `tables`'), default: z.string().optional() }),
    }).describe('a value map shared through `tables`'),
  ])
  .describe('A text transform, applied in order before typed parsing.');

export const fieldSchema = z
  .strictObject({
    column: columnRef.optional().describe('the column the value comes from'),
    value: scalar.optional().describe('a constant'),
    concat: z.array(z.union([columnRef, z.strictObject({ value: z.string() })])).optional().describe('join several columns (and constants)'),
    separator: z.string().optional().describe('separator for `concat`'),
    transforms: z.array(transformSchema).optional(),
    default: scalar.optional().describe('used when the (transformed) value is empty'),
    split: z.string().optional().describe('split the value into a list on this separator (e.g. serial numbers); empty parts are dropped'),
    type: z.enum(['string', 'integer', 'number', 'boolean', 'date', 'datetime']).optional().describe('typed parsing; default string'),
    decimal: z.enum(['.', ',']).optional().describe('decimal separator for number/integer; default "."'),
    thousands: z.enum(['', '.', ',', ' ', "'"]).optional().describe('thousands separator accepted for number/integer; default none'),
    true: z.array(z.string()).optional().describe('words read as true (boolean); default true, yes, y, 1'),
    false: z.array(z.string()).optional().describe('words read as false (boolean); default false, no, n, 0'),
    format: z.string().optional().describe('date/datetime pattern, e.g. dd.MM.yyyy, yyyyMMdd, MM/dd/yyyy HH:mm; default ISO 8601'),
    time_zone: z.string().optional().describe('IANA time zone of datetimes without an offset; default UTC'),
    two_digit_years_from: z.number().int().min(1000).max(9900).optional()
      .describe('a yy year is the first year from this one on that ends in its digits; default 1970 (70–99 → 1970–1999, 00–69 → 2000–2069); 2000 reads a placeholder expiry 31.12.99 as 2099'),
    id_of: z.enum(REFERENCE_KINDS).optional().describe('replace the value (a number or SKU) with the id of the record of this kind, found through the API (its old name `resolve` is still read, with a deprecation warning)'),
    check: z.enum(REFERENCE_KINDS).optional().describe('keep the value but require that it exists (e.g. a SKU check)'),
    escape_formulas: z.boolean().optional().describe('exports: neutralize a leading = + - @ tab CR (a plain signed number such as -2 or -1,5 with decimal "," is kept); default from the dialect'),
    send: z.boolean().optional()
      .describe('false: the value is read, parsed and checked (a row error when it fails; check/id_of still apply) but not put into the request; its name is free'),
  })
  .describe('One output field. A bare string is a column name, a bare number a column position.');

export const fieldOrShorthand = z.union([columnRef, fieldSchema]);

export interface NodeSpecInput {
  key?: string | number | (string | number)[];
  when?: z.input<typeof conditions>;
  optional_level?: boolean | string;
  fields?: Record<string, z.input<typeof fieldOrShorthand>>;
  lists?: Record<string, NodeSpecInput>;
}

export const nodeSchema = z
  .strictObject({
    key: z.union([columnRef, z.array(columnRef).min(1)]).optional()
      .describe('grouping key: rows with the same key form one element (one document at the top); without a key each row is its own element'),
    when: conditions.optional().describe('only rows passing these tests contribute to this list (a list of tests: all must hold; { any: [...] } for any-of)'),
    optional_level: z.union([z.boolean(), z.string().min(1)]).optional()
      .describe('when the key is empty, the row skips this level and a nested list feeds this list directly (packages that are not on a pallet): true with a single nested list, or the name of that list when the level has others (a pallet\'s own consumables)'),
    fields: z.record(z.string(), fieldOrShorthand).default({}).describe('output fields; a dotted name (lot.number) builds nested objects; header fields come from the first row of the group'),
    get lists() {
      return z.record(z.string(), nodeSchema).optional().describe('nested arrays (lines, packages, children, items, consumables)');
    },
  })
  .describe('One level of the request: the document, or an element of a nested list.');

/** A column of a fixed-width record: its name and its place in the line (characters, 1-based). */
export const fixedColumnSchema = z
  .strictObject({
    name: z.string().min(1),
    start: z.number().int().min(1).describe('first character, 1-based'),
    length: z.number().int().min(1).describe('number of characters'),
  })
  .describe('fixed width: a column by name, first character (1-based) and length; the value is trimmed');

const columnDefs = z.array(z.union([z.string().min(1), fixedColumnSchema])).min(1);

export const dialectSchema = z
  .strictObject({
    format: z.enum(['csv', 'fixed', 'x12']).default('csv')
      .describe('csv: delimited fields; fixed: fixed-width records (AS/400, mainframe exports), columns by start and length (`columns`, `record_types.types.X.columns`; exports: `length` per column); x12: ANSI X12 EDI, record types are segments (`N9[LT]`), columns their elements (`W12-03`), one transaction set (`transaction_set`) a document'),
    transaction_set: z.string().regex(/^[0-9A-Z]{3}$/, 'is a transaction set identifier (ST01) such as 945').optional()
      .describe('x12: the transaction set (ST01) the mapping reads, e.g. 945; a set of another kind in the file is rejected'),
    delimiter: z.string().min(1).default(',').describe('field delimiter, one or more characters (";", "|", "\t" for tabs, "||")'),
    quote: z.union([z.string().length(1), z.literal(false)]).default('"')
      .describe('quote character around fields that hold the delimiter or a line break; false: quotes are ordinary characters and every line is one record'),
    escape: z.string().length(1).default('"').describe('the character before a quote inside a quoted field; default the quote itself (a doubled quote "" is one quote)'),
    encoding: z.enum(['utf-8', 'windows-1252', 'iso-8859-1']).default('utf-8')
      .describe('the encoding files are read (inbound) or written (exports) in; inbound, a UTF-8 byte order mark always wins (it is stripped and the file read as UTF-8)'),
    bom: z.boolean().default(false).describe('exports: write a UTF-8 byte order mark (for Excel; encoding utf-8 only). Inbound a BOM is always accepted'),
    header: z.boolean().default(true).describe('inbound: the first row (after skip_lines) names the columns; false: columns by position (named with columns); exports: write a header row'),
    skip_lines: z.number().int().min(0).default(0).describe('inbound: lines skipped (not reported) before the header or first row, e.g. a report title'),
    comment: z.string().length(1).optional().describe('inbound: lines starting with this character are ignored and not reported; default none'),
    skip_empty_lines: z.boolean().default(true).describe('inbound: empty lines and lines whose cells are all blank (";;;") are ignored and not reported; false: they are rows (and usually fail as such)'),
    record_delimiter: z.enum(['auto', 'lf', 'crlf']).default('auto').describe('line ending. auto: inbound, LF, CRLF or CR as the first line shows; exports write LF. lf / crlf: only that ending ends a record (with crlf a lone LF is part of a field); exports write it'),
    max_record_size: z.number().int().min(1024).default(1_048_576).describe('inbound: the largest record in characters; a longer one (an unclosed quote reading on) refuses the file, naming the line where it starts'),
    escape_formulas: z.boolean().default(true).describe('exports: neutralize values starting with = + - @ tab or CR that are not plain signed numbers (-2 and +1.5 are kept)'),
  })
  .describe('The CSV dialect.');

export const recordTypesSchema = z
  .strictObject({
    column: z.number().int().min(1).default(1).describe('position of the record-type code'),
    types: z.record(
      z.string(),
      z.strictObject({
        columns: columnDefs.optional().describe('names of this record type\'s columns by position (the type column included; with format fixed { name, start, length }); unique across types. Required for csv and fixed; x12 names elements as SEGMENT-NN instead'),
        emit: z.boolean().optional().describe('rows of this type are mapped (default: the last type listed that is not skipped); others only set context, and one with no mapped record below it is a row error'),
        skip: z.boolean().optional().describe('records of this type are left out and reported skipped (trailers, notes, records the API has no field for)'),
        qualifier_element: z.number().int().min(1).max(99).optional()
          .describe('x12: the element a type written SEG[A,B] tests for its qualifier values (default 1: N9-01, N1-01; HL[I] tests HL-03 with 3)'),
        join: z.string().optional()
          .describe('x12: a segment of this type that repeats within one row (several N9[SE] serial numbers after one W12) adds its values to the row\'s, joined with this text (read them with split); without it a repeat is a row error'),
      }),
    ).describe('record types in nesting order (H before P before D): a record resets the context of the types after it'),
  })
  .describe('EDI-style files with several record types: each mapped row sees the columns of the records above it.');

const numberFormat = {
  decimal: z.enum(['.', ',']).optional().describe('decimal separator of the asserted value and of summed cells; default "."'),
  thousands: z.enum(['', '.', ',', ' ', "'"]).optional().describe('thousands separator accepted; default none'),
};

export const controlTotalsSchema = z
  .strictObject({
    trailer: z.string().min(1).optional().describe('record_types: the type code of the trailer record that carries the totals (its records are checked, not mapped)'),
    footer: z.array(z.string().min(1)).min(1).optional().describe('files without record types: the last line is a footer with these columns (by position), not a row'),
    checks: z.array(z.strictObject({
      column: z.string().min(1).describe('the trailer / footer column holding the asserted value'),
      count: z.string().min(1).optional().describe('records: every data record of the file (not the header, the trailer or ignored lines); lines: the physical lines of the file from its first through the trailer / footer line (header, skipped, comment and blank lines included), for trailers that count themselves; or a record type code: the records of that type'),
      sum: columnRef.optional().describe('a column whose values are added up over the records (of the type that has that column); a cell that is not a number refuses the file, naming its line and column'),
      ...numberFormat,
    })).default([]).describe('file totals, compared with the trailer / footer; a mismatch refuses the whole file'),
    documents: z.array(z.strictObject({
      column: columnRef.describe('a column of the document\'s first row (e.g. the header record) holding the asserted value'),
      count: z.literal('rows').optional().describe('rows: the document\'s mapped rows (detail records)'),
      sum: columnRef.optional().describe('a column whose values are added up over the document\'s rows'),
      ...numberFormat,
    })).default([]).describe('totals per document, compared with a column of the document\'s first row'),
    on_mismatch: z.enum(['file', 'document']).default('file')
      .describe('a document total that does not match refuses the whole file (file) or only that document (document); file totals always refuse the file'),
  })
  .describe('Control totals: a trailer record or footer line asserts counts and sums; checked before anything of the file is sent.');

export const groupingSchema = z
  .strictObject({
    whole_file: z.boolean().default(false).describe('the whole file is one request, all or nothing (implied for inventory.counts); request.key must be absent'),
    sorted: z.boolean().default(false).describe('true: the file is sorted by the document key; a document is complete when the key changes (only the current one is held)'),
    max_open_documents: z.number().int().min(1).default(10_000).describe('unsorted files: most documents held at once before the file is refused'),
    max_rows_per_document: z.number().int().min(1).default(100_000),
  })
  .describe('How rows are grouped into documents.');

export const exportColumnSchema = fieldSchema
  .omit({ column: true, concat: true, separator: true, transforms: true, split: true, id_of: true, check: true, send: true })
  .extend({
    name: z.string().min(1).describe('header name of the column'),
    path: z.string().optional().describe('path in the record: a.b, list[0], codes[type=3pl_sku].value; with `rows`, `line.x` reads the current line'),
    join: z.string().optional().describe('join an array value with this separator'),
    length: z.number().int().min(1).optional().describe('fixed width: the column\'s width in characters (required with dialect.format fixed); a longer value fails the export'),
    align: z.enum(['left', 'right']).optional().describe('fixed width: left (default) pads on the right, right pads on the left (numbers)'),
    pad_char: z.string().length(1).optional().describe('fixed width: the padding character; default a space'),
  })
  .describe('One column of an export.');

export const exportSchema = z
  .strictObject({
    rows: z.string().optional().describe('path of an array in each record: one row per element (e.g. lines), header fields repeated; without it one row per record'),
    columns: z.array(exportColumnSchema).min(1).optional().describe('flat layout'),
    header_record: z.strictObject({ type: z.string(), columns: z.array(exportColumnSchema).min(1) }).optional()
      .describe('header/line layout: the header record (first column = type code)'),
    line_record: z.strictObject({ type: z.string(), columns: z.array(exportColumnSchema).min(1) }).optional(),
  })
  .describe('How records become rows.');

export const mappingDefinitionSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/).optional().describe('defaults to the file name without .yaml'),
    description: z.string().optional(),
    document: z.enum([...INBOUND_DOCUMENTS, ...EXPORT_DOCUMENTS]).describe('the API write this file feeds, or the work list it exports'),
    files: z.union([z.string(), z.array(z.string()).min(1)]).describe('file-name patterns (* and ? wildcards, case-insensitive)'),
    ordered: z.boolean().default(false)
      .describe('inbound: the files of this mapping are processed one at a time in name order: a file starts only once every earlier-named file of the mapping waiting with it has finished (a job\'s files_in_flight never runs two of them at once); for a WMS whose later files build on earlier ones'),
    dialect: dialectSchema.default(() => dialectSchema.parse({})),
    columns: columnDefs.optional().describe('names for positional columns (header: false); with format fixed, { name, start, length } per column'),
    record_types: recordTypesSchema.optional(),
    skip: conditions.optional().describe('rows for which any of these tests holds are skipped (each test may be { all: [...] } / { any: [...] })'),
    tables: z.record(z.string(), z.record(z.string(), z.string())).optional().describe('lookup tables for the lookup transform'),
    grouping: groupingSchema.default(() => groupingSchema.parse({})),
    control_totals: controlTotalsSchema.optional(),
    request: nodeSchema.optional().describe('inbound: how rows become one request item (one document)'),
    export: exportSchema.optional(),
    samples: z.array(z.string()).optional().describe('sample files (relative to the mapping) checked by `wisbridge mappings test`; each has an expected file NAME.expected.json beside it'),
  })
  .describe('A wisbridge mapping definition.');

export type MappingDefinition = z.output<typeof mappingDefinitionSchema>;
export type NodeSpec = z.output<typeof nodeSchema>;
export type FieldSpec = z.output<typeof fieldSchema>;
export type Condition = z.output<typeof conditionSchema>;
export type Transform = z.output<typeof transformSchema>;
export type Dialect = z.output<typeof dialectSchema>;
export type ExportColumn = z.output<typeof exportColumnSchema>;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];
export type InboundDocument = (typeof INBOUND_DOCUMENTS)[number];
export type ExportDocument = (typeof EXPORT_DOCUMENTS)[number];
