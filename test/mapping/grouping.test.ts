import { describe, expect, it } from 'vitest';
import { cachedReferenceIds, formatProblem, parseMapping, TableReferenceIds, type ReferenceKind, type ReferenceIds } from '../../src/mapping/index.js';
import { items, mapText, mappingOf, rejection } from './helpers.js';

const refs = new TableReferenceIds({
  customerShipment: { 'SO-1': 11, 'SO-2': 12, 'SO-3': 13 },
  product: { A: 1, B: 2 },
});

const flat = (grouping = '') => `
document: customerShipments.ship
files: "*.csv"
${grouping}
request:
  key: ORDER
  fields:
    id: { column: ORDER, id_of: customerShipment }
    carrier: CARRIER
  lists:
    lines:
      fields:
        product_code: SKU
        quantity: { column: QTY, type: number }
`;
const FLAT = 'ORDER,CARRIER,SKU,QTY\nSO-1,dhl,A,1\nSO-1,dhl,B,2\nSO-2,ups,A,3\n';

describe('grouping rows into documents', () => {
  it('one document per key, one line per row, header fields from the first row', async () => {
    const s = await mapText(flat(), FLAT, { referenceIds: refs });
    expect(items(s)).toEqual([
      { id: 11, carrier: 'dhl', lines: [{ product_code: 'A', quantity: 1 }, { product_code: 'B', quantity: 2 }] },
      { id: 12, carrier: 'ups', lines: [{ product_code: 'A', quantity: 3 }] },
    ]);
  });
  it('unsorted files group by key wherever the rows are', async () => {
    const s = await mapText(flat(), 'ORDER,CARRIER,SKU,QTY\nSO-1,dhl,A,1\nSO-2,ups,A,3\nSO-1,dhl,B,2\n', { referenceIds: refs });
    expect(items(s).map((i) => (i.lines as unknown[]).length)).toEqual([2, 1]);
  });
  it('sorted files: a key that comes back is refused with a clear message, the rest goes on', async () => {
    const s = await mapText(flat('grouping: { sorted: true }'), 'ORDER,CARRIER,SKU,QTY\nSO-1,dhl,A,1\nSO-2,ups,A,3\nSO-1,dhl,B,2\n', { referenceIds: refs });
    expect(items(s).map((i) => i.id)).toEqual([11, 12]);
    expect(s.rejected).toEqual([{ key: 'SO-1', lines: [4], errors: ['in.csv, line 4: document "SO-1" appears again after other documents; the file is not sorted by its key (set grouping.sorted: false)'] }]);
  });
  it('unsorted files are bounded: too many open documents is a GROUPING_LIMIT error', async () => {
    const e = await rejection(mapText(flat('grouping: { max_open_documents: 2 }'), FLAT + 'SO-3,ups,A,1\n', { referenceIds: refs }));
    expect(e.code).toBe('GROUPING_LIMIT');
    expect(e.message).toContain('in.csv, line 5: more than 2 documents open at once');
  });
  it('a document with too many rows is rejected, others go on', async () => {
    const s = await mapText(flat('grouping: { max_rows_per_document: 1 }'), FLAT, { referenceIds: refs });
    expect(items(s).map((i) => i.id)).toEqual([12]);
    expect(s.rejected[0].lines).toEqual([2, 3]);
    expect(s.rejected[0].errors).toEqual(['in.csv, line 3: the document has more than 1 rows (grouping.max_rows_per_document)']);
  });
  it('one bad row rejects its document with every line of it; other documents go on', async () => {
    const s = await mapText(flat(), 'ORDER,CARRIER,SKU,QTY\nSO-1,dhl,A,1\nSO-1,dhl,B,1,5x\nSO-2,ups,A,3\n'.replace('1,5x', '"1,5x"'), { referenceIds: refs });
    expect(items(s).map((i) => i.id)).toEqual([12]);
    expect(s.rejected).toEqual([{ key: 'SO-1', lines: [2, 3], errors: ['in.csv, line 3, column QTY: "1,5x" is not a number'] }]);
  });
  it('a composite key', async () => {
    const m = `
document: inventory.counts
files: "*.csv"
grouping: { whole_file: true }
request:
  fields:
    date: { value: "2026-11-01" }
    reason: { value: count }
  lists:
    items:
      key: [SKU, LOT]
      fields: { product_code: SKU, lot_number: LOT, quantity: { column: QTY, type: integer } }
`;
    const s = await mapText(m, 'SKU,LOT,QTY\nA,L1,1\nA,L2,2\nA,L1,1\n');
    expect(items(s)[0].items).toEqual([{ product_code: 'A', lot_number: 'L1', quantity: 1 }, { product_code: 'A', lot_number: 'L2', quantity: 2 }]);
  });
  it('a whole-file request is all or nothing: one bad row rejects it with every line', async () => {
    const m = `
document: inventory.counts
files: "*.csv"
request:
  fields:
    date: { column: DATE, type: date }
    reason: { value: count }
  lists:
    items:
      fields: { product_code: SKU, quantity: { column: QTY, type: integer } }
`;
    const good = await mapText(m, 'DATE,SKU,QTY\n2026-11-01,A,1\n2026-11-01,B,2\n');
    expect(good.requests).toEqual([{ endpoint: 'inventory.counts', body: { date: '2026-11-01', reason: 'count', items: [{ product_code: 'A', quantity: 1 }, { product_code: 'B', quantity: 2 }] } }]);
    const bad = await mapText(m, 'DATE,SKU,QTY\n2026-11-01,A,1\n2026-11-01,B,2.5\n');
    expect(bad.requests).toEqual([]);
    expect(bad.rejected).toEqual([{ key: '', lines: [2, 3], errors: ['in.csv, line 3, column QTY: "2.5" is not a whole number'] }]);
  });
  it('one document per row when the request has no key, batched by maxBatchItems', async () => {
    const m = `
document: inventory.adjustments
files: "*.csv"
request:
  fields: { product_code: SKU, quantity: { column: QTY, type: number } }
`;
    const rows = Array.from({ length: 5 }, (_, i) => `S${i},${i + 1}`).join('\n');
    const s = await mapText(m, `SKU,QTY\n${rows}\n`, { maxBatchItems: 2 });
    expect(s.requests.map((r) => (r.body.adjustments as unknown[]).length)).toEqual([2, 2, 1]);
  });
  it('keyed documents that complete together at the end of the file still come in bodies of maxBatchItems', async () => {
    const m = `
document: customerShipments.changeStatus
files: "*.csv"
request:
  key: ID
  fields: { id: { column: ID, type: integer }, picking_status: STATUS }
`;
    // Non-contiguous keys: every document stays open until the end of the file.
    const s = await mapText(m, 'ID,STATUS\n1,done\n2,done\n3,done\n1,done\n4,done\n5,done\n');
    expect(s.requests).toHaveLength(1);
    const small = await mapText(m, 'ID,STATUS\n1,done\n2,done\n3,done\n1,done\n4,done\n5,done\n', { maxBatchItems: 2 });
    expect(small.requests.map((r) => (r.body.shipments as Array<{ id: number }>).map((x) => x.id))).toEqual([[1, 2], [3, 4], [5]]);
  });
});

