import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMappingFile } from '../mapping/index.js';
import { mapsOnThread, THREAD_FROM } from './stream.js';

const MAPPINGS = join(import.meta.dirname, '../../mappings');

describe('which files are mapped on their own thread', () => {
  it('a file of row documents from THREAD_FROM bytes on', async () => {
    const adjustments = await loadMappingFile(join(MAPPINGS, 'inventory-adjustments.yaml'));
    expect(mapsOnThread(adjustments, THREAD_FROM - 1, THREAD_FROM)).toBe(false);
    expect(mapsOnThread(adjustments, THREAD_FROM, THREAD_FROM)).toBe(true);
  });

  it('never a whole-file document (a cycle count), whatever its size', async () => {
    const counts = await loadMappingFile(join(MAPPINGS, 'inventory-cycle-count.yaml'));
    expect(counts.inbound?.wholeFile).toBe(true);
    expect(mapsOnThread(counts, 10 * THREAD_FROM, 1)).toBe(false);
  });
});
