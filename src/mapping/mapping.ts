import type { InboundDocument, MappingDefinition } from './definition-schema.js';
import { mappingBase, type MappingBase } from './mapping-base.js';
import { HeaderProblem, compileConditions, compileNode, type Binder, type BoundNode, type RowTest } from './compile.js';
import { compileExport, type ExportPlan } from './export-plan.js';
import { checkTargets } from './targets.js';
import { planControlTotals, type ControlTotalsPlan, type TotalCheck } from './control-totals.js';
import { columnName, planFixedLayout, type FixedLayout } from './fixed-width.js';
import { DefinitionError, DefinitionErrors } from './values.js';
import { planX12, type X12Plan } from './x12-plan.js';
import { isSingleObjectWrite } from '../contract/index.js';
import { closestWord } from '../util/did-you-mean.js';
import type { YamlProblem } from '../util/yaml-document.js';

export interface RecordTypePlan {
  /** 0-based index of the type code in each record. */
  codeIndex: number;
  width: number;
  types: Map<string, { level: number; offset: number; count: number; emit: boolean; skip: boolean }>;
  /** Start offset of each level's slots; slots of deeper levels are cleared when a record arrives. */
  levelOffsets: number[];
}

/** A loaded, compiled mapping definition. */
export interface Mapping extends MappingBase {
  readonly inbound?: InboundPlan;
  readonly export?: ExportPlan;
  /** What its file says in a deprecated way (a key under its old name): reported once by whoever loads it. */
  readonly warnings?: readonly YamlProblem[];
}

export interface InboundPlan {
  readonly recordTypes?: RecordTypePlan;
  /** Binds the request tree and skip test to a file's columns; throws HeaderProblem for a header without a named column or with a name twice. */
  bind(header: readonly string[] | undefined): { root: BoundNode; skip?: RowTest; width?: number; totals?: { file: TotalCheck[]; documents: TotalCheck[] } };
  /** Control totals (trailer / footer / per document), when the definition has them. */
  readonly totals?: ControlTotalsPlan;
  /** Fixed-width files: where each column is in the line. */
  readonly fixed?: FixedLayout;
  /** X12 files: the segments that make a row and the elements it reads. */
  readonly x12?: X12Plan;
  /** Columns are known before the file is read (no header row): record types, header: false, fixed width. */
  readonly positional: boolean;
  /** The whole file is one request (all or nothing): cycle counts, grouping.whole_file. */
  readonly wholeFile: boolean;
}

/** Compiles a validated definition; DefinitionError carries the path of the offending YAML node. */
export function compileMapping(definition: MappingDefinition, name: string, file = ''): Mapping {
  const base = mappingBase(definition, name, file);
  if (base.direction === 'export') {
    if (definition.request) throw new DefinitionError(`${definition.document} is an export: use export, not request`, ['request']);
    if (!definition.export) throw new DefinitionError(`${definition.document} is an export and needs an export section`, ['document']);
    if (definition.ordered) throw new DefinitionError('ordered is for inbound files: an export writes its own files, one at a time', ['ordered']);
    if (definition.dialect.quote === false) throw new DefinitionError('quote: false is for inbound files: an export quotes the values that hold the delimiter or a line break', ['dialect', 'quote']);
    if (definition.dialect.format === 'x12') throw new DefinitionError('x12 is read, not written: an export writes csv or fixed', ['dialect', 'format']);
    if (definition.dialect.bom && definition.dialect.encoding !== 'utf-8') throw new DefinitionError('a byte order mark is only written with encoding utf-8', ['dialect', 'bom']);
    return { ...base, direction: 'export', export: compileExport(definition.export, definition.dialect, ['export']) };
  }
  if (definition.export) throw new DefinitionError(`${definition.document} is an API write: use request, not export`, ['export']);
  if (!definition.request) throw new DefinitionError(`${definition.document} is an API write and needs a request section`, ['document']);
  const wholeFile = definition.grouping.whole_file || isSingleObjectWrite(definition.document);
  if (wholeFile && definition.request.key !== undefined) throw new DefinitionError('a whole-file request (grouping.whole_file, inventory.counts) has no document key', ['request', 'key']);
  const tables = definition.tables ?? {};
  const root = compileNode(definition.request, tables, ['request']);
  const unknownTargets = checkTargets(definition.request, definition.document as InboundDocument);
  if (unknownTargets.length > 0) throw new DefinitionErrors(unknownTargets);
  const skip = compileConditions(definition.skip, ['skip'], 'any');
  const x12 = definition.dialect.format === 'x12' ? planX12(definition) : undefined;
  if (!x12) checkX12Options(definition);
  const recordTypes = definition.record_types && !x12 ? planRecordTypes(definition) : undefined;
  const fixed = planFixedLayout(definition);
  const positional = !definition.dialect.header || fixed !== undefined || x12 !== undefined;
  const staticBinder = x12 ? x12.binder : recordTypes ? namedBinder(recordTypesColumns(definition), 'record_types') : positional ? positionalBinder(definition.columns?.map(columnName)) : undefined;
  if (definition.dialect.header && definition.columns && !fixed) throw new DefinitionError('columns names positional columns: set dialect.header to false, or remove columns', ['columns']);
  const columnsOfTypes = definition.record_types ? Object.entries(definition.record_types.types) : [];
  const totals = planControlTotals(definition, (column) => columnsOfTypes.find(([, t]) => (t.columns ?? []).some((c) => columnName(c) === column))?.[0]);
  const bindWith = (bind: Binder) => ({ root: root(bind), skip: skip?.(bind), totals: totals?.bind(bind) });
  // Positional and record-type files can be bound now, so their column mistakes show at load time.
  const prebound = staticBinder ? bindWith(staticBinder) : (bindWith(lenientBinder), undefined);
  return {
    ...base,
    direction: 'inbound',
    inbound: {
      recordTypes,
      wholeFile,
      totals,
      fixed,
      x12,
      positional: recordTypes !== undefined || positional,
      bind(header) {
        if (prebound) return { ...prebound, width: recordTypes?.width };
        if (!header) throw new Error('a header row is required');
        return { ...bindWith(headerBinder(header)), width: header.length };
      },
    },
  };
}

