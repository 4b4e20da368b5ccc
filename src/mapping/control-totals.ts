import type { MappingDefinition } from './definition-schema.js';
import type { Binder } from './compile.js';
import { compileParse, DefinitionError, Fail, type Parse } from './values.js';
import { columnName } from './fixed-width.js';

// Control totals: a trailer record (or footer line) asserts counts and sums of the file, and a document's first
// row can assert its own line count or sum. The plan is checked at load; a tracker follows one file.

export interface TotalCheck {
  /** Position of the asserted value in the trailer / footer record, or the bound column of a document check. */
  at: number;
  label: string;
  /** `records`, `rows`, `lines` (physical lines through the trailer / footer) or a record type code. */
  count?: string;
  /** `label` names the summed column in errors (its header name, or its position). */
  sum?: { ref: string | number; owner: string; index: number; label: string; parse: Parse };
  parse: Parse;
}

export interface ControlTotalsPlan {
  /** The trailer's record type code (record_types), or undefined for a footer line. */
  trailer?: string;
  footer: boolean;
  onMismatch: 'file' | 'document';
  /** Whether outcomes must be held until the end of the file (nothing sent before the totals are checked). */
  holdFile: boolean;
  bind(bind: Binder): { file: TotalCheck[]; documents: TotalCheck[] };
}

type Spec = NonNullable<MappingDefinition['control_totals']>;
type CheckSpec = Spec['checks'][number];

/** Validates the control_totals section against the record types / footer columns; DefinitionError on a mistake. */
export function planControlTotals(def: MappingDefinition, ownerOf: (column: string) => string | undefined): ControlTotalsPlan | undefined {
  const spec = def.control_totals;
  if (!spec) return undefined;
  const path = ['control_totals'];
  const types = def.record_types?.types;
  if (spec.trailer !== undefined && spec.footer !== undefined) throw new DefinitionError('give trailer (a record type) or footer (the last line), not both', path);
  if (spec.trailer === undefined && spec.footer === undefined && spec.checks.length > 0) throw new DefinitionError('checks compare with a trailer record or a footer line: give trailer or footer', path);
  if (spec.trailer !== undefined && !types?.[spec.trailer]) throw new DefinitionError(`trailer "${spec.trailer}" is not one of the record types (${Object.keys(types ?? {}).join(', ') || 'none: use footer'})`, [...path, 'trailer']);
  if (spec.footer !== undefined && def.dialect.format === 'fixed') throw new DefinitionError('a fixed-width file carries its totals in a trailer record type (record_types + trailer), not a footer', [...path, 'footer']);
  if (spec.footer !== undefined && types) throw new DefinitionError('with record_types, name the trailer record type (trailer: T), not a footer', [...path, 'footer']);
  const trailerColumns = spec.trailer !== undefined ? (types![spec.trailer].columns ?? []).map(columnName) : spec.footer ?? [];
  const number = (c: CheckSpec | Spec['documents'][number], p: (string | number)[]) => compileParse({ type: 'number', decimal: c.decimal, thousands: c.thousands }, p);
  const fileChecks = spec.checks.map((c, i) => {
    const p = [...path, 'checks', i];
    const at = trailerColumns.indexOf(c.column);
    if (at < 0) throw new DefinitionError(`column "${c.column}" is not a column of the ${spec.trailer !== undefined ? `${spec.trailer} record` : 'footer'} (${trailerColumns.join(', ')})`, [...p, 'column']);
    checkWhat(c, p, types);
    return { c, p, at, parse: number(c, p) };
  });
  for (const [i, c] of spec.documents.entries()) {
    if (c.count !== undefined && c.count !== 'rows') throw new DefinitionError('a document check counts rows (count: rows)', [...path, 'documents', i, 'count']);
    checkWhat(c, [...path, 'documents', i], undefined);
  }
  const sumOf = (c: { sum?: string | number }, p: (string | number)[], bind: Binder, parse: Parse) => {
    if (c.sum === undefined) return undefined;
    const owner = typeof c.sum === 'string' ? ownerOf(c.sum) ?? '' : '';
    const slot = bind(c.sum, [...p, 'sum']);
    return { ref: c.sum, owner, index: slot.index, label: slot.label || String(c.sum), parse };
  };
  return {
    trailer: spec.trailer,
    footer: spec.footer !== undefined,
    onMismatch: spec.on_mismatch,
    holdFile: fileChecks.length > 0 || spec.trailer !== undefined || spec.footer !== undefined || (spec.documents.length > 0 && spec.on_mismatch === 'file'),
    bind: (bind) => ({
      file: fileChecks.map(({ c, p, at, parse }) => ({ at, label: c.column, count: c.count, sum: sumOf(c, p, bind, parse), parse })),
      documents: spec.documents.map((c, i) => {
        const p = [...path, 'documents', i];
        const parse = number(c, p);
        const slot = bind(c.column, [...p, 'column']);
        return { at: slot.index, label: slot.label, count: c.count, sum: sumOf(c, p, bind, parse), parse };
      }),
    }),
  };
}

