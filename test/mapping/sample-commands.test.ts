import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// `mappings test` and `mappings check` on broken sample set-ups: a clear line per problem and exit 1, never a stack.
const root = resolve(import.meta.dirname, '../..');
const cli = (...args: string[]) => spawnSync(process.execPath, [resolve(root, 'bin/wisbridge.js'), ...args], { cwd: root, encoding: 'utf8' });

/** A mappings folder with the adjustments and products-export definitions, samples in ../samples as shipped. */
function setup(withSamples: boolean): { dir: string; samples: string } {
  const base = mkdtempSync(join(tmpdir(), 'wb-samples-'));
  const dir = join(base, 'mappings');
  const samples = join(base, 'samples');
  mkdirSync(dir);
  mkdirSync(samples);
  for (const m of ['inventory-adjustments.yaml', 'products-export.yaml']) copyFileSync(join(root, 'mappings', m), join(dir, m));
  if (withSamples) {
    for (const s of ['KORR_20261120.csv', 'KORR_20261120.expected.json', 'products.json', 'products.expected.csv']) copyFileSync(join(root, 'samples', s), join(samples, s));
  }
  return { dir, samples };
}

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |internal error/);

describe('mappings test never crashes', () => {
  it('a folder copied without its samples: one clear line per sample, exit 1', () => {
    const { dir, samples } = setup(false);
    const r = cli('mappings', 'test', '--dir', dir);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`FAIL  inventory-adjustments  ${join(samples, 'KORR_20261120.csv')}\n  USAGE: sample ${join(samples, 'KORR_20261120.csv')} does not exist\n`);
    expect(r.stdout).toContain(`  USAGE: sample ${join(samples, 'products.json')} does not exist\n`);
    expect(r.stdout).toContain('0 passed, 2 failed');
    noStack(r.stdout + r.stderr);
  });
  it('an expected file that is a folder, a bad expected file, a bad export sample, a bad references.json', () => {
    const { dir, samples } = setup(true);
    writeFileSync(join(samples, 'KORR_20261120.expected.json'), '{ not json');
    writeFileSync(join(samples, 'products.json'), '{"a": 1}');
    let r = cli('mappings', 'test', '--dir', dir);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/USAGE: .*KORR_20261120\.expected\.json is not valid JSON \(the expected file of an inbound sample is the JSON that --update writes\)/);
    expect(r.stdout).toMatch(/USAGE: .*products\.json: an export sample is a JSON array of API records/);
    noStack(r.stdout + r.stderr);

    writeFileSync(join(samples, 'references.json'), '{bad');
    r = cli('mappings', 'test', '--dir', dir);
    expect(r.stdout).toMatch(/USAGE: .*references\.json is not valid JSON \(reference table/);

    const folder = setup(true);
    const expected = join(folder.samples, 'KORR_20261120.expected.json');
    spawnSync('rm', [expected]);
    mkdirSync(expected);
    r = cli('mappings', 'test', '--dir', folder.dir);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`USAGE: expected file ${expected} is a folder, not a file`);
    expect(r.stdout).toContain('1 passed, 1 failed');
    noStack(r.stdout + r.stderr);
  });
  it('--update into a folder that does not exist is a clear line too', () => {
    const { dir } = setup(false);
    const r = cli('mappings', 'test', '--dir', dir, '--update');
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('does not exist');
    noStack(r.stdout + r.stderr);
  });
});

describe('mappings check checks that samples and expected files exist', () => {
  it('names the mapping file, the line of the samples entry and the missing file', () => {
    const { dir, samples } = setup(true);
    spawnSync('rm', [join(samples, 'products.expected.csv'), join(samples, 'KORR_20261120.csv')]);
    const r = cli('mappings', 'check', '--dir', dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'inventory-adjustments.yaml')}:21:11: samples.0: sample ${join(samples, 'KORR_20261120.csv')} does not exist (samples are relative to the mapping's folder)`);
    expect(r.stderr).toMatch(/products-export\.yaml:\d+:\d+: samples\.0: the expected file .*products\.expected\.csv of sample .*products\.json does not exist \(create it with wisbridge mappings test --update\)/);
    expect(r.stdout).toContain('2 mapping(s) valid, 2 problem(s)');
  });
});
