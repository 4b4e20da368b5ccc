import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adminState, useEmulator } from '../support/emulator.js';
import { MAPPING_OF, admin, readRows, setUp, type Setup } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

const rowsOf = (s: Setup, file: string) => readRows(join(s.outbox, file));

describe('product catalog export', () => {
  it('full on the first run, then only what changed (overlap deduplicated), with the 3PL SKU from codes[]', async () => {
    const goods = ((await adminState(emu, ['products'])).products as any[]).filter((p) => p.type === 'goods');
    setup = await setUp(emu, [{ name: 'articles', work_type: 'products', mapping: MAPPING_OF.products, file_name: 'ARTICLES_{timestamp}_{seq}.csv' }]);

    const first = await setup.run('articles');
    expect(first).toMatchObject({ fullExport: true, exported: goods.length, skipped: 0 });
    expect(first.files).toHaveLength(1);
    const rows = rowsOf(setup, first.files[0].name);
    expect(rows.map((r) => r.SKU).sort()).toEqual(goods.map((p) => p.code).sort());
    expect(rows.every((r) => r.TPL_SKU === `3PL-${r.SKU}`)).toBe(true);
    expect(readFileSync(join(setup.outbox, first.files[0].name)).subarray(0, 7).toString()).toBe('TPL_SKU'); // no BOM for this mapping

    // Nothing changed: the overlap window lists recent products again, and each is recognised by id + updated_at.
    const second = await setup.run('articles');
    expect(second).toMatchObject({ fullExport: false, exported: 0, files: [] });
    expect(second.listed).toBe(second.skipped);

    await admin(emu, 'POST', 'touch-products', { codes: ['SKU-00007'], name: 'Renamed widget' });
    await admin(emu, 'POST', 'touch-products', { codes: ['SKU-00012'] });
    const third = await setup.run('articles');
    expect(third).toMatchObject({ fullExport: false, exported: 2 });
    const changed = rowsOf(setup, third.files[0].name);
    expect(changed.map((r) => [r.SKU, r.NAME, r.TPL_SKU])).toEqual([
      ['SKU-00007', 'Renamed widget', '3PL-SKU-00007'],
      ['SKU-00012', expect.any(String), '3PL-SKU-00012'],
    ]);

    await admin(emu, 'POST', 'touch-products', { codes: ['SKU-00007'], name: 'Renamed again' });
    const fourth = await setup.run('articles');
    expect(fourth.exported).toBe(1);
    expect(rowsOf(setup, fourth.files[0].name).map((r) => [r.SKU, r.NAME])).toEqual([['SKU-00007', 'Renamed again']]);
    expect(setup.outboxFiles()).toEqual([first, third, fourth].map((s) => s.files[0].name).sort());
    expect(setup.outboxFiles().some((f) => f.endsWith('.ack.csv'))).toBe(false);
  });

  it('the cursor is the latest updated_at exported; without overlap, the record at the cursor itself is listed again and deduplicated', async () => {
    setup = await setUp(emu, [{ name: 'articles', work_type: 'products', mapping: MAPPING_OF.products, overlap_seconds: 0 }]);
    await setup.run('articles');
    const journal = await setup.journal();
    const cursor = JSON.parse((await journal.getCursor('export:articles:products'))!);
    await journal.close();
    const latest = ((await adminState(emu, ['products'])).products as any[]).filter((p) => p.type === 'goods').map((p) => Date.parse(p.updated_at));
    expect(Date.parse(cursor.max)).toBe(Math.max(...latest));
    const again = await setup.run('articles');
    expect(again.listed).toBeGreaterThanOrEqual(1);
    expect(again).toMatchObject({ exported: 0, skipped: again.listed, files: [] });
  });

  it('splits a large catalog over several files by max_records_per_file', async () => {
    setup = await setUp(emu, [{ name: 'articles', work_type: 'products', mapping: MAPPING_OF.products, max_records_per_file: 100 }]);
    const run = await setup.run('articles');
    expect(run.files.map((f) => f.records)).toEqual([100, 100, run.exported - 200]);
    const skus = run.files.flatMap((f) => rowsOf(setup!, f.name).map((r) => r.SKU));
    expect(new Set(skus).size).toBe(run.exported);
  });
});
