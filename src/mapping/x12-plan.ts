import type { Segment } from '../x12/index.js';
import { closestWord } from '../util/did-you-mean.js';
import type { Binder } from './compile.js';
import type { MappingDefinition } from './definition-schema.js';
import type { Places } from './documents.js';
import { DefinitionError } from './values.js';

// X12 as a dialect of record types: a record type is a segment, optionally narrowed by a qualifier (`N9[LT]`), and a
// column is one of its elements by the standard's number (`W12-03`, `TD5-05-2` for a component). A row holds, besides
// the elements the mapping names, the set's place (slot 0) and each type's segment place, so a message names the
// segment and element a value came from.

/** One element (or component) of a type that the mapping reads, and its slot in the row. */
interface ElementSlot { slot: number; element: number; component: number }

export interface X12Type {
  /** As written: `N9[LT]`. */
  readonly key: string;
  readonly segment: string;
  /** The qualifier values that select this type (undefined: any segment of the id not taken by a qualified type). */
  readonly qualifiers: ReadonlySet<string> | undefined;
  readonly qualifierElement: number;
  /** Its position in record_types: types before the row start are carried, types after it belong to the row. */
  readonly index: number;
  /** Where the segment's place ("…, segment 14 (W12)") is kept in the row. */
  readonly placeSlot: number;
  readonly elements: ElementSlot[];
  readonly skip: boolean;
  readonly join: string | undefined;
}

export interface X12Plan {
  /** ST01 the mapping reads; undefined: any. */
  readonly transactionSet: string | undefined;
  readonly types: readonly X12Type[];
  /** The type whose segment starts a row (emit: true). */
  readonly start: X12Type;
  /** Slots of a row; final once the mapping is bound (elements get slots as the mapping names them). */
  width: number;
  /** The type a segment belongs to, or undefined when the mapping does not name it. */
  typeOf(segment: Segment): X12Type | undefined;
  /** Binds SEG-NN column references, giving each element a slot on first use. */
  readonly binder: Binder;
  /** What a column label names, for messages. */
  readonly labels: ReadonlyMap<string, { type: X12Type; element: number; component: number }>;
}

/** Slot 0 of every row: the place of its set (file, interchange, set). */
export const SET_PLACE_SLOT = 0;

const TYPE_KEY = /^([A-Z][A-Z0-9]{1,2})(?:\[([^\]]+)\])?$/;
const ELEMENT_REF = /^(.+)-(\d{1,2})(?:-(\d{1,2}))?$/;

