import type { z } from 'zod';
import type { Dialect, ExportColumn, exportSchema } from './definition-schema.js';
import { compileFormat, DefinitionError, escapeFormula } from './values.js';
import { fixedCell } from './fixed-width.js';

type Getter = (v: unknown) => unknown;

/** Compiles a record path: a.b, list[0], codes[type=3pl_sku].value. */
export function compilePath(path: string, where: (string | number)[]): Getter {
  const steps: Getter[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[([^=\]]+)=([^\]]*)\]|(\.)/gy;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(path)) !== null) {
    last = re.lastIndex;
    if (m[5]) continue;
    if (m[1] !== undefined) {
      const k = m[1];
      steps.push((v) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined));
    } else if (m[2] !== undefined) {
      const i = Number(m[2]);
      steps.push((v) => (Array.isArray(v) ? v[i] : undefined));
    } else {
      const [k, want] = [m[3], m[4]];
      steps.push((v) => (Array.isArray(v) ? v.find((e) => e !== null && typeof e === 'object' && String((e as Record<string, unknown>)[k]) === want) : undefined));
    }
  }
  if (last !== path.length || steps.length === 0) throw new DefinitionError(`cannot read path "${path}" (use a.b, list[0], list[key=value].field)`, where);
  return (v) => {
    let o = v;
    for (const s of steps) {
      if (o === undefined || o === null) return undefined;
      o = s(o);
    }
    return o;
  };
}

type Cell = (record: unknown, line: unknown) => string;

function compileColumn(c: ExportColumn, dialect: Dialect, where: (string | number)[]): Cell {
  if (c.path !== undefined && c.value !== undefined) throw new DefinitionError(`column "${c.name}": give path or value, not both`, where);
  const format = compileFormat(c, where);
  const fixed = dialect.format === 'fixed';
  if (fixed && c.length === undefined) throw new DefinitionError(`column "${c.name}": a fixed-width export gives each column a length`, where);
  if (!fixed && (c.length !== undefined || c.align !== undefined || c.pad_char !== undefined)) throw new DefinitionError(`column "${c.name}": length, align and pad_char are for dialect.format: fixed`, where);
  // Fixed-width files are read by programs, not spreadsheets: no formula guard unless the column asks for it.
  const escape = c.escape_formulas ?? (fixed ? false : dialect.escape_formulas);
  const decimal = c.decimal ?? '.';
  const fallback = c.default === undefined ? '' : String(c.default);
  let get: (record: unknown, line: unknown) => unknown;
  if (c.value !== undefined) {
    const v = c.value;
    get = () => v;
  } else if (c.path?.startsWith('line.')) {
    const g = compilePath(c.path.slice(5), [...where, 'path']);
    get = (_r, line) => g(line);
  } else if (c.path !== undefined) {
    const g = compilePath(c.path, [...where, 'path']);
    get = (r) => g(r);
  } else {
    get = () => undefined;
  }
  const join = c.join;
  const cell: Cell = (record, line) => {
    const v = get(record, line);
    let s = Array.isArray(v) && join !== undefined ? v.map(format).join(join) : format(v);
    if (s === '') s = fallback;
    return escape ? escapeFormula(s, decimal) : s;
  };
  if (!fixed) return cell;
  const [length, align, pad, name] = [c.length!, c.align ?? 'left', c.pad_char ?? ' ', c.name];
  return (record, line) => fixedCell(cell(record, line), length, align, pad, name);
}

export interface ExportPlan {
  /** The header row of a flat layout (undefined for header/line record types). */
  readonly header?: string[];
  /** Rows for one API record. */
  rows(record: unknown): string[][];
}

export function compileExport(spec: z.output<typeof exportSchema>, dialect: Dialect, where: (string | number)[]): ExportPlan {
  const rowsOf = spec.rows === undefined ? undefined : compilePath(spec.rows, [...where, 'rows']);
  if (spec.columns) {
    if (spec.header_record || spec.line_record) throw new DefinitionError('give columns (flat) or header_record/line_record, not both', where);
    const cells = spec.columns.map((c, i) => compileColumn(c, dialect, [...where, 'columns', i]));
    // The record's own cells are the same on each of its lines: computed once per record, only line cells per line.
    const lineCells = spec.columns.flatMap((c, i) => (c.path?.startsWith('line.') ? [i] : []));
    return {
      header: dialect.header && dialect.format !== 'fixed' ? spec.columns.map((c) => c.name) : undefined,
      rows(record) {
        const lines = rowsOf?.(record);
        const first = cells.map((cell) => cell(record, undefined));
        if (!rowsOf || !Array.isArray(lines) || lines.length === 0) return [first];
        const out: string[][] = [];
        for (const line of lines) {
          const row = first.slice();
          for (const i of lineCells) row[i] = cells[i]!(record, line);
          out.push(row);
        }
        return out;
      },
    };
  }
  if (!spec.header_record || !spec.line_record || !rowsOf) {
    throw new DefinitionError('an export needs columns, or header_record + line_record + rows', where);
  }
  const h = spec.header_record;
  const l = spec.line_record;
  const hCells = h.columns.map((c, i) => compileColumn(c, dialect, [...where, 'header_record', 'columns', i]));
  const lCells = l.columns.map((c, i) => compileColumn(c, dialect, [...where, 'line_record', 'columns', i]));
  return {
    rows(record) {
      const out = [[h.type, ...hCells.map((c) => c(record, undefined))]];
      const lines = rowsOf(record);
      if (Array.isArray(lines)) for (const line of lines) out.push([l.type, ...lCells.map((c) => c(record, line))]);
      return out;
    },
  };
}
