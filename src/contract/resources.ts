import { z } from 'zod';
import { address, customer, decimalString, isoDate, productRef, warehouseRef } from './primitives.js';

// Response schemas are loose: a service may add fields without breaking the client.

/** dangerous_goods members are "not shown": the emulator sends these, all optional; `{}` when none. */
export const dangerousGoods = z.looseObject({
  un_number: z.string().optional(),
  hazard_class: z.string().optional(),
  packing_group: z.string().optional(),
  proper_shipping_name: z.string().optional(),
});
/** metafields element fields are "not shown". */
export const metafield = z.looseObject({ namespace: z.string().optional(), key: z.string().optional(), value: z.unknown().optional() });
/** packages element fields (inbound transfers, supplier shipments) are "not shown". */
export const listedPackage = z.looseObject({
  id: z.number().int().optional(),
  reference: z.string().nullable().optional(),
  tracking_number: z.string().nullable().optional(),
  sscc: z.string().nullable().optional(),
});
/** outbound_allocations element fields are "not shown". */
export const outboundAllocation = z.looseObject({
  outbound_transfer_id: z.number().int().optional(),
  line_id: z.number().int().optional(),
  quantity: z.number().optional(),
});
/** tracking_number.state values are "not shown"; these are what the emulator uses. */
export const TRACKING_STATES = ['pending', 'in_transit', 'delivered', 'exception'] as const;

export const product = z.looseObject({
  id: z.number().int(),
  code: z.string(),
  upc: z.string(),
  name: z.string(),
  template_id: z.number().int(),
  template_name: z.string(),
  category_id: z.number().int(),
  category_name: z.string(),
  brand: z.string(),
  image_url: z.string(),
  scan_required: z.boolean(),
  list_price: decimalString,
  quantity_per_case: z.number().int(),
  cases_per_pallet: z.number().int(),
  attributes: z.record(z.string(), z.unknown()),
  codes: z.array(z.looseObject({ type: z.string(), value: z.string() })),
  customs_information: z.looseObject({
    hs_code: z.string(),
    country_of_origin: z.string(),
    customs_value: decimalString,
    customs_description: z.string(),
  }),
  dangerous_goods: dangerousGoods,
  weight: z.looseObject({ weight_gm: z.number(), weight_oz: z.number() }),
  dimensions: z.looseObject({
    length_cm: z.number(), width_cm: z.number(), height_cm: z.number(),
    length_in: z.number(), width_in: z.number(), height_in: z.number(),
  }),
  metafields: z.array(metafield),
});

const header = {
  id: z.number().int(),
  number: z.string(),
  company_code: z.string(),
  warehouse: warehouseRef,
  planned_date: isoDate,
};
const line = { id: z.number().int(), product: productRef, quantity: z.number() };

export const customerShipment = z.looseObject({
  ...header,
  priority: z.string(),
  customer,
  delivery_address: address,
  carrier_code: z.string(),
  service_code: z.string(),
  lines: z.array(z.looseObject({ ...line, uom: z.string() })),
});

export const outboundTransfer = z.looseObject({
  ...header,
  delivery_address: address,
  carrier_code: z.string(),
  service_code: z.string(),
  reference: z.string(),
  lines: z.array(z.looseObject({ ...line, uom: z.string(), customs_value: decimalString.nullable(), currency: z.string() })),
  request_confirmation: z.boolean(),
  shipping_instructions: z.string().nullable(),
});

/** Inbound transfer line `lot` is "nullable" with fields not shown: the emulator sends {number, expiry_date}. */
export const lotRef = z.looseObject({ number: z.string(), expiry_date: isoDate.nullable().optional() });

export const inboundTransfer = z.looseObject({
  ...header,
  from_address: address,
  carrier_code: z.string(),
  service_code: z.string(),
  reference: z.string(),
  lines: z.array(z.looseObject({ ...line, uom: z.string(), lot: lotRef.nullable(), outbound_allocations: z.array(outboundAllocation) })),
  shipping_instructions: z.string().nullable(),
  packages: z.array(listedPackage),
});

export const supplierShipment = z.looseObject({
  ...header,
  reference: z.string(),
  supplier: z.looseObject({ name: z.string(), code: z.string() }),
  carrier_code: z.string(),
  service_code: z.string(),
  incoterm: z.string(),
  transportation_mode: z.string(),
  packages: z.array(listedPackage),
  purchase_orders: z.array(z.looseObject({ id: z.number().int(), number: z.string(), reference: z.string(), purchase_date: isoDate })),
  lines: z.array(z.looseObject({
    ...line,
    unit: z.string(),
    order_line: z.looseObject({ id: z.number().int(), unit_price: z.number() }),
    order: z.looseObject({ id: z.number().int(), number: z.string(), currency: z.string() }),
  })),
  tracking_number: z.string().nullable(),
});

export const customerReturn = z.looseObject({
  ...header,
  customer,
  origin_address: address,
  delivery_address: address,
  carrier_code: z.string(),
  service_code: z.string(),
  tracking_number: z.looseObject({ tracking_number: z.string(), carrier_identifier: z.string(), state: z.string() }),
  lines: z.array(z.looseObject({
    ...line,
    unit: z.string(),
    return_reason: z.looseObject({ id: z.number().int(), name: z.string(), return_type: z.string() }),
    order: z.looseObject({ id: z.number().int(), number: z.string(), reference: z.string() }),
    unit_price: z.number(),
    currency: z.string(),
  })),
  request_confirmation: z.boolean(),
});

export type DangerousGoods = z.infer<typeof dangerousGoods>;
export type Metafield = z.infer<typeof metafield>;
export type ListedPackage = z.infer<typeof listedPackage>;
export type OutboundAllocation = z.infer<typeof outboundAllocation>;
export type Product = z.infer<typeof product>;
export type CustomerShipment = z.infer<typeof customerShipment>;
export type OutboundTransfer = z.infer<typeof outboundTransfer>;
export type InboundTransfer = z.infer<typeof inboundTransfer>;
export type SupplierShipment = z.infer<typeof supplierShipment>;
export type CustomerReturn = z.infer<typeof customerReturn>;
