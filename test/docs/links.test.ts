import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []);
}

const pages = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];
const markdownLink = /\]\(([^)\s]+)\)/g;
// `docs/name.md` written as code in any page names a file from the repository root.
const docsMention = /`(docs\/[\w./-]+\.md)`/g;

describe('README.md and docs/ stand alone in a clone', () => {
  it('never point outside the repository at ../shared', () => {
    const offenders = pages.filter((p) => readFileSync(p, 'utf8').includes('../shared'));
    expect(offenders.map((p) => relative(root, p))).toEqual([]);
  });

  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      for (const [, target] of text.matchAll(markdownLink)) {
        if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
        const path = resolve(dirname(page), target.split('#')[0]);
        if (!path.startsWith(root + '/') || !existsSync(path)) broken.push(`${relative(root, page)} → ${target}`);
      }
      for (const [, target] of text.matchAll(docsMention)) {
        if (!existsSync(join(root, target))) broken.push(`${relative(root, page)} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('describe the samples truly: a BOM and a delimiter are claimed only where the file has them', () => {
    const wrong: string[] = [];
    const mappingDoc = readFileSync(join(root, 'docs/mapping.md'), 'utf8');
    for (const [, sample, dialect] of mappingDoc.matchAll(/^\| [\w*-]+(?: \(\d\))? \| [^|]+ \| (\w+_20261120(?:_flat)?\.(?:csv|txt)) \| ([^|]+) \|$/gm)) {
      const bytes = readFileSync(join(root, 'samples', sample));
      const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
      if (/BOM/.test(dialect) !== hasBom) wrong.push(`docs/mapping.md: ${sample} ${hasBom ? 'has' : 'has no'} BOM (${dialect.trim()})`);
      const lines = bytes.toString('latin1').split(/\r?\n/).filter((l) => l && !l.startsWith('#'));
      const separated = (c: string) => lines.filter((l) => l.includes(c)).length >= lines.length / 2;
      if (/^semicolon/.test(dialect) && !separated(';')) wrong.push(`docs/mapping.md: ${sample} is not semicolon-separated`);
      if (/^comma/.test(dialect) && !separated(',')) wrong.push(`docs/mapping.md: ${sample} is not comma-separated`);
    }
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const korr = readFileSync(join(root, 'samples/KORR_20261120.csv'));
    expect(readme).toContain('`samples/KORR_20261120.csv` (semicolon, windows-1252 without a BOM, CRLF line ends');
    expect([korr[0] === 0xef, korr.includes('\r\n'), korr.toString('latin1').split('\r\n')[0].includes(';')]).toEqual([false, true, true]);
    expect(wrong).toEqual([]);
  });

  it('docs/README.md indexes every page of docs/', () => {
    const index = readFileSync(join(root, 'docs/README.md'), 'utf8');
    const missing = markdownFiles(join(root, 'docs'))
      .map((p) => relative(join(root, 'docs'), p))
      .filter((p) => p !== 'README.md' && !index.includes(`](${p})`));
    expect(missing).toEqual([]);
  });
});
