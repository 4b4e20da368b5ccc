import type { Db } from './db.js';
import { clearDb, createIndexes, createTriggers, dropIndexes, dropTriggers, listStatus, setMeta, type Family } from './db.js';
import { renderAllRecords } from './lists.js';

export type Scale = 'small' | 'medium' | 'large';
export const SCALES: Record<Scale, { products: number; shipments: number; other: number }> = {
  small: { products: 260, shipments: 125, other: 6 },
  medium: { products: 2_000, shipments: 5_000, other: 60 },
  large: { products: 20_000, shipments: 100_000, other: 500 },
};

function prng(seed: number): () => number {
  let a = seed >>> 0 || 0x9e3779b9;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = ['Ada', 'Ben', 'Cleo', 'Dev', 'Eva', 'Finn', 'Gia', 'Hugo', 'Iris', 'Jon', 'Kai', 'Lea'];
const LAST = ['Smith', 'Jones', 'Nguyen', 'Garcia', 'Muller', 'Rossi', 'Kim', 'Silva', 'Novak', 'Berg'];
const CITIES = [['Berlin', 'DE', 'DE-BE', '10115'], ['Lyon', 'FR', 'FR-ARA', '69001'], ['Austin', 'US', 'US-TX', '73301'], ['Leeds', 'GB', 'GB-LDS', 'LS1 1AA']];
const CARRIERS = [['UPS', 'UPS_GROUND'], ['DHL', 'DHL_EXPRESS'], ['FEDEX', 'FEDEX_2DAY']];
export const RETURN_REASONS = [
  { id: 1, name: 'Damaged in transit', return_type: 'refund' },
  { id: 2, name: 'Wrong item', return_type: 'exchange' },
  { id: 3, name: 'No longer needed', return_type: 'refund' },
];

/** Product numbering: lot-tracked when n % 10 === 3, serial-tracked when n % 25 === 7 (never both). */
export const isLotProduct = (n: number) => n % 10 === 3;
export const isSerialProduct = (n: number) => n % 25 === 7 && !isLotProduct(n);
export const productCode = (n: number) => `SKU-${String(n).padStart(5, '0')}`;
export const seedLot = (code: string) => `LOT-${code}-A`;

/** The seed's updated_at values lie within this many days before `today`. */
export const SEED_SPAN_DAYS = 56;
/**
 * Customer shipments that try the edges of a work list, chosen without a random draw (so the rest of the seed stays
 * as it was): every 25th from the 11th of each group has its customer name and address starting with = + - @ in turn
 * (formula neutralization); every 25th from the 21st pending one of warehouse 1 a first line in the thousands.
 */
export const FORMULA_PREFIXES = ['=', '+', '-', '@'] as const;
const formulaPrefix = (i: number) => (i % 25 === 10 ? FORMULA_PREFIXES[Math.floor(i / 25) % FORMULA_PREFIXES.length] : undefined);
const inThousands = (i: number, line: number) => i % 25 === 20 && line === 0;

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Rebuilds the whole state, deterministically from (seed, scale, today), in one transaction. */
export function seedDb(db: Db, seed: number, scale: Scale, today: string): void {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const size = SCALES[scale];
  // updated_at of products, then records, spread evenly over the eight weeks before `today`, so updated_at_min/max
  // can be tried on the seed; strictly increasing (every stamp index is used once).
  const nonGoods = Math.max(6, Math.floor(size.products / 40));
  const stamps = size.products + nonGoods + 100 + size.shipments + 8 * size.other + 40;
  const base = Date.parse(`${today}T00:00:00Z`) - SEED_SPAN_DAYS * 86_400_000;
  const step = Math.floor(((SEED_SPAN_DAYS - 1) * 86_400_000) / stamps);
  const stamp = (i: number) => new Date(base + i * step).toISOString();
  const planned = Array.from({ length: 14 }, (_, k) => addDays(today, k - 3));

  const run = db.transaction(() => {
    dropTriggers(db);
    dropIndexes(db);
    clearDb(db);
    setMeta(db, 'seed', String(seed));
    setMeta(db, 'scale', scale);
    const insWh = db.prepare('INSERT INTO warehouses VALUES (?, ?, ?, ?, ?, ?)');
    insWh.run(1, 'WH1', 'Main Warehouse', 1, JSON.stringify(['ACME', 'GLOBEX']), 'ACME');
    insWh.run(2, 'WH2', 'Overflow Warehouse', 0, JSON.stringify(['ACME']), 'ACME');

    const insProduct = db.prepare('INSERT INTO products VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const names: string[] = [];
    const total = size.products + nonGoods;
    for (let n = 1; n <= total; n++) {
      const goods = n <= size.products;
      const code = goods ? productCode(n) : `SVC-${String(n).padStart(5, '0')}`;
      const name = `${pick(['Blue', 'Red', 'Green', 'Steel', 'Oak'])} ${pick(['Widget', 'Gadget', 'Lamp', 'Chair', 'Mug', 'Cable'])} ${n}`;
      names[n] = name;
      const lot = goods && isLotProduct(n);
      const serial = goods && isSerialProduct(n);
      const gm = int(50, 5000);
      const hazardous = goods && n % 50 === 11;
      const doc = {
        upc: String(400000000000 + n * 7),
        template_id: 100 + (n % 20), template_name: `Template ${n % 20}`,
        category_id: 10 + (n % 8), category_name: pick(['Home', 'Office', 'Garden', 'Kitchen', 'Tools']),
        brand: pick(['Acme', 'Globex', 'Initech', 'Umbrella']),
        image_url: `https://images.example.com/products/${code}.jpg`,
        scan_required: n % 3 === 0,
        list_price: (int(100, 99_999) / 100).toFixed(2),
        quantity_per_case: int(1, 24), cases_per_pallet: int(10, 60),
        attributes: { color: pick(['blue', 'red', 'green']), ...(lot ? { shelf_life_days: 365 } : {}) },
        codes: [{ type: '3pl_sku', value: `3PL-${code}` }, { type: 'upc', value: String(400000000000 + n * 7) }, ...(n % 4 === 0 ? [{ type: 'buyer_sku', value: `B-${n}` }] : [])],
        customs_information: { hs_code: `8471.${String(n % 100).padStart(2, '0')}`, country_of_origin: pick(['CN', 'DE', 'US', 'VN']), customs_value: (int(100, 50_000) / 100).toFixed(2), customs_description: 'General merchandise' },
        dangerous_goods: hazardous ? { un_number: 'UN3481', hazard_class: '9', packing_group: 'II', proper_shipping_name: 'Lithium ion batteries packed with equipment' } : {},
        weight: { weight_gm: gm, weight_oz: Math.round(gm * 0.035274 * 100) / 100 },
        dimensions: { length_cm: 20, width_cm: 10, height_cm: 5, length_in: 7.87, width_in: 3.94, height_in: 1.97 },
        metafields: n % 5 === 0 ? [{ namespace: 'wms', key: 'zone', value: pick(['A', 'B', 'C']) }] : [],
      };
      const type = goods ? 'goods' : n % 2 === 0 ? 'service' : 'consumable';
      insProduct.run(n, code, name, type, lot ? 1 : 0, serial ? 1 : 0, stamp(n), JSON.stringify(doc));
    }
    // plain goods (neither lot nor serial) are what most pending work uses, so the happy path needs nothing special
    const plain: number[] = [];
    const lotted: number[] = [];
    for (let n = 1; n <= size.products; n++) (isLotProduct(n) ? lotted : isSerialProduct(n) ? [] : plain).push(n);

    const need = new Map<string, number>(); // "wh|company|product" -> quantity the pending work needs
    const addNeed = (wh: number, company: string, product: number, q: number) => {
      const k = `${wh}|${company}|${product}`;
      need.set(k, (need.get(k) ?? 0) + q);
    };

    const insRecord = db.prepare(`INSERT INTO records (id, family, number, warehouse_id, company_code, state, list_status,
      planned_date, updated_at, carrier_code, service_code, acknowledged_at, shipped_at, tracking, doc)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const insLine = db.prepare('INSERT INTO lines (id, record_id, product_id, quantity, done_quantity, lot_number, doc) VALUES (?, ?, ?, ?, ?, ?, ?)');
    let recordId = 1000;
    let lineId = 5000;
    let clock = size.products + 100;
    const person = () => {
      const name = `${pick(FIRST)} ${pick(LAST)}`;
      return { name, email: `${name.toLowerCase().replace(' ', '.')}@example.com`, code: `C${int(1000, 9999)}` };
    };
    const address = () => {
      const [city, country, sub, zip] = pick(CITIES);
      return { address1: `${int(1, 200)} ${pick(['Main', 'High', 'Park', 'Mill'])} Street`, city: city!, zip: zip!, country_code: country!, subdivision_code: sub! };
    };

    type Spec = { family: Family; prefix: string; wh: number; state: string; acked?: boolean; count: number; lots?: boolean; consumes?: boolean; edges?: boolean };
    const make = (spec: Spec, header: (n: number) => Record<string, unknown>, lineDoc: (n: number, product: number) => Record<string, unknown>) => {
      for (let i = 0; i < spec.count; i++) {
        const id = ++recordId;
        const company = spec.wh === 1 && i % 2 === 1 ? 'GLOBEX' : 'ACME';
        const [carrier, service] = pick(CARRIERS);
        const acked = spec.acked === true;
        const t = stamp(clock++);
        const done = spec.family === 'inbound_transfers' ? spec.state === 'done' : ['shipped', 'received', 'done'].includes(spec.state);
        insRecord.run(id, spec.family, `${spec.prefix}-${id}`, spec.wh, company, spec.state, listStatus(spec.family, spec.state, acked),
          planned[i % 14]!, t, carrier, service, acked ? t : null, (done || spec.family === 'inbound_transfers') && spec.family !== 'supplier_shipments' && spec.family !== 'customer_return_shipments' ? t : null,
          '[]', JSON.stringify(header(i)));
        // the first records of every family have 2+ lines of 2+ units, so partial ships and receipts can be tried
        const lineCount = i < 3 ? 2 + (i % 2) : int(1, 3);
        const used = new Set<number>();
        for (let l = 0; l < lineCount; l++) {
          const useLot = spec.lots === true && i % 4 === 2 && l === 0 && lotted.length > 0;
          let product = useLot ? pick(lotted) : pick(plain);
          while (used.has(product)) product = pick(plain);
          used.add(product);
          const drawn = i < 3 ? int(2, 5) : int(1, 5);
          const quantity = spec.edges === true && inThousands(i, l) ? drawn * 1000 + 250 : drawn;
          const lot = useLot && spec.wh === 1 ? seedLot(productCode(product)) : null;
          insLine.run(++lineId, id, product, quantity, done ? quantity : 0, lot, JSON.stringify(lineDoc(i, product)));
          if (spec.consumes === true && !done) addNeed(spec.wh, company, product, quantity);
        }
      }
    };

    const csHeader = (i: number) => {
      const header = { priority: pick(['normal', 'high', 'low']), customer: person(), delivery_address: address() };
      const prefix = formulaPrefix(i);
      if (prefix === undefined) return header;
      return { ...header, customer: { ...header.customer, name: `${prefix}${header.customer.name}` }, delivery_address: { ...header.delivery_address, address1: `${prefix}${header.delivery_address.address1}` } };
    };
    const uom = () => ({ uom: 'each' });
    for (const [wh, state, acked, count] of [[1, 'assigned', false, size.shipments], [1, 'assigned', true, size.other], [1, 'shipped', true, size.other],
      [1, 'canceled', false, size.other], [2, 'assigned', false, size.other]] as const) {
      make({ family: 'customer_shipments', prefix: 'SO', wh, state, acked, count, lots: true, consumes: state === 'assigned', edges: wh === 1 && state === 'assigned' && !acked }, csHeader, uom);
    }
    const otHeader = () => ({ delivery_address: address(), reference: `TR-${int(10000, 99999)}`, request_confirmation: rnd() < 0.5, shipping_instructions: rnd() < 0.5 ? 'Handle with care' : null });
    const otLine = () => ({ uom: 'each', customs_value: (int(100, 9999) / 100).toFixed(2), currency: 'EUR' });
    for (const [wh, state, acked, count] of [[1, 'assigned', false, size.other], [1, 'assigned', true, 2], [1, 'shipped', true, 2], [2, 'assigned', false, 2]] as const) {
      make({ family: 'outbound_transfers', prefix: 'OT', wh, state, acked, count, consumes: state === 'assigned' }, otHeader, otLine);
    }
    const itHeader = () => ({ from_address: address(), reference: `TR-${int(10000, 99999)}`, shipping_instructions: null, packages: [{ id: int(1, 99999), reference: 'PALLET-1', tracking_number: null, sscc: null }] });
    const itLine = () => ({ uom: 'each', outbound_allocations: [] });
    for (const [wh, state, acked, count] of [[1, 'shipped', false, size.other], [1, 'shipped', true, 2], [1, 'done', true, 2], [2, 'shipped', false, 2]] as const) {
      make({ family: 'inbound_transfers', prefix: 'IT', wh, state, acked, count, lots: true }, itHeader, itLine);
    }
    const ssHeader = (i: number) => ({
      reference: `ASN-${int(10000, 99999)}`, supplier: { name: pick(['Nordic Supply', 'Pacific Goods', 'Atlas Parts']), code: `SUP${int(10, 99)}` },
      incoterm: pick(['FOB', 'DAP', 'EXW']), transportation_mode: pick(['sea', 'road', 'air']), packages: [],
      purchase_orders: [{ id: 7000 + i, number: `PO-${7000 + i}`, reference: `REF-${i}`, purchase_date: addDays(today, -20 - (i % 10)) }],
      tracking_number: rnd() < 0.5 ? `1Z${int(100000, 999999)}` : null,
    });
    const ssLine = (i: number) => ({ unit: 'each', order_line: { id: 8000 + i, unit_price: int(100, 9999) / 100 }, order: { id: 7000 + i, number: `PO-${7000 + i}`, currency: 'EUR' } });
    for (const [wh, state, acked, count] of [[1, 'inbound', false, size.other], [1, 'inbound', true, 2], [1, 'received', true, 2], [2, 'inbound', false, 2]] as const) {
      make({ family: 'supplier_shipments', prefix: 'ASN', wh, state, acked, count, lots: true }, ssHeader, ssLine);
    }
    const crHeader = () => ({
      customer: person(), origin_address: address(), delivery_address: address(), request_confirmation: rnd() < 0.5,
      tracking_number: { tracking_number: `RT${int(100000, 999999)}`, carrier_identifier: pick(['ups', 'dhl']), state: 'in_transit' },
    });
    const crLine = (i: number) => ({ unit: 'each', return_reason: RETURN_REASONS[i % 3], order: { id: 9000 + i, number: `SO-R${9000 + i}`, reference: `WEB-${i}` }, unit_price: int(100, 9999) / 100, currency: 'EUR' });
    for (const [wh, state, acked, count] of [[1, 'draft', false, size.other], [1, 'draft', true, 2], [1, 'received', true, 2], [1, 'canceled', false, 2], [2, 'draft', false, 2]] as const) {
      make({ family: 'customer_return_shipments', prefix: 'RMA', wh, state, acked, count, lots: true }, crHeader, crLine);
    }

    // stock: what pending work needs plus a margin; lot-tracked products in warehouse 1 sit in their seed lot
    const insInv = db.prepare('INSERT INTO inventory VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET quantity = quantity + excluded.quantity');
    for (const [k, q] of need) {
      const [wh, company, product] = k.split('|');
      const lot = wh === '1' && isLotProduct(Number(product)) ? seedLot(productCode(Number(product))) : '';
      insInv.run(Number(wh), company, Number(product), lot, q + 20);
    }
    for (const n of [3, 13, 23]) insInv.run(1, 'ACME', n, seedLot(productCode(n)), 100);
    for (const n of [1, 2, 4, 5]) for (const [wh, company] of [[1, 'ACME'], [1, 'GLOBEX'], [2, 'ACME']] as const) insInv.run(wh, company, n, '', 100);
    createIndexes(db);
    renderAllRecords(db);
    createTriggers(db);
  });
  run.immediate();
}