/** Checks the record types of an x12 mapping and plans its rows; DefinitionError names the YAML node at fault. */
export function planX12(def: MappingDefinition): X12Plan {
  const rt = def.record_types;
  if (!rt) throw new DefinitionError('an x12 mapping lists its segments under record_types.types (W06, N1[ST], LX, W12 …) and marks the one that starts a row with emit: true', ['dialect', 'format']);
  for (const key of ['columns', 'control_totals', 'skip_lines', 'comment'] as const) {
    const where = key === 'columns' || key === 'control_totals' ? [key] : ['dialect', key];
    const present = key === 'columns' || key === 'control_totals' ? def[key] !== undefined : key === 'skip_lines' ? def.dialect.skip_lines !== 0 : def.dialect.comment !== undefined;
    if (present) throw new DefinitionError(`${where.join('.')} is not for x12 files: elements are named SEGMENT-NN, and the envelope (SE01, GE01, IEA01) carries the counts`, where);
  }
  if (def.dialect.encoding !== 'utf-8') throw new DefinitionError('x12 files are read as UTF-8 (their character sets are ASCII)', ['dialect', 'encoding']);
  const types: X12Type[] = [];
  let slots = 1;
  const bySegment = new Map<string, X12Type[]>();
  for (const [key, t] of Object.entries(rt.types)) {
    const path = ['record_types', 'types', key];
    const m = TYPE_KEY.exec(key);
    if (!m) throw new DefinitionError(`"${key}" is not a segment: write its id (W12), with qualifier values in brackets when only some of its segments are meant (N9[LT], N9[CN,2I])`, path);
    if (t.columns) throw new DefinitionError(`x12 segments have no named columns: read element 03 of ${key} as ${key}-03`, [...path, 'columns']);
    const qualifiers = m[2] === undefined ? undefined : new Set(m[2].split(',').map((q) => q.trim()));
    if (qualifiers?.has('')) throw new DefinitionError(`"${key}": an empty qualifier value`, path);
    if (t.qualifier_element !== undefined && !qualifiers) throw new DefinitionError(`qualifier_element needs qualifier values in the type's name (${key}[…])`, [...path, 'qualifier_element']);
    const type: X12Type = {
      key, segment: m[1], qualifiers, qualifierElement: t.qualifier_element ?? 1, index: types.length, placeSlot: slots++, elements: [],
      skip: t.skip === true, join: t.join,
    };
    const same = bySegment.get(type.segment) ?? [];
    for (const other of same) {
      const overlap = !other.qualifiers || !qualifiers ? (!other.qualifiers && !qualifiers) : other.qualifierElement === type.qualifierElement && [...qualifiers].some((q) => other.qualifiers!.has(q));
      if (overlap) throw new DefinitionError(`${key} and ${other.key} select the same segments: a segment belongs to one record type`, path);
    }
    bySegment.set(type.segment, [...same, type]);
    types.push(type);
  }
  const starts = Object.entries(rt.types).filter(([, t]) => t.emit);
  if (starts.length !== 1) {
    throw new DefinitionError(starts.length === 0
      ? 'mark the segment that starts a row with emit: true (W12 in a 945, W19 in a 947, LIN in an 846): the segments listed before it are carried into each row, those after it belong to its row'
      : `only one record type starts a row in an x12 mapping (${starts.map(([k]) => k).join(', ')} say emit)`, ['record_types', 'types', (starts[1] ?? starts[0] ?? [Object.keys(rt.types)[0]])[0]]);
  }
  const start = types.find((t) => t.key === starts[0][0])!;
  if (start.skip) throw new DefinitionError(`record type ${start.key}: skip and emit exclude each other`, ['record_types', 'types', start.key]);
  for (const t of types) if (t.join !== undefined && t.index < start.index) throw new DefinitionError(`join is for segments of a row (after ${start.key}); ${t.key} is carried from above it`, ['record_types', 'types', t.key, 'join']);

  const byKey = new Map(types.map((t) => [t.key, t]));
  const labels = new Map<string, { type: X12Type; element: number; component: number }>();
  const plan: X12Plan = {
    transactionSet: def.dialect.transaction_set,
    types,
    start,
    width: slots,
    labels,
    typeOf(segment) {
      const candidates = bySegment.get(segment.id);
      if (!candidates) return undefined;
      let plain: X12Type | undefined;
      for (const t of candidates) {
        if (!t.qualifiers) plain = t;
        else if (t.qualifiers.has(segment.element(t.qualifierElement))) return t;
      }
      return plain;
    },
    binder(ref, path) {
      if (typeof ref === 'number') throw new DefinitionError('with x12, name an element by its segment and number (W12-03), not by position', path);
      const m = ELEMENT_REF.exec(ref);
      const type = m ? byKey.get(m[1]) : undefined;
      if (!m || !type) {
        const written = m?.[1] ?? ref;
        // Swapped characters are the usual slip (W21 for W12): such candidates go first among those as close.
        const sorted = (w: string) => [...w].sort().join('');
        const near = closestWord(written, [...byKey.keys()].sort((a, b) => Number(sorted(b) === sorted(written)) - Number(sorted(a) === sorted(written))));
        const suffix = m ? ref.slice(m[1].length) : '-NN';
        throw new DefinitionError(`column "${ref}" is not an element of a listed segment (write SEGMENT-NN, SEGMENT one of ${[...byKey.keys()].join(', ')})${near ? `; did you mean ${near}${suffix}?` : ''}`, path);
      }
      if (type.skip) throw new DefinitionError(`column "${ref}": record type ${type.key} is skipped (skip: true), so its elements are never read`, path);
      const element = Number(m[2]);
      const component = m[3] === undefined ? 0 : Number(m[3]);
      if (element < 1 || (m[3] !== undefined && component < 1)) throw new DefinitionError(`column "${ref}": elements and components count from 01`, path);
      let slot = type.elements.find((e) => e.element === element && e.component === component)?.slot;
      if (slot === undefined) {
        slot = plan.width++;
        type.elements.push({ slot, element, component });
      }
      labels.set(ref, { type, element, component });
      return { index: slot, label: ref };
    },
  };
  return plan;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

/** Messages of an x12 file name the segment and element: `F.edi, interchange 000004711, set 0002, segment 14 (W12), element 03`. */
export function x12Places(plan: X12Plan, file: string): Places {
  // A type's place slot holds its segment's number in the set (X12Rows), the set's slot the set's place.
  const placeOf = (row: readonly string[], type: X12Type) => (row[type.placeSlot] ? `${row[SET_PLACE_SLOT]}, segment ${row[type.placeSlot]} (${type.segment})` : '');
  const rowPlace = (line: number, row: readonly string[] | undefined) => (row && placeOf(row, plan.start)) || row?.[SET_PLACE_SLOT] || `${file}, segment ${line} of the file`;
  return {
    cell(line, row, label) {
      const named = plan.labels.get(label);
      if (!named || !row) return label ? `${rowPlace(line, row)}, ${label}` : rowPlace(line, row);
      const segment = placeOf(row, named.type);
      if (!segment) return `${rowPlace(line, row)}, ${label} (the row has no ${named.type.key} segment)`;
      return `${segment}, element ${pad2(named.element)}${named.component > 0 ? `, component ${pad2(named.component)}` : ''}`;
    },
    line: rowPlace,
  };
}