const COUNTS = new Set(['records', 'rows', 'lines']);
/** Cells that cannot be added up are named one by one up to this many; the rest are counted. */
const MAX_CELL_PROBLEMS = 10;

function checkWhat(c: { count?: string; sum?: string | number }, p: (string | number)[], types: Record<string, unknown> | undefined): void {
  if ((c.count === undefined) === (c.sum === undefined)) throw new DefinitionError('a check gives count or sum (one of them)', p);
  if (c.count !== undefined && !COUNTS.has(c.count) && !types?.[c.count]) {
    throw new DefinitionError(`count "${c.count}": count records or lines${types ? `, or the records of a type (${Object.keys(types).join(', ')})` : ''}`, [...p, 'count']);
  }
}

/** Follows one file: records per type, sums, the trailer's values; collects the file-level mismatches. */
export class TotalsTracker {
  private records = 0;
  private readonly perType = new Map<string, number>();
  private readonly sums: number[];
  /** Per file check: whether a summed cell could not be parsed (its total is then not compared). */
  private readonly broken: boolean[];
  private badCells = 0;
  private trailerSeen?: number;
  readonly problems: string[] = [];

  constructor(private readonly plan: ControlTotalsPlan, private readonly checks: { file: TotalCheck[]; documents: TotalCheck[] }, private readonly file: string) {
    this.sums = checks.file.map(() => 0);
    this.broken = checks.file.map(() => false);
  }

  /** A data record (not the header, not the trailer) on `line`; `code` is its record type ('' without record types). */
  record(code: string, row: readonly string[], line: number): void {
    this.records++;
    if (code) this.perType.set(code, (this.perType.get(code) ?? 0) + 1);
    const checks = this.checks.file;
    for (let i = 0; i < checks.length; i++) {
      const s = checks[i].sum;
      // An empty row is a record of a skipped type: it carries none of the mapped columns.
      if (!s || s.owner !== code || row.length === 0) continue;
      const raw = (row[s.index] ?? '').trim();
      const v = s.parse(raw);
      if (typeof v === 'number') this.sums[i] += v;
      else {
        // A cell the total cannot add up is named, not counted as 0: the mismatch alone would hide the bad line.
        this.broken[i] = true;
        if (++this.badCells <= MAX_CELL_PROBLEMS) this.problems.push(`${this.file}, line ${line}, column ${s.label}: ${cellProblem(raw, v)}, so control total ${checks[i].label} cannot be checked`);
      }
    }
  }

