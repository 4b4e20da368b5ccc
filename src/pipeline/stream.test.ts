import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flatShipMapping } from '../../test/pipeline/helpers.js';
import { loadMappingFile, parseMapping, type Mapping } from '../mapping/index.js';
import { HOLDING_THREAD_FROM, holdsDocuments, mapsOnThread, THREAD_FROM } from './stream.js';

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

  it('a file whose mapping holds every document until its end from HOLDING_THREAD_FROM bytes on', async () => {
    const flat = (sorted: boolean): Mapping => {
      const { mapping, problems } = parseMapping(flatShipMapping('SHIP_*.csv', sorted), 'flat.yaml');
      expect(problems).toEqual([]);
      return mapping!;
    };
    const unsorted = flat(false);
    expect(holdsDocuments(unsorted)).toBe(true);
    expect(mapsOnThread(unsorted, HOLDING_THREAD_FROM - 1, THREAD_FROM)).toBe(false);
    expect(mapsOnThread(unsorted, HOLDING_THREAD_FROM, THREAD_FROM)).toBe(true);
    const sorted = flat(true);
    expect(holdsDocuments(sorted)).toBe(false);
    expect(mapsOnThread(sorted, HOLDING_THREAD_FROM, THREAD_FROM)).toBe(false);
    // Control totals are checked before anything of the file is sent: its documents are held too.
    const totals = await loadMappingFile(join(MAPPINGS, 'supplier-shipment-receive-fixed.yaml'));
    expect(holdsDocuments(totals)).toBe(true);
    const adjustments = await loadMappingFile(join(MAPPINGS, 'inventory-adjustments.yaml'));
    expect(holdsDocuments(adjustments)).toBe(false);
  });
});

