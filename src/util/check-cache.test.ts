import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkMappings } from '../mapping/index.js';
import type { MappingDefinition } from '../mapping/definition-schema.js';
import { CheckCache } from './check-cache.js';

let dir: string;
let mappings: string;
let cacheHome: string;
const saved = process.env.XDG_CACHE_HOME;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wb-check-cache-'));
  mappings = join(dir, 'mappings');
  cacheHome = join(dir, 'cache');
  cpSync(new URL('../../mappings', import.meta.url), mappings, { recursive: true });
  process.env.XDG_CACHE_HOME = cacheHome;
});

afterEach(() => {
  if (saved === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = saved;
  rmSync(dir, { recursive: true, force: true });
});

const adjustments = () => join(mappings, 'inventory-adjustments.yaml');

describe('the check cache of a mappings folder', () => {
  it('compiles a cached definition to the same mapping as a full check of its file', async () => {
    const fresh = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, undefined));
    await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    const cached = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    expect(cached.problems).toEqual([]);
    expect(cached.mappings.map((m) => m.name)).toEqual(fresh.mappings.map((m) => m.name));
    expect(JSON.parse(JSON.stringify(cached.mappings))).toEqual(JSON.parse(JSON.stringify(fresh.mappings)));
    expect(cached.warnings).toEqual(fresh.warnings);
    // Compiled on first use (run, batch): the same plans once read (JSON.stringify reads them).
    const onUse = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'), { compile: 'on-use' });
    expect(onUse.problems).toEqual([]);
    expect(JSON.parse(JSON.stringify(onUse.mappings))).toEqual(JSON.parse(JSON.stringify(fresh.mappings)));
  });

  it('on use, trusts an entry of the checker until the plan is read; a compile failing then names the file', async () => {
    await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    // An entry the checker never wrote: a file whose text fails the check, entered as checked, with a definition
    // that does not compile. 'now' compiles it at once and then checks the text; 'on-use' compiles when the plan is read.
    const bad = readFileSync(adjustments(), 'utf8').replace(/^document: .*$/m, 'document: inventory.adjustmentz');
    writeFileSync(adjustments(), bad);
    const cacheDir = join(cacheHome, 'wisbridge');
    const cacheFile = join(cacheDir, readdirSync(cacheDir)[0]);
    const file = JSON.parse(readFileSync(cacheFile, 'utf8')) as { entries: Record<string, { sha256: string; data: { request?: unknown } }> };
    const entry = file.entries[adjustments()];
    entry.sha256 = createHash('sha256').update(bad).digest('hex');
    delete entry.data.request;
    writeFileSync(cacheFile, JSON.stringify(file));
    const onUse = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'), { compile: 'on-use' });
    expect(onUse.problems).toEqual([]);
    const mapping = onUse.mappings.find((m) => m.file === adjustments())!;
    expect(mapping.direction).toBe('inbound');
    expect(mapping.matches('KORR_20261202.csv')).toBe(true);
    expect(() => mapping.inbound).toThrow(/inventory-adjustments\.yaml: document: .*needs a request section/);
    const now = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    expect(now.problems.map((p) => p.message)).toEqual([expect.stringMatching(/^document: Invalid option/)]);
  });

  it('is read for a file whose text is unchanged, and only under the same checker', async () => {
    await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    const cacheDir = join(cacheHome, 'wisbridge');
    const cacheFile = join(cacheDir, readdirSync(cacheDir)[0]);
    const file = JSON.parse(readFileSync(cacheFile, 'utf8')) as { entries: Record<string, { data: { name?: string } }> };
    // A cache entry altered behind the checker's back shows whether it is read: its name is the mapping's.
    file.entries[adjustments()].data.name = 'renamed-by-the-cache';
    writeFileSync(cacheFile, JSON.stringify(file));
    const hit = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    expect(hit.mappings.map((m) => m.name)).toContain('renamed-by-the-cache');
    const otherBuild = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-2'));
    expect(otherBuild.mappings.map((m) => m.name)).not.toContain('renamed-by-the-cache');
  });

  it('checks a changed file again and reports its problem with its place', async () => {
    await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    writeFileSync(adjustments(), readFileSync(adjustments(), 'utf8').replace(/^document: .*$/m, 'document: inventory.adjustmentz'));
    const { problems } = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: adjustments(), line: expect.any(Number), col: expect.any(Number) });
    expect(problems[0].message).toMatch(/document/);
  });

  it('keeps no cache for the sources (no build stamp) and never stops a check it cannot write', async () => {
    await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, undefined));
    expect(existsSync(join(cacheHome, 'wisbridge'))).toBe(false);
    writeFileSync(cacheHome, 'a file where the cache folder would be');
    const { problems, mappings: read } = await checkMappings(mappings, CheckCache.open<MappingDefinition>('mappings', mappings, 'build-1'));
    expect(problems).toEqual([]);
    expect(read.length).toBeGreaterThan(0);
  });
});
