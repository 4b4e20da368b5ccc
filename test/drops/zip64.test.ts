import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { extractZipEntry, readZipDirectory, type ExpansionLimits } from '../../src/drops/index.js';
import { ensureAptPackage } from '../support/apt.js';

// Archives written by Info-ZIP's zip with ZIP64 forced (-fz), as partners' large archives are: the ZIP64 end of
// central directory record and locator, the offsets and sizes in ZIP64 extra fields, data descriptors when piped.
const ZIP = '/usr/bin/zip';
const limits: ExpansionLimits = { maxBytes: 64 * 1024 * 1024, maxRatio: 250, maxEntries: 10 };
const dir = mkdtempSync(join(tmpdir(), 'wb-zip64-'));
beforeAll(() => ensureAptPackage('zip', ZIP));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function expanded(archive: string): Promise<Record<string, string>> {
  const contents: Record<string, string> = {};
  for (const entry of await readZipDirectory(archive, 'partner.zip', limits)) {
    const out = join(dir, `out-${entry.name}`);
    await extractZipEntry(archive, entry, out, 'partner.zip', limits);
    contents[entry.name] = readFileSync(out, 'utf8');
    rmSync(out);
  }
  return contents;
}

it('reads the ZIP64 archives zip -fz writes, from files and from a pipe', async () => {
  const rows = Array.from({ length: 3000 }, (_, i) => `SKU-${i};${i % 7}\n`).join('');
  writeFileSync(join(dir, 'A.csv'), rows);
  writeFileSync(join(dir, 'B.csv'), 'x\n');
  execFileSync(ZIP, ['-fz', '-q', 'files.zip', 'A.csv', 'B.csv'], { cwd: dir });
  expect(readFileSync(join(dir, 'files.zip')).includes(Buffer.from([0x50, 0x4b, 0x06, 0x06])), 'a ZIP64 end of central directory record').toBe(true);
  expect(await expanded(join(dir, 'files.zip'))).toEqual({ 'A.csv': rows, 'B.csv': 'x\n' });
  execFileSync(ZIP, ['-fz', '-q', 'piped.zip', '-'], { cwd: dir, input: rows });
  expect(await expanded(join(dir, 'piped.zip'))).toEqual({ '-': rows });
});
