import { describe, expect, it } from 'vitest';
import { mapText } from './helpers.js';

// Contract refusals in plain words for the person who fixes the file, not zod's wording.
const adj = `
document: inventory.adjustments
files: "*.csv"
request:
  fields:
    product_code: SKU
    quantity: { column: QTY, type: number }
    reference: REF
    date: DATE
`;

describe('contract refusals read in plain words', () => {
  it('an empty required cell, a value out of range, a text where a date belongs', async () => {
    const s = await mapText(adj, 'SKU,QTY,REF,DATE\n,1,,\nA,0,,\nB,1,,20.11.2026\n');
    expect(s.rejected.map((r) => r.errors)).toEqual([
      ['in.csv, line 2, column SKU: the cell is empty, but product_code is required'],
      ['in.csv, line 3, column QTY: "0" is refused: quantity must not be 0'],
      ['in.csv, line 4, column DATE: "20.11.2026" is refused: date must be a date (yyyy-MM-dd; set type: date and its format on the field)'],
    ]);
    for (const e of s.rejected.flatMap((r) => r.errors)) expect(e).not.toMatch(/Invalid input|expected string|received undefined|Too small/);
  });
  it('a required field no mapping field fills, an enum value, an empty list', async () => {
    const ship = `
document: customerShipments.ship
files: "*.csv"
request:
  key: ORDER
  fields: { carrier: CARRIER, ship_strategy: STRATEGY }
  lists:
    lines:
      when: { column: SKU, empty: false }
      fields: { product_code: SKU, quantity: { column: QTY, type: number } }
`;
    const s = await mapText(ship, 'ORDER,CARRIER,STRATEGY,SKU,QTY\n7,UPS,later,A,1\n');
    expect(s.rejected[0].errors).toEqual([
      'in.csv, line 2: id is required, but no field of the mapping fills it',
      'in.csv, line 2, column STRATEGY: "later" is refused: ship_strategy must be one of defer_unshipped, ship_as_available, ship_all_together (a map transform can translate the WMS\'s values)',
    ]);
  });
});
