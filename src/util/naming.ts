/** `settleMs` → `settle_ms`; a name already in snake_case is returned as it is. */
export function camelToSnake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `settle_ms` → `settleMs`. */
export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The same object with its own keys renamed (one level deep). */
export function renameKeys(object: Record<string, unknown>, rename: (key: string) => string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [rename(key), value]));
}
