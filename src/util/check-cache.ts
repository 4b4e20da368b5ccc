import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { YamlProblem } from './yaml-problem.js';

/** A YAML file that passed its check: what the check made of it (JSON data: no secrets, by reference only) and its warnings. */
export interface Checked<T> {
  data: T;
  warnings: YamlProblem[];
}

interface CacheFile<T> {
  checker: string;
  entries: Record<string, { sha256: string } & Checked<T>>;
}

/**
 * YAML files that passed their check (a mappings folder's definitions, the configuration), by file and content, so
 * that a command does not parse and validate unchanged YAML again at every start, nor load the parser and the schemas
 * to do so (docs/performance.md, start-up). Kept for the build only, keyed by its stamp (`dist/.built`): a rebuilt
 * checker checks every file again. Sources run through tsx have no stamp and no cache. A cache that cannot be read or
 * written is no cache: it never stops a check.
 */
export class CheckCache<T> {
  private entries: CacheFile<T>['entries'] = {};
  private changed = false;

  private constructor(private readonly path: string | undefined, private readonly checker: string) {}

  /**
   * The cache of the `kind` of files at `place` (a folder, a file) under the user's cache folder (XDG_CACHE_HOME, else
   * ~/.cache), kept for the checker named (the build's stamp by default; none: no cache).
   */
  static open<T>(kind: 'mappings' | 'config', place: string, checker = builtChecker()): CheckCache<T> {
    if (checker === undefined) return new CheckCache<T>(undefined, '');
    const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
    const cache = new CheckCache<T>(join(base, 'wisbridge', `${kind}-${sha256(place).slice(0, 16)}.json`), checker);
    try {
      const file = JSON.parse(readFileSync(cache.path!, 'utf8')) as CacheFile<T>;
      if (file.checker === checker) cache.entries = file.entries;
    } catch {
      // none yet, or unreadable: every file is checked
    }
    return cache;
  }

  get(file: string, text: string): Checked<T> | undefined {
    const entry = this.entries[file];
    return entry !== undefined && entry.sha256 === sha256(text) ? { data: entry.data, warnings: entry.warnings } : undefined;
  }

  set(file: string, text: string, checked: Checked<T>): void {
    if (this.path === undefined) return;
    this.entries[file] = { sha256: sha256(text), ...checked };
    this.changed = true;
  }

  /** Forgets the files of the folder no longer there, and writes the cache when it changed. */
  save(files: readonly string[]): void {
    if (this.path === undefined) return;
    for (const file of Object.keys(this.entries)) {
      if (!files.includes(file)) {
        delete this.entries[file];
        this.changed = true;
      }
    }
    if (!this.changed) return;
    try {
      mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
      const temp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ checker: this.checker, entries: this.entries } satisfies CacheFile<T>), { mode: 0o600 });
      renameSync(temp, this.path);
    } catch {
      // a read-only home (a container): the next start checks again
    }
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The stamp of the build this code runs from (scripts/build.mjs); undefined when it runs from the sources. */
function builtChecker(): string | undefined {
  if (!import.meta.url.includes('/dist/')) return undefined;
  try {
    return readFileSync(new URL('../.built', import.meta.url), 'utf8').trim();
  } catch {
    return undefined;
  }
}