describe('nesting: packages, pallets, items, consumables', () => {
  const m = `
document: customerShipments.ship
files: "*.csv"
request:
  key: ORDER
  fields: { id: { column: ORDER, type: integer } }
  lists:
    packages:
      key: PALLET
      optional_level: true
      fields: { reference: PALLET }
      lists:
        children:
          key: PACKAGE
          fields: { reference: PACKAGE, tracking_number: TRACKING }
          lists:
            items:
              when: { column: KIND, equals: I }
              fields: { product_code: SKU, quantity: { column: QTY, type: number }, lot.number: LOT, serial_numbers: { column: SERIALS, split: ";" } }
            consumables:
              when: { column: KIND, equals: C }
              fields: { product_code: SKU, quantity: { column: QTY, type: integer } }
`;
  it('pallets hold packages (children); loose packages sit beside them; consumables by condition', async () => {
    const csv = [
      'ORDER,PALLET,PACKAGE,TRACKING,KIND,SKU,QTY,LOT,SERIALS',
      '7,PAL1,P1,T1,I,A,1,L-1,',
      '7,PAL1,P1,T1,C,BOX,2,,',
      '7,PAL1,P2,T2,I,B,2,,"S1;S2"',
      '7,,P3,T3,I,A,1,,',
    ].join('\n');
    const s = await mapText(m, csv);
    expect(s.rejected).toEqual([]);
    expect(items(s)).toEqual([{
      id: 7,
      packages: [
        {
          reference: 'PAL1',
          children: [
            { reference: 'P1', tracking_number: 'T1', items: [{ product_code: 'A', quantity: 1, lot: { number: 'L-1' } }], consumables: [{ product_code: 'BOX', quantity: 2 }] },
            { reference: 'P2', tracking_number: 'T2', items: [{ product_code: 'B', quantity: 2, serial_numbers: ['S1', 'S2'] }] },
          ],
        },
        { reference: 'P3', tracking_number: 'T3', items: [{ product_code: 'A', quantity: 1 }] },
      ],
    }]);
  });
  it('a contract refusal names the line, column and raw value of the offending cell', async () => {
    const csv = 'ORDER,PALLET,PACKAGE,TRACKING,KIND,SKU,QTY,LOT,SERIALS\n7,,P1,T1,I,A,1,,\n7,,P1,T1,I,B,0,,\n';
    const s = await mapText(m, csv);
    expect(s.rejected).toEqual([{
      key: '7', lines: [2, 3],
      errors: ['in.csv, line 3, column QTY: "0" is refused: packages[0].items[1].quantity must be at least 1'],
    }]);
  });
  it('a contract refusal of a whole object names its first line', async () => {
    const csv = 'ORDER,PALLET,PACKAGE,TRACKING,KIND,SKU,QTY,LOT,SERIALS\n7,,P1,T1,C,BOX,1,,\n';
    const s = await mapText(m, csv);
    expect(s.rejected[0].errors).toEqual(['in.csv, line 2: packages[0]: a package needs items (or children)']);
  });
});

