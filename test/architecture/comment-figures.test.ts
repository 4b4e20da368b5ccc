import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY } from './import-rules.js';

// Measured figures live in docs/performance.md, each with how to reproduce it; a comment gives the reason in words
// and links the section there (docs/conventions.md, "Code"). A figure copied into a comment goes stale unseen when
// the table is re-measured. Limits and settings (`1 MiB at most`, `default 30 s`) are facts of the code and stay.

/** What a measured figure looks like in a comment: a duration in µs, a ratio, an approximate or ranged measurement. */
const MEASUREMENTS: readonly RegExp[] = [
  /\d\s?(µs|us)\b/, // microseconds: always a measurement (no setting of the bridge is in µs)
  /\d×/, // a ratio (`30×`, `3.5×`); a product is written with spaces (`64 × 7 parameters`)
  /(~|\babout )\d[\d.,]*\s?(ms|s|MB|MiB|GB)(?![\w/])/, // an approximate duration or memory (`~40 ms`, `~25 MB`)
  /\d[\d.]*[–-]\d[\d.]*\s?(ms|s|MB|MiB|GB)\b/, // a range, as repeated runs give (`0.28–0.34 s`, `1–10 ms`)
  /\d\s?(ms|s|MB|MiB|GB)\s+(against|instead of)\s+\d/, // a before and after (`0.9 s against 1.2 s`)
  /\d\s?(ms|s) of [\d.]+\s?(ms|s)\b/, // a part of a measured whole (`1.6 s of 7.5 s`)
  /\d\s?MiB\/s\b/, // a throughput
  /\bMB (more )?(peak )?(of )?RSS\b/, // memory a run took
  /\d\s?% of (what|its CPU|the CPU|the pass)\b/, // a share of what a run spent (`20 % of what it allocated`)
  /\d[\d,]* commits\b/, // commits counted in a run
];

/** The comment text of a line of TypeScript: a line of a block comment, or what follows `//`; '' for none. */
export function commentOf(line: string): string {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('//') || trimmed.startsWith('/*') || trimmed.startsWith('*')) return trimmed;
  const trailing = /(^|\s)\/\/\s/.exec(line);
  return trailing ? line.slice(trailing.index) : '';
}

/** `file:line: text` of every comment line of `text` that cites a measured figure. */
export function figuresIn(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const comment = commentOf(line);
    if (comment && MEASUREMENTS.some((pattern) => pattern.test(comment))) found.push(`${file}:${i + 1}: ${comment.trim()}`);
  });
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    const product = entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'test-support.ts';
    return product ? [path] : [];
  });
}

describe('comments of src/ give reasons, docs/performance.md the figures', () => {
  it('no comment of a module cites a measured figure', () => {
    const found = sources(join(REPOSITORY, 'src')).flatMap((path) =>
      figuresIn(relative(REPOSITORY, path), readFileSync(path, 'utf8')));
    expect(found).toEqual([]);
  });

  it('tells a measurement from a limit or a setting', () => {
    const measured = [
      '// the thread costs ~0.2 s to start and ~25 MB of RSS',
      ' * 32 in flight made 979 commits of one request for 1,000 requests',
      '    // one index range instead of one lookup per id (~30× less CPU).',
      ' * a night held the main thread 1.6 s of 7.5 s in COMMIT',
      ' * its collections paused it 0.28–0.34 s instead of 0.47–0.60 s',
      'const now = iso(); // toISOString costs ~1.8 us here',
      ' * thread that maps a 1,000,000-row file, 20 % of what it allocated',
      '/** Rows a search page shows: each shown block is read (about 0.3 ms for a block of 1,000 rows). */',
      '/** Reads out at once per stream (64 no faster: 20–29 MiB/s 20 ms away against 28–34). */',
    ];
    const settings = [
      ' * (src/pipeline/source.ts) and the result rows spooled. Each holds 1 MiB at most, but',
      "    // 16 MiB: the hot path appends; a bigger cache only adds to the bridge's resident memory.",
      '/** The most index rows a PostgreSQL statement inserts: 64 × 7 parameters. */',
      '  /** Pause before a watched inbox is looked at again (default 30 s). */',
      ' * The shutdown bound: the work under way gets 70 % of `shutdown_timeout_ms` to finish its requests',
      "const url = 'http://127.0.0.1:8080'; const ratio = 3×4;",
    ];
    expect(measured.filter((line) => figuresIn('a.ts', line).length === 0)).toEqual([]);
    expect(settings.flatMap((line) => figuresIn('a.ts', line))).toEqual([]);
  });
});
