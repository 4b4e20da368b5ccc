import type { SegmentData } from '../x12/index.js';
import type { WorkListType } from './work-types.js';

/*
 * Work-list records as X12 transaction sets, one set per record (docs/x12.md, "Writing work lists"): customer
 * shipments and outbound transfers as 940 Warehouse Shipping Order, supplier shipments and inbound transfers as 943
 * Warehouse Stock Transfer Shipment Advice. The segments between ST and SE; the envelope and control numbers are the
 * writer's. Fields the contract marks nullable are left out when null.
 */

/** The work types written as X12, and how. */
export interface X12WorkList {
  /** ST01. */
  set: '940' | '943';
  /** GS01. */
  functionalId: 'OW' | 'AR';
  segments(record: Listed): SegmentData[];
}

type Listed = Record<string, unknown>;
type Address = { address1: string; city: string; zip: string; country_code: string; subdivision_code: string };
type Line = { id: number; product: { code: string; name: string }; quantity: number; uom?: string; unit?: string; lot?: { number: string } | null };

const text = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
const yyyymmdd = (date: unknown): string => text(date).slice(0, 10).replaceAll('-', '');
const linesOf = (r: Listed): Line[] => (Array.isArray(r.lines) ? (r.lines as Line[]) : []);
const totalOf = (lines: readonly Line[]): string => String(lines.reduce((n, l) => n + l.quantity, 0));

function addressSegments(a: Address): SegmentData[] {
  return [['N3', a.address1], ['N4', a.city, a.subdivision_code, a.zip, a.country_code]];
}

/** The warehouse, the depositor (company code) and the record's id at the service. */
function common(r: Listed): SegmentData[] {
  const warehouse = r.warehouse as { code: string; name: string };
  return [['N1', 'WH', warehouse.name, '91', warehouse.code], ['N1', 'DE', '', '91', text(r.company_code)], ['N9', 'ZZ', String(r.id)]];
}

function order(r: Listed, shipTo: SegmentData[]): SegmentData[] {
  const lines = linesOf(r);
  const body: SegmentData[] = [['W05', 'N', text(r.number), text(r.reference)], ...shipTo, ...common(r)];
  if (typeof r.priority === 'string') body.push(['N9', 'PR', r.priority]);
  body.push(['G62', '10', yyyymmdd(r.planned_date)]);
  if (typeof r.shipping_instructions === 'string') body.push(['NTE', 'DEL', r.shipping_instructions]);
  body.push(['W66', 'PP', 'M', '', '', '', '', text(r.service_code), '', '', text(r.carrier_code)]);
  lines.forEach((line, i) => {
    body.push(['LX', String(i + 1)], ['W01', String(line.quantity), text(line.uom ?? line.unit), '', 'VN', line.product.code], ['G69', line.product.name], ['N9', 'LI', String(line.id)]);
  });
  body.push(['W76', totalOf(lines)]);
  return body;
}

function advice(r: Listed, shipFrom: SegmentData[]): SegmentData[] {
  const lines = linesOf(r);
  const body: SegmentData[] = [['W06', 'N', text(r.number), yyyymmdd(r.planned_date), text(r.reference)], ...shipFrom, ...common(r)];
  if (typeof r.shipping_instructions === 'string') body.push(['NTE', 'DEL', r.shipping_instructions]);
  if (typeof r.tracking_number === 'string') body.push(['N9', 'CN', r.tracking_number]);
  body.push(['W27', 'M', text(r.carrier_code), text(r.service_code)]);
  lines.forEach((line) => {
    body.push(['W04', String(line.quantity), text(line.uom ?? line.unit), '', 'VN', line.product.code], ['G69', line.product.name], ['N9', 'LI', String(line.id)]);
    if (line.lot) body.push(['N9', 'LT', line.lot.number]);
  });
  body.push(['W03', totalOf(lines)]);
  return body;
}

export const X12_WORK_LISTS: Partial<Record<WorkListType, X12WorkList>> = {
  customerShipments: {
    set: '940', functionalId: 'OW',
    segments: (r) => {
      const customer = r.customer as { name: string; code: string; email: string };
      return order(r, [['N1', 'ST', customer.name, '91', customer.code], ...addressSegments(r.delivery_address as Address), ['PER', 'IC', '', 'EM', customer.email]]);
    },
  },
  outboundTransfers: {
    set: '940', functionalId: 'OW',
    segments: (r) => order(r, [['N1', 'ST', text(r.reference)], ...addressSegments(r.delivery_address as Address)]),
  },
  supplierShipments: {
    set: '943', functionalId: 'AR',
    segments: (r) => {
      const supplier = r.supplier as { name: string; code: string };
      return advice(r, [['N1', 'SF', supplier.name, '91', supplier.code]]);
    },
  },
  inboundTransfers: {
    set: '943', functionalId: 'AR',
    segments: (r) => advice(r, [['N1', 'SF', text(r.reference)], ...addressSegments(r.from_address as Address)]),
  },
};
