/** A search term as the search compares it: trimmed, without case (search-index.ts folds the stored terms alike). */
export function normalizeTerm(text: string): string {
  return text.trim().toLowerCase();
}

/**
 * Calls `visit` with the index and [start, end) of each element of a JSON array text, in order, until it returns
 * true: one scan, nothing parsed (a search reads a few items of a block's 1,000 without parsing the other 999).
 */
function forEachElement(text: string, visit: (index: number, start: number, end: number) => boolean | void): void {
  let depth = 0;
  let element = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (depth === 1 && start < 0 && c !== 32 && c !== 10 && c !== 13 && c !== 9 && c !== 44 && c !== 93) start = i;
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) {
      depth--;
      if (depth === 0) {
        if (start >= 0 && visit(element, start, i)) return;
        return;
      }
    } else if (c === 44 && depth === 1) {
      if (start >= 0 && visit(element, start, i)) return;
      element++;
      start = -1;
    }
  }
}

/** The values of the elements of a JSON array text at `indexes` (ascending), parsed alone. */
export function elementsAt(text: string, indexes: readonly number[]): Map<number, unknown> {
  const found = new Map<number, unknown>();
  if (indexes.length === 0) return found;
  let next = 0;
  forEachElement(text, (index, start, end) => {
    if (index !== indexes[next]) return false;
    found.set(index, JSON.parse(text.slice(start, end)) as unknown);
    return ++next === indexes.length;
  });
  return found;
}

/** What a request's results (`[[seq, result], …]` as JSON text) hold for `seq`, or null; only that pair is parsed. */
export function resultOf(results: string, seq: number): unknown {
  const prefix = `[${seq},`;
  let value: unknown = null;
  forEachElement(results, (_, start, end) => {
    if (!results.startsWith(prefix, start)) return false;
    value = (JSON.parse(results.slice(start, end)) as [number, unknown])[1];
    return true;
  });
  return value;
}