  /** The trailer / footer record on `line`; `lastLine` is its last physical line (the file's line count through it). */
  trailer(record: readonly string[], line: number, lastLine: number): void {
    if (this.trailerSeen !== undefined) {
      this.problems.push(`${this.file}, line ${line}: a second control record (the first is on line ${this.trailerSeen})`);
      return;
    }
    this.trailerSeen = line;
    this.checks.file.forEach((c, i) => {
      const actual = c.count === undefined ? (this.broken[i] ? undefined : this.sums[i]) : c.count === 'records' ? this.records : c.count === 'lines' ? lastLine : this.perType.get(c.count) ?? 0;
      const what = c.count === undefined ? `the ${c.sum!.label} values add up to ${round(actual ?? 0)}` : counted(actual!, c.count);
      const mismatch = compare(c.label, record[c.at] ?? '', c.parse, actual, what);
      if (mismatch) this.problems.push(`${this.file}, line ${line}: ${mismatch}`);
    });
  }

  /** Called at the end of the file: a trailer or footer that never came is a mismatch too (a truncated file?). */
  finish(): string[] {
    if (this.badCells > MAX_CELL_PROBLEMS) this.problems.push(`${this.file}: ${this.badCells - MAX_CELL_PROBLEMS} more summed cells are not numbers`);
    if (this.trailerSeen === undefined && (this.plan.trailer !== undefined || this.plan.footer)) {
      this.problems.push(`${this.file}: the ${this.plan.trailer !== undefined ? `${this.plan.trailer} control record` : 'footer line'} with the control totals is missing (a truncated file?)`);
    }
    return this.problems;
  }

  /** Checks one document (its rows as flat line/row pairs; `line` its first line); the mismatch message, or undefined. */
  document(rows: readonly (number | readonly string[])[], key: string, line: number): string | undefined {
    if (this.checks.documents.length === 0 || rows.length === 0) return undefined;
    const first = rows[1] as readonly string[];
    const doc = `the document${key ? ` "${key}"` : ''}`;
    for (const c of this.checks.documents) {
      let actual = 0;
      if (c.count !== undefined) actual = rows.length >> 1;
      else for (let i = 1; i < rows.length; i += 2) {
        const raw = ((rows[i] as readonly string[])[c.sum!.index] ?? '').trim();
        const v = c.sum!.parse(raw);
        if (typeof v === 'number') actual += v;
        else return `${this.file}, line ${rows[i - 1] as number}, column ${c.sum!.label}: ${cellProblem(raw, v)}, so control total ${c.label} of ${doc} cannot be checked`;
      }
      const what = c.count !== undefined ? `${doc} has ${actual} row${actual === 1 ? '' : 's'}` : `the ${c.sum!.label} values of ${doc} add up to ${round(actual)}`;
      const mismatch = compare(c.label, first[c.at] ?? '', c.parse, actual, what);
      if (mismatch) return `${this.file}, line ${line}: ${mismatch}`;
    }
    return undefined;
  }
}

const round = (n: number) => Math.round(n * 1e6) / 1e6;

function counted(n: number, count: string): string {
  if (count === 'lines') return `the file has ${n} line${n === 1 ? '' : 's'} through the control record`;
  return `the file has ${n} ${count === 'records' ? '' : `${count} `}record${n === 1 ? '' : 's'}`;
}

function cellProblem(raw: string, v: unknown): string {
  if (raw === '') return 'the value is missing (an empty cell or a short line)';
  return `"${raw}" ${v instanceof Fail ? v.reason : 'is not a number'}`;
}

/**
 * The mismatch in words, both sides parsed ("control total T_QTY is 15.5, but the QTY values add up to 10.5"), or
 * undefined when it holds. `actual` undefined: the other side could not be computed, only the asserted value is checked.
 */
function compare(label: string, raw: string, parse: Parse, actual: number | undefined, what: string): string | undefined {
  const expected = parse(raw.trim());
  if (expected instanceof Fail || typeof expected !== 'number') return `control total ${label} "${raw}" is not a number (${what})`;
  if (actual === undefined) return undefined;
  return Math.abs(expected - actual) > 1e-9 * Math.max(1, Math.abs(actual)) ? `control total ${label} is ${round(expected)}, but ${what}` : undefined;
}
