import { describe, expect, it } from 'vitest';
import { closest, levenshtein } from '../../src/mapping/targets.js';
import { items, mapText, mappingOf, problemsOf } from './helpers.js';
import type { ReferenceIds } from '../../src/mapping/reference-ids.js';

const ship = (lineFields: string, headerFields = 'tracking_number: TRACK', lists = '') => `
document: customerShipments.ship
files: "*.csv"
request:
  key: ORDER
  fields:
    id: { column: ORDER, type: integer }
    ${headerFields}
  lists:
    lines:
      fields:
        product_code: SKU
        quantity: { column: QTY, type: number }
        ${lineFields}
${lists}`;

describe('request fields are checked against the contract at load time (mappings check)', () => {
  it('a misspelled field names file, line, column, the field and the closest valid name', () => {
    expect(problemsOf(ship('lot_number: LOT'), 'ship.yaml')).toEqual([
      'ship.yaml:14:21: request.lists.lines.fields.lot_number: field "lot_number" is not a field of customerShipments.ship lines in the contract, so its value would be lost: did you mean `lot.number`? (a column read only for a check: add send: false)',
    ]);
    expect(problemsOf(ship('lot.number: LOT', 'tracking_numbr: TRACK'))[0]).toMatch(/^test\.yaml:8:21: request\.fields\.tracking_numbr: field "tracking_numbr" is not a field of customerShipments\.ship in the contract.*did you mean `tracking_number`\?/);
  });
  it('a misspelt field is reported in the same run as a mistake in the shape of the definition, in the order of the file', () => {
    // `type: numbr` and `colum` fail the definition's shape; the fields the contract does not have were found only in
    // the next run, once the shape passed.
    const problems = problemsOf(ship('lot_numbr: { colum: LOT }', 'tracking_numbr: { column: TRACK, type: numbr }'), 'ship.yaml');
    expect(problems.map((p) => p.split(': ').slice(0, 2).join(': '))).toEqual([
      'ship.yaml:8:21: request.fields.tracking_numbr',
      'ship.yaml:8:44: request.fields.tracking_numbr.type',
      'ship.yaml:14:20: request.lists.lines.fields.lot_numbr',
      'ship.yaml:14:22: request.lists.lines.fields.lot_numbr.colum',
    ]);
    expect(problems[0]).toMatch(/field "tracking_numbr" is not a field of customerShipments\.ship in the contract.*did you mean `tracking_number`\?/);
    expect(problems[1]).toMatch(/Invalid option.*did you mean "number"\?/);
    expect(problems[2]).toMatch(/field "lot_numbr" is not a field of customerShipments\.ship lines in the contract.*did you mean `lot\.number`\?/);
    expect(problems[3]).toMatch(/unknown option; did you mean `column`\?/);
    // With no contract write named, nothing to check the fields against: the shape's problems alone.
    expect(problemsOf(ship('lot_numbr: LOT').replace('customerShipments.ship', 'customerShipments.shipp'))).toEqual([
      expect.stringMatching(/document: Invalid option: .*did you mean "customerShipments\.ship"\?/),
    ]);
  });

  it('a field with no close name lists the valid ones; every unknown field is reported, not only the first', () => {
    const problems = problemsOf(ship('colour: COLOUR', 'ship_date: DATE'));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/fields\.ship_date: field "ship_date" is not a field of customerShipments\.ship .*valid: id, carrier, carrier_code, .*tracking_number, cost, cost_currency_code, ship_strategy, split/);
    expect(problems[1]).toMatch(/lists\.lines\.fields\.colour: field "colour" is not a field of customerShipments\.ship lines/);
  });
  it('lists must be lists of the contract, fields must be values, objects are named by their fields', () => {
    expect(problemsOf(ship('', 'tracking_number: TRACK', '    pakages:\n      fields: { reference: PKG }'))[0]).toMatch(/request\.lists\.pakages: list "pakages" is not a field .*did you mean `packages`\?/);
    expect(problemsOf(ship('lot: LOT'))[0]).toMatch(/fields\.lot: "lot" is an object in the contract: name its fields \(lot\.number\)/);
    expect(problemsOf(ship('', 'packages: X'))[0]).toMatch(/request\.fields\.packages: "packages" is a list in the contract: map it under lists, not fields/);
  });
  it('nested and recursive levels (packages, children, items, consumables) and whole-file requests are checked too', () => {
    const pallets = `
document: customerShipments.ship
files: "*.csv"
request:
  key: ORDER
  fields: { id: { column: ORDER, type: integer } }
  lists:
    packages:
      key: PALLET
      lists:
        children:
          key: PKG
          lists:
            items: { fields: { product_code: SKU, quantity: { column: QTY, type: number }, lot.numbr: LOT } }
            consumables: { fields: { product_code: SKU, qty: QTY } }
`;
    const problems = problemsOf(pallets);
    expect(problems.map((p) => p.replace(/^test\.yaml:\d+:\d+: /, '').split(':')[0])).toEqual([
      'request.lists.packages.lists.children.lists.items.fields.lot.numbr',
      'request.lists.packages.lists.children.lists.consumables.fields.qty',
    ]);
    expect(problems[0]).toContain('did you mean `lot.number`?');
    const count = 'document: inventory.counts\nfiles: "*.csv"\nrequest:\n  fields: { date: { value: "2026-11-19" }, reasn: { value: x } }\n  lists: { items: { fields: { product_code: SKU, quantity: QTY } } }\n';
    expect(problemsOf(count)[0]).toMatch(/request\.fields\.reasn: .*did you mean `reason`\?/);
  });
  it('every shipped mapping names only contract fields (checked by loading them in samples.test.ts); suggestions', () => {
    expect(levenshtein('lot_number', 'lot.number')).toBe(1);
    expect(closest('tracking_numbr', ['tracking_number', 'tracking_url'])).toBe('tracking_number');
    expect(closest('ship_date', ['id', 'carrier', 'split'])).toBeUndefined();
  });
});

describe('send: false reads a column for a check without sending it', () => {
  const m = `
document: inventory.adjustments
files: "*.csv"
request:
  fields:
    product_code: { column: SKU, check: product }
    quantity: { column: QTY, type: number }
    booked_on: { column: DATE, type: date, format: dd.MM.yyyy, send: false }
    sku_known: { column: SKU, check: product, send: false }
`;
  it('is not sent, but a value that does not parse is a row error, and a check still applies', async () => {
    expect(problemsOf(m)).toEqual([]);
    const referenceIds: ReferenceIds = { idsOf: async (_k, keys) => new Map(keys.filter((k) => k !== 'NOPE').map((k) => [k, 1])) };
    const s = await mapText(mappingOf(m), 'SKU,QTY,DATE\nA,1,19.11.2026\nB,2,31.02.2026\nNOPE,3,19.11.2026\n', { referenceIds });
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1 }]);
    expect(s.rejected.map((r) => r.errors[0])).toEqual([
      'in.csv, line 3, column DATE: "31.02.2026" is not a date (dd.MM.yyyy)',
      'in.csv, line 4, column SKU: "NOPE" is not a known product',
    ]);
  });
});
