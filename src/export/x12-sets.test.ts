import { describe, expect, it } from 'vitest';
import { customerShipment, inboundTransfer, outboundTransfer, supplierShipment } from '../contract/resources.js';
import { partnerSchema } from '../config/partners.js';
import { checkEnvelopes, envelopeErrors, segmentsOf, type Segment } from '../x12/index.js';
import { X12_WORK_LISTS } from './x12-sets.js';
import { interchangeText } from './x12-work.js';

/*
 * Round trips: work-list records written as 940s and 943s, read back with the bridge's own X12 reader, give the
 * fields the mapping carries (docs/x12.md, "Writing work lists") exactly as the service listed them.
 */

const warehouse = { id: 1, code: 'WH1', name: 'Main warehouse' };
const address = { address1: '12 Harbour Road', city: 'Leeds', zip: 'LS1 4AP', country_code: 'GB', subdivision_code: 'ENG' };
const product = (n: number) => ({ code: `SKU-${n}`, name: `Widget ${n}` });
const header = (id: number) => ({ id, number: `DOC-${id}`, company_code: 'ACME', warehouse, planned_date: '2026-12-03' });

const SHIPMENTS = [1, 2].map((id) => customerShipment.parse({
  ...header(id), priority: 'high', customer: { name: `Customer ${id}`, email: `c${id}@example.com`, code: `C${id}` },
  delivery_address: address, carrier_code: 'UPSN', service_code: 'GND',
  lines: [{ id: id * 10, product: product(1), quantity: 3, uom: 'EA' }, { id: id * 10 + 1, product: product(2), quantity: 1.5, uom: 'KG' }],
}));
const OUTBOUND = [outboundTransfer.parse({
  ...header(7), delivery_address: address, carrier_code: 'DHL', service_code: 'EXP', reference: 'TR-7',
  lines: [{ id: 70, product: product(3), quantity: 12, uom: 'EA', customs_value: null, currency: 'EUR' }], request_confirmation: false, shipping_instructions: 'dock 4',
})];
const SUPPLIER = [supplierShipment.parse({
  ...header(9), reference: 'ASN-9', supplier: { name: 'Parts Ltd', code: 'SUP1' }, carrier_code: 'FDX', service_code: 'STD', incoterm: 'DAP',
  transportation_mode: 'road', packages: [], purchase_orders: [], tracking_number: '1Z999',
  lines: [{ id: 90, product: product(4), quantity: 100, unit: 'EA', order_line: { id: 1, unit_price: 2 }, order: { id: 1, number: 'PO-1', currency: 'EUR' } }],
})];
const INBOUND = [inboundTransfer.parse({
  ...header(11), from_address: address, carrier_code: 'DHL', service_code: 'EXP', reference: 'IT-11', shipping_instructions: null, packages: [],
  lines: [{ id: 110, product: product(5), quantity: 4, uom: 'EA', lot: { number: 'LOT-5', expiry_date: null }, outbound_allocations: [] },
    { id: 111, product: product(6), quantity: 2, uom: 'EA', lot: null, outbound_allocations: [] }],
})];

const partner = {
  name: 'nwl',
  profile: partnerSchema.parse({ them: { qualifier: 'ZZ', id: 'NWLWMS' }, us: { qualifier: 'ZZ', id: 'WISBRIDGE' } }),
};
const AT = new Date(Date.UTC(2026, 11, 2, 6, 30));

type Rec = Record<string, any>;

/** The fields a 940 or 943 carries, from the record as listed. */
function view(r: Rec) {
  const party = r.customer ?? r.supplier;
  return {
    id: r.id, number: r.number, reference: r.reference ?? '', company: r.company_code, warehouse: { code: r.warehouse.code, name: r.warehouse.name },
    party: party ? { name: party.name, code: party.code } : { name: r.reference }, email: r.customer?.email, address: r.delivery_address ?? r.from_address,
    date: r.planned_date, priority: r.priority, instructions: r.shipping_instructions ?? undefined, tracking: r.tracking_number ?? undefined,
    carrier: r.carrier_code, service: r.service_code,
    lines: r.lines.map((l: Rec) => ({ id: l.id, code: l.product.code, name: l.product.name, quantity: l.quantity, unit: l.uom ?? l.unit, lot: l.lot?.number })),
  };
}

