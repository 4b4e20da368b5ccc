import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Journal } from './interfaces.js';
import { openJournal } from './journal.js';
import type { ItemOutcome, NewItem } from './core/types.js';

export { rawDatabase } from './sqlite/raw.js';

/** A temp folder for journal files; remove() deletes it. Tests use real SQLite files only. */
export function tempDir(): { dir: string; path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'wisbridge-journal-'));
  return { dir, path: join(dir, 'journal.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export type TempDir = ReturnType<typeof tempDir>;

/** A fresh journal file per test (closed and deleted after it), handed to `use` before each test. */
export function useTestJournal(use: (journal: Journal, tmp: TempDir) => void): void {
  let current: { journal: Journal; tmp: TempDir } | undefined;
  beforeEach(async () => {
    const tmp = tempDir();
    current = { journal: await testJournal(tmp.path), tmp };
    use(current.journal, tmp);
  });
  afterEach(async () => {
    await current?.journal.close();
    current?.tmp.remove();
  });
}

/** A journal whose clock moves one second per call, from a fixed start. */
export function testJournal(path: string, start = Date.parse('2026-03-01T08:00:00Z')): Promise<Journal> {
  let tick = 0;
  return openJournal(path, { now: () => new Date(start + 1000 * tick++) });
}

export function adjustment(seq: number, extra: Partial<NewItem> = {}): NewItem {
  return {
    seq,
    endpoint: 'inventory.adjustments',
    docKey: `SKU-${seq}`,
    lines: [seq + 2],
    body: { product_code: `SKU-${seq}`, quantity: 1 + seq, reference: `ADJ-${seq}` },
    ...extra,
  };
}

export function okOutcomes(seqs: readonly number[]): ItemOutcome[] {
  return seqs.map((seq) => ({ seq, status: 'ok' as const, result: { move_id: 1000 + seq } }));
}

export const claimInput = (name: string, checksum: string) =>
  ({ drop: 'partner-a', name, checksum, size: 100, mapping: 'adjustments' }) as const;
