import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { WisbridgeError } from '../errors.js';
import type { MappingDefinition } from './definition-schema.js';
import { DefinitionError } from './values.js';

// Fixed-width records (AS/400 and mainframe exports): each column is a slice of the line. Lines are cut into the
// same string[] records the CSV reader gives, so typing, transforms, record types and grouping work unchanged.

export type ColumnDef = string | { name: string; start: number; length: number };
interface Slice { start: number; end: number }

export const columnName = (c: ColumnDef): string => (typeof c === 'string' ? c : c.name);

export interface FixedLayout {
  /** Without record types: one slice per column of `columns`. */
  flat?: Slice[];
  /** With record types: where the type code is, and the slices of each type (the code's column included). */
  typed?: { code: Slice; codeIndex: number; types: Map<string, Slice[]> };
}

function slices(columns: readonly ColumnDef[], path: (string | number)[]): Slice[] {
  return columns.map((c, i) => {
    if (typeof c === 'string') throw new DefinitionError(`with dialect.format fixed, give each column as { name, start, length } ("${c}" has no position)`, [...path, i]);
    return { start: c.start - 1, end: c.start - 1 + c.length };
  });
}

/** Checks the positions of a fixed-width definition (and that a CSV one has none); undefined for CSV. */
export function planFixedLayout(def: MappingDefinition): FixedLayout | undefined {
  const fixed = def.dialect.format === 'fixed';
  const types = def.record_types?.types;
  if (!fixed) {
    const positioned = [...(def.columns ?? []).map((c, i) => ({ c, path: ['columns', i] })), ...Object.entries(types ?? {}).flatMap(([code, t]) => (t.columns ?? []).map((c, i) => ({ c, path: ['record_types', 'types', code, 'columns', i] })))]
      .find(({ c }) => typeof c !== 'string');
    if (positioned) throw new DefinitionError('start and length are for fixed-width files: set dialect.format: fixed, or name the column only', positioned.path);
    return undefined;
  }
  if (def.dialect.comment !== undefined) throw new DefinitionError('comment lines are for CSV files; a fixed-width file marks such lines with a record type (skip: true)', ['dialect', 'comment']);
  if (!types) {
    if (!def.columns) throw new DefinitionError('a fixed-width file needs columns: [{ name, start, length }, …] (or record_types)', ['dialect', 'format']);
    return { flat: slices(def.columns, ['columns']) };
  }
  const codeIndex = def.record_types!.column - 1;
  let code: Slice | undefined;
  const layouts = new Map<string, Slice[]>();
  for (const [type, t] of Object.entries(types)) {
    const path = ['record_types', 'types', type, 'columns'];
    const s = slices(t.columns ?? [], path);
    const own = s[codeIndex];
    if (!own) throw new DefinitionError(`record type ${type} has no column ${codeIndex + 1} (record_types.column): the type code's place`, path);
    if (code && (own.start !== code.start || own.end !== code.end)) throw new DefinitionError(`the type code column must have the same start and length in every record type (${type} differs)`, [...path, codeIndex]);
    if (type.length > own.end - own.start) throw new DefinitionError(`type code "${type}" is longer than its column of ${own.end - own.start} characters`, [...path, codeIndex]);
    code = own;
    layouts.set(type, s);
  }
  return { typed: { code: code!, codeIndex, types: layouts } };
}

/**
 * Decoded UTF-8 bytes → one record (string[]) per line, values trimmed. Every line gives a record (an empty line
 * an empty one) so that line numbers stay right; `skip` first lines are dropped. A short line gives empty values
 * for the columns it does not reach.
 */
export class FixedRecords extends Transform {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';
  private started = false;
  private line = 0;

  constructor(private readonly layout: FixedLayout, private skip: number, private readonly maxRecord: number, private readonly fileName: string) {
    super({ readableObjectMode: true, readableHighWaterMark: 64 });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.split(this.decoder.write(chunk), false, cb);
  }

  override _flush(cb: TransformCallback): void {
    this.split(this.decoder.end(), true, cb);
  }

  private split(decoded: string, last: boolean, cb: TransformCallback): void {
    let text = this.rest + decoded;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let pos = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', pos)) {
      this.record(text.slice(pos, nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl));
      pos = nl + 1;
    }
    this.rest = text.slice(pos);
    if (this.rest.length > this.maxRecord) {
      return cb(new WisbridgeError('FILE_UNREADABLE', `${this.fileName}, line ${this.line + 1}: a record is longer than dialect.max_record_size`));
    }
    if (last && this.rest.length > 0) {
      this.record(this.rest.endsWith('\r') ? this.rest.slice(0, -1) : this.rest);
      this.rest = '';
    }
    cb();
  }

  private record(line: string): void {
    this.line++;
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    if (line.trim() === '') return void this.push(['']);
    const typed = this.layout.typed;
    let cuts = this.layout.flat;
    if (typed) {
      const code = line.slice(typed.code.start, typed.code.end).trim();
      cuts = typed.types.get(code);
      if (!cuts) {
        const unknown = new Array<string>(typed.codeIndex + 1).fill('');
        unknown[typed.codeIndex] = code;
        return void this.push(unknown);
      }
    }
    const record = new Array<string>(cuts!.length);
    for (let i = 0; i < cuts!.length; i++) record[i] = line.slice(cuts![i].start, cuts![i].end).trim();
    this.push(record);
  }
}

/** Export: a value padded to its column's width; a value that does not fit fails (never silently cut). */
export function fixedCell(value: string, length: number, align: 'left' | 'right', pad: string, column: string): string {
  if (value.length > length) throw new WisbridgeError('ROW_INVALID', `export column ${column}: "${value}" is longer than its ${length} characters`);
  if (value.includes('\n') || value.includes('\r')) throw new WisbridgeError('ROW_INVALID', `export column ${column}: "${value}" holds a line break, which would split the fixed-width record`);
  if (align === 'left') return value.padEnd(length, pad);
  // Zeros go after the sign: -1.5 in 8 is -00001.5, not 0000-1.5.
  const signed = pad === '0' && (value.startsWith('-') || value.startsWith('+'));
  return signed ? value[0] + value.slice(1).padStart(length - 1, pad) : value.padStart(length, pad);
}