describe('EDI-style record types', () => {
  const m = `
document: customerShipments.failed
files: "*.csv"
dialect: { delimiter: ";", header: false }
record_types:
  types:
    H: { columns: [HT, ORDER] }
    D: { columns: [DT, TEXT] }
request:
  key: ORDER
  fields:
    id: { column: ORDER, type: integer }
    error: { column: TEXT }
`;
  it('detail rows see the header above them; every line of a document is reported', async () => {
    const s = await mapText(m, 'H;5\nD;broken\nH;6\nD;late\n');
    expect(s.requests[0].body).toEqual({ shipments: [{ id: 5, error: 'broken' }, { id: 6, error: 'late' }] });
    const again = await mapText(m, 'H;5\nD;broken\n');
    expect(again.requests).toHaveLength(1);
  });
  it('an unknown record type and a header without details are reported', async () => {
    const s = await mapText(m, 'H;5\nX;??\nD;broken\nH;6\n');
    expect(s.rejected).toEqual([
      { key: '', lines: [2], errors: ['in.csv, line 2: record type "X" is not one of H, D'] },
      { key: '', lines: [4], errors: ['in.csv, line 4: a H record with no detail record below it, so nothing of it would be sent (if such records carry nothing to send, set record_types.types.H.skip: true)'] },
    ]);
    expect(s.skipped).toEqual([]);
    expect(items(s)).toEqual([{ id: 5, error: 'broken' }]);
  });
  it('a record type marked skip is left out and reported skipped; the last type that is not skipped is mapped', async () => {
    const withTrailer = m.replace('    D: { columns: [DT, TEXT] }', '    D: { columns: [DT, TEXT] }\n    T: { columns: [TT, COUNT], skip: true }');
    const s = await mapText(withTrailer, 'H;5\nD;broken\nT;1\n');
    expect(items(s)).toEqual([{ id: 5, error: 'broken' }]);
    expect(s.skipped).toEqual([{ line: 3, reason: 'record type T is skipped (record_types.types.T.skip)' }]);
  });
  it('a new header clears the columns of the records below it', async () => {
    const m3 = `
document: customerShipments.failed
files: "*.csv"
dialect: { delimiter: ";", header: false }
record_types:
  types:
    H: { columns: [HT, ORDER] }
    N: { columns: [NT, NOTE] }
    D: { columns: [DT, TEXT] }
request:
  key: ORDER
  fields:
    id: { column: ORDER, type: integer }
    error: { concat: [NOTE, TEXT], separator: " / " }
`;
    const s = await mapText(m3, 'H;5\nN;n1\nD;t1\nH;6\nD;t2\n');
    expect(items(s)).toEqual([{ id: 5, error: 'n1 / t1' }, { id: 6, error: 't2' }]);
  });
});

