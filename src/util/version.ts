import { readFileSync } from 'node:fs';

/** The version in package.json (two folders up from src/util/ and from dist/util/ alike). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