const lenientBinder: Binder = (ref) => ({ index: typeof ref === 'number' ? ref - 1 : 0, label: String(ref) });

function headerBinder(header: readonly string[]): Binder {
  const index = new Map<string, number>();
  header.forEach((h, i) => {
    const name = h.trim();
    const first = index.get(name);
    // Empty names (trailing delimiters) cannot be named by a mapping; any other name must say which column it is.
    if (first !== undefined && name !== '') throw new HeaderProblem(`the header names column "${name}" twice (columns ${first + 1} and ${i + 1}): rename one of them in the file`);
    if (first === undefined) index.set(name, i);
  });
  return (ref) => {
    if (typeof ref === 'number') return { index: ref - 1, label: header[ref - 1]?.trim() || `#${ref}` };
    const i = index.get(ref);
    if (i === undefined) {
      // Either side may be the misspelt one (the WMS's header or the mapping): name the near miss, not a fix.
      const near = closestWord(ref, [...index.keys()]);
      throw new HeaderProblem(`column "${ref}" named by the mapping is not in the header${near ? `; the closest there is "${near}"` : ''} (found: ${[...index.keys()].join(', ')})`);
    }
    return { index: i, label: ref };
  };
}

function positionalBinder(columns: string[] | undefined): Binder {
  const index = new Map((columns ?? []).map((c, i) => [c, i]));
  return (ref, path) => {
    if (typeof ref === 'number') return { index: ref - 1, label: columns?.[ref - 1] ?? `#${ref}` };
    const i = index.get(ref);
    if (i === undefined) throw new DefinitionError(`column "${ref}" is not among the positional columns (${[...index.keys()].join(', ') || 'none named: use numbers or set columns'})`, path);
    return { index: i, label: ref };
  };
}

function namedBinder(names: string[], what: string): Binder {
  const index = new Map(names.map((c, i) => [c, i]));
  return (ref, path) => {
    if (typeof ref === 'number') throw new DefinitionError(`with ${what}, name columns by their ${what} name, not by position`, path);
    const i = index.get(ref);
    if (i === undefined) throw new DefinitionError(`column "${ref}" is not defined by any record type (${names.join(', ')})`, path);
    return { index: i, label: ref };
  };
}

function recordTypesColumns(def: MappingDefinition): string[] {
  return Object.values(def.record_types!.types).flatMap((t) => (t.columns ?? []).map(columnName));
}

/** The x12 options of a definition that reads csv or fixed width, and record types without their columns. */
function checkX12Options(def: MappingDefinition): void {
  if (def.dialect.transaction_set !== undefined) throw new DefinitionError('transaction_set is for x12 files (dialect.format: x12)', ['dialect', 'transaction_set']);
  for (const [code, t] of Object.entries(def.record_types?.types ?? {})) {
    const path = ['record_types', 'types', code];
    if (!t.columns) throw new DefinitionError(`record type ${code} needs its columns`, path);
    if (t.join !== undefined) throw new DefinitionError('join is for x12 segments that repeat within a row', [...path, 'join']);
    if (t.qualifier_element !== undefined) throw new DefinitionError('qualifier_element is for x12 segments', [...path, 'qualifier_element']);
  }
}

function planRecordTypes(def: MappingDefinition): RecordTypePlan {
  const rt = def.record_types!;
  const entries = Object.entries(rt.types);
  if (entries.length < 2) throw new DefinitionError('record_types needs at least two types', ['record_types', 'types']);
  const seen = new Map<string, string>();
  const types = new Map<string, { level: number; offset: number; count: number; emit: boolean; skip: boolean }>();
  const levelOffsets: number[] = [];
  let offset = 0;
  const anyEmit = entries.some(([, t]) => t.emit);
  const trailer = def.control_totals?.trailer;
  const lastMapped = entries.findLastIndex(([code, t]) => !t.skip && code !== trailer);
  for (const [code, t] of entries) if (t.skip && t.emit) throw new DefinitionError(`record type ${code}: skip and emit exclude each other`, ['record_types', 'types', code]);
  entries.forEach(([code, t], level) => {
    for (const c of t.columns!.map(columnName)) {
      const other = seen.get(c);
      if (other !== undefined) throw new DefinitionError(`column "${c}" appears in record types ${other} and ${code}: names must be unique`, ['record_types', 'types', code, 'columns']);
      seen.set(c, code);
    }
    levelOffsets.push(offset);
    types.set(code, { level, offset, count: t.columns!.length, emit: anyEmit ? t.emit === true : level === lastMapped, skip: t.skip === true || code === trailer });
    offset += t.columns!.length;
  });
  return { codeIndex: rt.column - 1, width: offset, types, levelOffsets };
}