describe('conditions and references', () => {
  it('skip rows where any condition holds; each skipped line is reported', async () => {
    const m = `
document: inventory.adjustments
files: "*.csv"
skip:
  - { column: TYPE, in: [INFO, NOTE] }
  - { column: SKU, empty: true }
  - { column: SKU, matches: "^TEST-" }
  - { column: QTY, equals: "0" }
request:
  fields: { product_code: SKU, quantity: { column: QTY, type: number } }
`;
    const s = await mapText(m, 'TYPE,SKU,QTY\nADJ,A,1\nINFO,B,1\nADJ,  ,1\nADJ,TEST-1,1\nADJ,C,0\nADJ,D,2\n');
    expect(items(s).map((i) => i.product_code)).toEqual(['A', 'D']);
    expect(s.skipped.map((x) => x.line)).toEqual([3, 4, 5, 6]);
  });
  it('not_equals / not_in conditions on a list select rows', async () => {
    const m = `
document: inventory.counts
files: "*.csv"
request:
  fields: { date: { value: "2026-01-01" }, reason: { value: r } }
  lists:
    items:
      when: [{ column: T, not_equals: X }, { column: T, not_in: [Y] }]
      fields: { product_code: SKU, quantity: { column: Q, type: integer } }
`;
    const s = await mapText(m.replace('request:', 'skip: { column: T, equals: "Y" }\nrequest:'), 'T,SKU,Q\nA,s1,1\nX,s2,1\nY,s3,1\nZ,s4,2\n');
    expect(s.skipped).toEqual([{ line: 4, reason: 'skip condition' }]);
    // A row no list takes is an error, never ok while dropped (a cycle count is all or nothing).
    expect(s.rejected).toEqual([{ key: '', lines: [2, 3, 5], errors: ['in.csv, line 3: the row goes into no list of the request (it passes none of the when conditions of items), so nothing of it would be sent: map it in a list, or leave such rows out with skip'] }]);
    const selected = await mapText(m.replace('request:', 'skip: { column: T, in: [X, Y] }\nrequest:'), 'T,SKU,Q\nA,s1,1\nX,s2,1\nY,s3,1\nZ,s4,2\n');
    expect(items(selected)[0].items).toEqual([{ product_code: 's1', quantity: 1 }, { product_code: 's4', quantity: 2 }]);
  });
  it('the ids of references are fetched once per key through the cache; unknown keys reject their document', async () => {
    let calls = 0;
    const counting: ReferenceIds = {
      async idsOf(kind: ReferenceKind, keys: readonly string[]) {
        calls++;
        return refs.idsOf(kind, keys);
      },
    };
    const m = `
document: customerShipments.acknowledge
files: "*.csv"
request:
  key: N
  fields: { id: { column: N, id_of: customerShipment } }
`;
    const s = await mapText(m, 'N\nSO-1\nSO-2\nSO-1\nSO-404\n', { referenceIds: counting, maxBatchItems: 100 });
    expect(items(s)).toEqual([{ id: 11 }, { id: 12 }]);
    expect(s.rejected).toEqual([{ key: 'SO-404', lines: [5], errors: ['in.csv, line 5, column N: "SO-404" is not a known customer shipment'] }]);
    expect(calls).toBe(1);
    const cached = cachedReferenceIds(counting);
    await cached.idsOf('customerShipment', ['SO-1', 'SO-404']);
    await cached.idsOf('customerShipment', ['SO-1', 'SO-404', 'SO-2']);
    expect(cached.calls).toBe(2);
    expect(calls).toBe(3);
  });
  it('id_of under its old name `resolve` still works, with a deprecation warning naming id_of', async () => {
    const old = flat().replace('id_of: customerShipment', 'resolve: customerShipment');
    const { mapping, warnings } = parseMapping(old, 'old.yaml');
    expect(warnings.map(formatProblem)).toEqual(['old.yaml:8:26: request.fields.id.resolve: deprecated spelling; write `id_of` (the old name still works for now)']);
    expect(mapping?.warnings).toEqual(warnings);
    expect(parseMapping(flat(), 'new.yaml').warnings).toEqual([]);
    expect(mappingOf(flat()).warnings).toBeUndefined();
    const [before, after] = [await mapText(old, FLAT, { referenceIds: refs }), await mapText(flat(), FLAT, { referenceIds: refs })];
    expect(items(before).map((i) => i.id)).toEqual([11, 12]);
    expect(items(before)).toEqual(items(after));
    // Both names at once: the new one counts, the old one is an unknown option.
    const both = parseMapping(flat().replace('id_of: customerShipment', 'id_of: customerShipment, resolve: product'), 'both.yaml');
    expect(both.mapping).toBeUndefined();
    expect(both.problems.map(formatProblem).join('\n')).toContain('request.fields.id.resolve: unknown option');
  });
  it('check keeps the value but requires it to exist', async () => {
    const m = `
document: inventory.adjustments
files: "*.csv"
request:
  fields: { product_code: { column: SKU, check: product }, quantity: { column: QTY, type: number } }
`;
    const s = await mapText(m, 'SKU,QTY\nA,1\nZ,1\n', { referenceIds: refs });
    expect(items(s)).toEqual([{ product_code: 'A', quantity: 1 }]);
    expect(s.rejected[0].errors).toEqual(['in.csv, line 3, column SKU: "Z" is not a known product']);
  });
  it('a mapping with references needs a source of reference ids (USAGE)', async () => {
    const e = await rejection(mapText(flat(), FLAT));
    expect(e.code).toBe('USAGE');
    expect(e.message).toContain('a source of reference ids is needed');
  });
  it('an export mapping cannot map inbound files', async () => {
    const m = mappingOf('document: products.list\nfiles: "*.csv"\nexport:\n  columns: [{ name: SKU, path: code }]\n');
    const e = await rejection(mapText(m, 'x\n'));
    expect(e.code).toBe('USAGE');
  });
});

