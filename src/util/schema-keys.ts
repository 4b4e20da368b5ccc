import type { z } from 'zod';

// Walks zod 4 schemas alongside the data they check, to name the keys an object accepts: for "did you mean"
// on an unknown key, and to accept a key's old spelling (camelCase, or its name before a rename).

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  values?: unknown[];
  getter?: () => z.ZodType;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;
/** A plain object (not null, not an array): what a YAML mapping parses to. */
export const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The concrete schemas data is checked against: wrappers removed, the union branch its discriminator picks. */
function concrete(schema: z.ZodType, data: unknown): z.ZodType[] {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return concrete(def.innerType!, data);
  if (def.type === 'pipe') return concrete(def.in!, data);
  if (def.type === 'lazy') return concrete(def.getter!(), data);
  if (def.type !== 'union') return [schema];
  const branches = def.options!.flatMap((o) => concrete(o, data));
  if (def.discriminator && isRecord(data)) {
    const tag = data[def.discriminator];
    const hit = branches.filter((b) => {
      const field = defOf(b).shape?.[def.discriminator!];
      return field !== undefined && (defOf(field).values ?? []).includes(tag);
    });
    if (hit.length > 0) return hit;
  }
  return branches;
}

function shapes(schema: z.ZodType, data: unknown): Array<Record<string, z.ZodType>> {
  return concrete(schema, data).map((s) => defOf(s).shape).filter((s): s is Record<string, z.ZodType> => s !== undefined);
}

/** The keys accepted by the object at `path` of the data (empty when that is no object). */
export function knownKeysAt(schema: z.ZodType, data: unknown, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  let value = data;
  for (const seg of path) {
    if (current === undefined) return [];
    current = childSchema(current, value, seg);
    value = isRecord(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[seg as string] : undefined;
  }
  return current === undefined ? [] : [...new Set(shapes(current, value).flatMap((s) => Object.keys(s)))];
}

function childSchema(schema: z.ZodType, data: unknown, key: PropertyKey): z.ZodType | undefined {
  for (const s of concrete(schema, data)) {
    const def = defOf(s);
    if (def.shape && typeof key === 'string' && def.shape[key]) return def.shape[key];
    if (def.type === 'record') return def.valueType;
    if (def.type === 'array') return def.element;
  }
  return undefined;
}

/**
 * A copy of the data in which a key unknown to its object whose new name `newNameOf(key)` the object knows (and the
 * data does not hold already) is renamed, in place in the key order (`settleMs` where `settle_ms` is accepted);
 * `onRename` hears each (path of the old key, new key). An old name stays accepted this way after a rename, with a
 * deprecation warning from the caller.
 */
export function renameOldKeys(
  schema: z.ZodType, data: unknown, newNameOf: (key: string) => string | undefined, onRename: (path: PropertyKey[], newKey: string) => void,
  path: PropertyKey[] = [],
): unknown {
  if (Array.isArray(data)) return data.map((item, i) => { const child = childSchema(schema, data, i); return child ? renameOldKeys(child, item, newNameOf, onRename, [...path, i]) : item; });
  if (!isRecord(data)) return data;
  const known = new Set(shapes(schema, data).flatMap((s) => Object.keys(s)));
  const entries = Object.entries(data).map(([key, value]): [string, unknown] => {
    const renamed = newNameOf(key);
    if (known.size > 0 && !known.has(key) && renamed !== undefined && renamed !== key && known.has(renamed) && !(renamed in data)) {
      onRename([...path, key], renamed);
      return [renamed, value];
    }
    return [key, value];
  });
  const renamed = Object.fromEntries(entries);
  for (const [key, value] of entries) {
    const child = childSchema(schema, renamed, key);
    if (child) renamed[key] = renameOldKeys(child, value, newNameOf, onRename, [...path, key]);
  }
  return renamed;
}
