// Whether dist/ (stamped by scripts/build.mjs) is newer than every source file of src/ (tests and their support
// files aside, as no entry of the build imports them). An install without src/ (the container
// image) has nothing newer to run: its build is current.
import { existsSync, readdirSync, statSync } from 'node:fs';

const root = new URL('..', import.meta.url);

export function buildIsCurrent() {
  let built;
  try {
    built = statSync(new URL('dist/.built', root)).mtimeMs;
  } catch {
    return false;
  }
  if (!existsSync(new URL('src', root))) return true;
  for (const entry of readdirSync(new URL('src', root), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith('.test.ts') || entry.name === 'test-support.ts' || !/\.(ts|mjs)$/.test(entry.name)) continue;
    if (statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs > built) return false;
  }
  return true;
}

/** What bin/wisbridge.js runs: the build while it is current, unless WISBRIDGE_SOURCES=1. */
export function runsBuild() {
  return process.env.WISBRIDGE_SOURCES !== '1' && buildIsCurrent();
}