describe('fields', () => {
  it('constants, defaults, concat with constants, dotted paths', async () => {
    const m = `
document: inventory.adjustments
files: "*.csv"
request:
  fields:
    product_code: { concat: [P, { value: "-" }, N] }
    quantity: { column: Q, type: number, default: 1 }
    reason: { value: counted }
    company_code: { column: C, default: ACME }
    reference: { concat: [P, N], separator: "/" }
`;
    const s = await mapText(m, 'P,N,Q,C\nAB,1,,\nAB,,3,GLOBEX\n');
    expect(items(s)).toEqual([
      { product_code: 'AB-1', quantity: 1, reason: 'counted', company_code: 'ACME', reference: 'AB/1' },
      { product_code: 'AB-', quantity: 3, reason: 'counted', company_code: 'GLOBEX', reference: 'AB' },
    ]);
  });
});

describe('no row is reported ok when its content went nowhere', () => {
  const pallets = (consumables: string) => `
document: customerShipments.ship
files: "*.csv"
dialect: { delimiter: ";", header: false }
record_types:
  types:
    H: { columns: [H_TYPE, ORDER] }
    L: { columns: [L_TYPE, PALLET] }
    D: { columns: [D_TYPE, SKU, QTY], emit: true }
    C: { columns: [C_TYPE, C_SKU, C_QTY], emit: true }
request:
  key: ORDER
  fields: { id: { column: ORDER, type: integer } }
  lists:
    packages:
      key: PALLET
      fields: { reference: PALLET }
      lists:
        items:
          when: { column: D_TYPE, equals: D }
          fields: { product_code: SKU, quantity: { column: QTY, type: number } }
${consumables}`;
  const file = 'H;7\nL;PAL-1\nD;A;1\nC;BOX;2\nH;8\nL;PAL-2\nD;B;1\n';
  it('a consumable record no list takes is an error that rejects its document, not ok while dropped', async () => {
    const s = await mapText(pallets(''), file);
    expect(s.rejected).toEqual([{
      key: '7', lines: [1, 2, 3, 4],
      errors: ['in.csv, line 4: the row goes into no list of the request (it passes none of the when conditions of items), so nothing of it would be sent: map it in a list, or leave such rows out with skip'],
    }]);
    expect(items(s)).toEqual([{ id: 8, packages: [{ reference: 'PAL-2', items: [{ product_code: 'B', quantity: 1 }] }] }]);
  });
  it('with a consumables list the same file maps every row', async () => {
    const s = await mapText(pallets('        consumables:\n          when: { column: C_TYPE, equals: C }\n          fields: { product_code: C_SKU, quantity: { column: C_QTY, type: integer } }'), file);
    expect(s.rejected).toEqual([]);
    expect(items(s)[0]).toEqual({ id: 7, packages: [{ reference: 'PAL-1', items: [{ product_code: 'A', quantity: 1 }], consumables: [{ product_code: 'BOX', quantity: 2 }] }] });
  });
  it('or an explicit rule leaves such records out: skip on the record type', async () => {
    const s = await mapText(pallets('').replace('emit: true }\n    C: { columns: [C_TYPE, C_SKU, C_QTY], emit: true }', 'emit: true }\n    C: { columns: [C_TYPE, C_SKU, C_QTY], skip: true }'), file);
    expect(s.rejected).toEqual([]);
    expect(s.skipped).toEqual([{ line: 4, reason: 'record type C is skipped (record_types.types.C.skip)' }]);
    expect(items(s)).toHaveLength(2);
  });
});

