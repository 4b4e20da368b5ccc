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

  it('docs/README.md indexes every page of docs/', () => {
    const index = readFileSync(join(root, 'docs/README.md'), 'utf8');
    const missing = markdownFiles(join(root, 'docs'))
      .map((p) => relative(join(root, 'docs'), p))
      .filter((p) => p !== 'README.md' && !index.includes(`](${p})`));
    expect(missing).toEqual([]);
  });
});
