/**
 * The keys of every object in a JSON text that occur more than once in the same object, in order
 * (JSON.parse keeps the last one silently, so duplicates must be found on the text).
 */
export function duplicateKeys(json: string): string[] {
  const duplicates: string[] = [];
  const stack: Array<Set<string> | null> = [];
  let i = 0;
  while (i < json.length) {
    const c = json[i];
    if (c === '"') {
      let end = i + 1;
      while (json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      let next = end + 1;
      while (json[next] === ' ') next += 1;
      if (top && json[next] === ':') {
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (top.has(key)) duplicates.push(key);
        top.add(key);
      }
      i = end + 1;
      continue;
    }
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    i += 1;
  }
  return duplicates;
}