describe('a document takes its own fields from its first row', () => {
  const m = `
document: customerShipments.ship
files: "*.csv"
grouping: { sorted: true }
request:
  key: ORDER
  fields:
    id: { column: ORDER, type: integer }
    carrier: { column: CARRIER, transforms: [trim, upper] }
    cost: { column: COST, type: number }
  lists:
    lines: { fields: { product_code: SKU, quantity: { column: QTY, type: number } } }
`;
  it('the same value written differently is fine; a different value on a later row is an error, not lost', async () => {
    const same = await mapText(m, 'ORDER,CARRIER,COST,SKU,QTY\n7,ups,1,A,1\n7, UPS ,1.0,B,1\n');
    expect(same.rejected).toEqual([]);
    const differs = await mapText(m, 'ORDER,CARRIER,COST,SKU,QTY\n7,UPS,1,A,1\n7,DHL,1,B,1\n7,UPS,x,C,1\n8,UPS,2,A,1\n');
    expect(differs.rejected).toEqual([{
      key: '7', lines: [2, 3, 4],
      errors: [
        'in.csv, line 3, column CARRIER: "DHL" differs from "UPS" on line 2, the first row of the document: carrier comes from the first row, so this value would be lost',
        'in.csv, line 4, column COST: "x" is not a number',
      ],
    }]);
    expect(items(differs).map((i) => i.id)).toEqual([8]);
  });
});