/** The same fields read back from a set's segments. */
function readBack(segments: readonly Segment[]) {
  const v: Rec = { lines: [], party: {} };
  const date = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;
  let line: Rec | undefined;
  for (const s of segments) {
    const e = (n: number) => s.element(n);
    switch (s.id) {
      case 'W05': Object.assign(v, { number: e(2), reference: e(3) }); break;
      case 'W06': Object.assign(v, { number: e(2), date: date(e(3)), reference: e(4) }); break;
      case 'N1':
        if (e(1) === 'WH') v.warehouse = { code: e(4), name: e(2) };
        else if (e(1) === 'DE') v.company = e(4);
        else v.party = e(4) === '' ? { name: e(2) } : { name: e(2), code: e(4) };
        break;
      case 'N3': v.address = { address1: e(1) }; break;
      case 'N4': Object.assign(v.address, { city: e(1), subdivision_code: e(2), zip: e(3), country_code: e(4) }); break;
      case 'PER': v.email = e(4); break;
      case 'N9':
        if (e(1) === 'ZZ') v.id = Number(e(2));
        else if (e(1) === 'PR') v.priority = e(2);
        else if (e(1) === 'CN') v.tracking = e(2);
        else if (e(1) === 'LI') line!.id = Number(e(2));
        else if (e(1) === 'LT') line!.lot = e(2);
        break;
      case 'G62': v.date = date(e(2)); break;
      case 'NTE': v.instructions = e(2); break;
      case 'W66': Object.assign(v, { service: e(7), carrier: e(10) }); break;
      case 'W27': Object.assign(v, { carrier: e(2), service: e(3) }); break;
      case 'W01': case 'W04': v.lines.push(line = { quantity: Number(e(1)), unit: e(2), code: e(5) }); break;
      case 'G69': line!.name = e(1); break;
      case 'W76': case 'W03': v.total = Number(e(1)); break;
    }
  }
  return v;
}

async function roundTrip(workType: 'customerShipments' | 'outboundTransfers' | 'supplierShipments' | 'inboundTransfers', records: Rec[]) {
  const workList = X12_WORK_LISTS[workType]!;
  const controls = { partner: 'nwl', interchange: 41, group: 7, firstSet: 120, sets: records.length };
  const text = interchangeText(partner, workList, controls, records.map((r) => workList.segments(r)), AT);
  const verdicts = await checkEnvelopes([text]);
  expect(verdicts).toHaveLength(1);
  expect(envelopeErrors(verdicts[0]!).map((e) => e.message)).toEqual([]);
  const segments = segmentsOf(text);
  const sets = new Map<string, Segment[]>();
  for (const s of segments) {
    if (s.position.set === undefined || s.id === 'ST' || s.id === 'SE') continue;
    sets.set(s.position.set, [...(sets.get(s.position.set) ?? []), s]);
  }
  return { segments, sets, workList };
}

describe('work lists as X12, read back', () => {
  it.each([
    ['customerShipments', SHIPMENTS, '940', 'OW'],
    ['outboundTransfers', OUTBOUND, '940', 'OW'],
    ['supplierShipments', SUPPLIER, '943', 'AR'],
    ['inboundTransfers', INBOUND, '943', 'AR'],
  ] as const)('%s: one record per %s in one %s group, equal to the work list', async (workType, records, set, group) => {
    const { segments, sets } = await roundTrip(workType, records as Rec[]);
    const isa = segments[0]!;
    expect([isa.element(6).trim(), isa.element(8).trim(), isa.element(13), isa.element(15)]).toEqual(['WISBRIDGE', 'NWLWMS', '000000041', 'P']);
    const gs = segments.find((s) => s.id === 'GS')!;
    expect([gs.element(1), gs.element(2), gs.element(3), gs.element(6), gs.element(8)]).toEqual([group, 'WISBRIDGE', 'NWLWMS', '7', '004010']);
    expect(segments.filter((s) => s.id === 'ST').map((s) => [s.element(1), s.element(2)]))
      .toEqual(records.map((_, i) => [set, String(120 + i).padStart(4, '0')]));
    const read = [...sets.values()].map(readBack);
    for (const [i, r] of (records as Rec[]).entries()) {
      const { total, ...fields } = read[i]!;
      expect(JSON.parse(JSON.stringify(fields))).toEqual(JSON.parse(JSON.stringify(view(r))));
      expect(total).toBe(r.lines.reduce((n: number, l: Rec) => n + l.quantity, 0));
    }
  });

  it('refuses a value that holds a separator, naming the segment and element', () => {
    const workList = X12_WORK_LISTS.customerShipments!;
    const bad = { ...SHIPMENTS[0], delivery_address: { ...address, address1: 'Unit 4*5' } };
    expect(() => interchangeText(partner, workList, { partner: 'nwl', interchange: 1, group: 1, firstSet: 1, sets: 1 }, [workList.segments(bad)], AT))
      .toThrow(/N301: "Unit 4\*5" holds the separator/);
  });
});
