import { describe, expect, it } from 'vitest';
import { useCleanups } from '../service/support.js';
import { seededConsole, seedTwoFailures } from './seeded.js';
import { consoleClient } from './support.js';

const cleanups = useCleanups();

/** The rows of the search page: [file, line, found in, row status, what came back or the error]. */
function hits(page: string): string[][] {
  const body = /<table id="search">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)?.[1] ?? '';
  return [...body.matchAll(/<tr data-file[\s\S]*?<\/tr>/g)].map((m) => {
    const cells = [...m[0].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1].replace(/<[^>]+>/g, '').trim());
    return [cells[0], cells[4], cells[6], cells[8], cells[9] || cells[10]];
  });
}

describe('console: search across files', () => {
  it('"where is SKU-00001?" lists every file and line that carried it, any case, with status and what the service returned', async () => {
    const b = await seededConsole(seedTwoFailures);
    cleanups.push(() => b.close());
    const client = consoleClient(b.url);
    const sku = await client.get('/console/search?q=sku-00001');
    expect(sku.status).toBe(200);
    const found = hits(sku.text);
    expect(found.map((h) => h.slice(0, 4))).toEqual([
      ['KORR_b.csv', '3', 'document key', 'ok'],
      ['KORR_a.csv', '2', 'document key', 'ok'],
    ]);
    expect(found[0][4]).toMatch(/\{.+\}/); // what the service returned for it
    // A reference of a failed row: the error, from the row copied out of its block.
    const failed = hits((await client.get('/console/search?q=A-2')).text);
    expect(failed).toHaveLength(1);
    expect(failed[0].slice(0, 4)).toEqual(['KORR_a.csv', '3', 'body', 'error']);
    expect(failed[0][4]).toContain('insufficient stock of SKU-00004');
    // The uncertain row of the other file.
    expect(hits((await client.get('/console/search?q=B-1')).text).map((h) => h.slice(0, 4))).toEqual([['KORR_b.csv', '2', 'body', 'uncertain']]);
    // Whole values only, and nothing for a term no row carried.
    expect(hits((await client.get('/console/search?q=SKU-0000')).text)).toEqual([]);
    expect((await client.get('/console/search?q=SKU-99999')).text).toContain('no row carried it');
    // The header's search box on every page; the page needs a sign-in like every other.
    expect((await client.get('/console/files')).text).toContain('action="/console/search"');
    expect((await consoleClient(b.url, null).get('/console/search?q=A-2')).status).toBe(401);
  });
});
