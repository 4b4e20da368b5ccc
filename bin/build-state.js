// Whether dist/ (stamped by scripts/build.mjs) is newer than every source file of src/ (tests aside).
import { readdirSync, statSync } from 'node:fs';

export function buildIsCurrent(root = new URL('..', import.meta.url)) {
  let built;
  try {
    built = statSync(new URL('dist/.built', root)).mtimeMs;
  } catch {
    return false;
  }
  for (const entry of readdirSync(new URL('src', root), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.test.ts') || !/\.(ts|mjs)$/.test(entry.name)) continue;
    if (statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs > built) return false;
  }
  return true;
}
