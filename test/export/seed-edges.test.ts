import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator.js';
import { MAPPING_OF, readRows, setUp, type Setup } from './helpers.js';

const emu = useEmulator({ resetEachTest: true });
let setup: Setup | undefined;
afterEach(async () => {
  await setup?.cleanup();
  setup = undefined;
});

describe('the seed tries a work list end to end', () => {
  it('customer text starting with = + - @ is neutralized in the work list; quantities in the thousands stay numbers', async () => {
    setup = await setUp(emu, [{ name: 'so', work_type: 'customerShipments', mapping: MAPPING_OF.customerShipments }]);
    await setup.run('so');
    const rows = readRows(join(setup.outbox, setup.outboxFiles()[0]));
    const first = (number: string) => rows.find((r) => r.ORDER_NO === number)!;
    expect(['SO-1011', 'SO-1036', 'SO-1061', 'SO-1086'].map((n) => [first(n).CUSTOMER.slice(0, 2), first(n).ADDRESS1.slice(0, 2)]))
      .toEqual([["'=", "'="], ["'+", "'+"], ["'-", "'-"], ["'@", "'@"]]);
    expect(rows.filter((r) => !['SO-1011', 'SO-1036', 'SO-1061', 'SO-1086', 'SO-1111'].includes(r.ORDER_NO)).every((r) => !r.CUSTOMER.startsWith("'"))).toBe(true);
    expect(Number(first('SO-1021').QTY)).toBeGreaterThanOrEqual(1000);
    expect(first('SO-1021').QTY).toMatch(/^\d+$/);
  });
});
