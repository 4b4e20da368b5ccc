import { describe, expect, it } from 'vitest';
import { items, mapText, problemsOf } from './helpers.js';

// Levels of a ship file: a pallet with packages and consumables of its own, loose packages and flat-line shipments in one file.
const mapping = `
document: customerShipments.ship
files: "*.txt"
dialect: { delimiter: "|", header: false }
record_types:
  types:
    H: { columns: [H_TYPE, ORDER] }
    L: { columns: [L_TYPE, PALLET] }
    P: { columns: [P_TYPE, PACKAGE, TRACKING] }
    D: { columns: [D_TYPE, SKU, QTY], emit: true }
    C: { columns: [C_TYPE, C_SKU, C_QTY], emit: true }
grouping: { sorted: true }
request:
  key: ORDER
  fields: { id: { column: ORDER, type: integer } }
  lists:
    lines:
      when: [{ column: PALLET, empty: true }, { column: PACKAGE, empty: true }, { column: D_TYPE, equals: D }]
      fields: { product_code: SKU, quantity: { column: QTY, type: number } }
    packages:
      when: { any: [{ column: PALLET, empty: false }, { column: PACKAGE, empty: false }] }
      key: PALLET
      optional_level: children
      fields: { reference: PALLET, medium: { value: pallet } }
      lists:
        children:
          when: { column: PACKAGE, empty: false }
          key: PACKAGE
          fields: { reference: PACKAGE, tracking_number: TRACKING }
          lists:
            items:
              when: { column: D_TYPE, equals: D }
              fields: { product_code: SKU, quantity: { column: QTY, type: number } }
            consumables:
              when: { column: C_TYPE, equals: C }
              fields: { product_code: C_SKU, quantity: { column: C_QTY, type: integer } }
        consumables:
          when: { all: [{ column: C_TYPE, equals: C }, { column: PACKAGE, empty: true }] }
          fields: { product_code: C_SKU, quantity: { column: C_QTY, type: integer } }
`;

const file = [
  'H|1',
  'L|PAL-1',
  'C|WRAP|1', // the pallet's own consumable (no package above it)
  'P|PKG-1|T1',
  'D|A|2',
  'C|BOX|1', // the package's consumable
  'P|PKG-2|T2',
  'D|B|1',
  'H|1', // the same order again: a loose package (no pallet) follows
  'P|PKG-3|T3',
  'D|C|4',
  'H|2', // a shipment with flat lines
  'D|A|1',
  'D|B|2',
].join('\n');

describe('lists at any level beside nested levels', () => {
  it('a pallet with packages and its own consumables, a loose package, and a flat-line shipment in one file', async () => {
    const s = await mapText(mapping, file + '\n');
    expect(s.rejected).toEqual([]);
    expect(s.skipped).toEqual([]);
    expect(items(s)).toEqual([
      {
        id: 1,
        packages: [
          {
            reference: 'PAL-1', medium: 'pallet',
            consumables: [{ product_code: 'WRAP', quantity: 1 }],
            children: [
              { reference: 'PKG-1', tracking_number: 'T1', items: [{ product_code: 'A', quantity: 2 }], consumables: [{ product_code: 'BOX', quantity: 1 }] },
              { reference: 'PKG-2', tracking_number: 'T2', items: [{ product_code: 'B', quantity: 1 }] },
            ],
          },
          { reference: 'PKG-3', tracking_number: 'T3', items: [{ product_code: 'C', quantity: 4 }] },
        ],
      },
      { id: 2, lines: [{ product_code: 'A', quantity: 1 }, { product_code: 'B', quantity: 2 }] },
    ]);
    expect(s.requests.flatMap((r) => r.body.shipments as unknown[])).toHaveLength(2);
  });
  it('a consumable directly under a shipment header has no list: an error, not dropped', async () => {
    const s = await mapText(mapping, 'H|3\nD|A|1\nC|TAPE|1\n');
    expect(s.rejected[0].errors[0]).toMatch(/^in\.csv, line 3: the row goes into no list of the request/);
  });
  it('optional_level names a nested list; an unknown name or true with several lists is refused at load', () => {
    expect(problemsOf(mapping.replace('optional_level: children', 'optional_level: kids'))[0]).toMatch(/optional_level: optional_level names "kids", which is not one of the nested lists \(children, consumables\)/);
    expect(problemsOf(mapping.replace('optional_level: children', 'optional_level: true'))[0]).toMatch(/name the one that takes rows with an empty key/);
  });
});

describe('any-of and all-of conditions', () => {
  const adj = (skip: string) => `
document: inventory.adjustments
files: "*.csv"
skip: ${skip}
request:
  fields: { product_code: SKU, quantity: { column: QTY, type: number } }
`;
  it('skip with all-of inside any-of', async () => {
    const s = await mapText(adj('[{ all: [{ column: T, equals: X }, { column: QTY, equals: "0" }] }, { column: T, equals: NOTE }]'), 'T,SKU,QTY\nX,A,0\nX,B,1\nNOTE,C,1\nY,D,0\n');
    expect(s.skipped.map((k) => k.line)).toEqual([2, 4]);
    expect(items(s).map((i) => i.product_code)).toEqual(['B']);
    expect(s.rejected.map((r) => r.lines)).toEqual([[5]]);
  });
  it('any nests and empty lists are refused', () => {
    expect(problemsOf(adj('{ any: [{ any: [{ column: T, equals: X }] }] }'))).toEqual([]);
    expect(problemsOf(adj('{ any: [] }'))[0]).toMatch(/skip/);
  });
});
