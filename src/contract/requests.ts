import { z } from 'zod';
import { LIMITS, code, id, isoDate, receiptQuantity, shipQuantity, text } from './primitives.js';

// Request schemas: what a careful client must send. Unknown fields are stripped, not refused.

const items = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(LIMITS.maxItemsPerRequest);

export const acknowledgeItem = z.object({ id });

export const PICKING_STATUSES = ['in-progress', 'done', 'exception'] as const;
export const changeStatusItem = z.object({ id, picking_status: z.enum(PICKING_STATUSES) });

export const failedItem = z.object({ id, error: text.min(1) });

// ---- customer shipment ship ----
export const SHIP_STRATEGIES = ['defer_unshipped', 'ship_as_available', 'ship_all_together'] as const;

export const shipItemLine = z
  .object({
    product_code: code.optional(),
    product_id: id.optional(),
    sale_line_id: id.optional(),
    quantity: shipQuantity,
    lot: z.object({ number: code }).optional(),
    serial_numbers: z.array(code).max(LIMITS.maxItemsPerRequest).optional(),
    sale_line_cross_dock_location_code: code.optional(),
  })
  .refine((i) => i.product_code !== undefined || i.product_id !== undefined || i.sale_line_id !== undefined, {
    error: 'one of product_code, product_id or sale_line_id is required',
  });

export const consumable = z.object({ product_code: code, quantity: shipQuantity });

const packageFields = {
  tracking_number: code.optional(),
  tracking_url: text.optional(),
  carrier_identifier: code.optional(),
  medium: code.optional(),
  material: code.optional(),
  reference: code.optional(),
  override_sscc: code.optional(),
  items: z.array(shipItemLine).min(1).max(LIMITS.maxItemsPerRequest).optional(),
  consumables: z.array(consumable).max(LIMITS.maxItemsPerRequest).optional(),
};
type PackageShape = z.infer<z.ZodObject<typeof packageFields>> & { children?: ShipPackage[] };
export type ShipPackage = PackageShape;

/** A package holds `items` or nested `children` (a parent / pallet package), never both at one level. */
const packageLevel = (children: z.ZodType<ShipPackage>) =>
  z
    .object({ ...packageFields, children: z.array(children).min(1).max(LIMITS.maxItemsPerRequest).optional() })
    .refine((p) => !(p.items && p.children), { error: 'a package has items or children, not both' })
    .refine((p) => p.items !== undefined || p.children !== undefined, { error: 'a package needs items (or children)' });
export const shipPackage: z.ZodType<ShipPackage> = z.lazy(() => packageLevel(shipPackage));

const shipItem = (packages: z.ZodType<ShipPackage>) =>
  z
    .object({
      id,
      carrier: code.optional(),
      carrier_code: code.optional(),
      carrier_service: code.optional(),
      carrier_service_code: code.optional(),
      carrier_identifier: code.optional(),
      tracking_number: code.optional(),
      cost: z.number().nonnegative().optional(),
      cost_currency_code: z.string().regex(/^[A-Z]{3}$/, 'must be a 3-letter currency code').optional(),
      ship_strategy: z.enum(SHIP_STRATEGIES).optional(),
      lines: z.array(shipItemLine).min(1).max(LIMITS.maxItemsPerRequest).optional(),
      packages: z.array(packages).min(1).max(LIMITS.maxItemsPerRequest).optional(),
      split: z.boolean().optional(),
    })
    .refine((s) => !(s.lines && s.packages), { error: 'lines and packages are mutually exclusive', path: ['packages'] })
    .refine((s) => s.lines !== undefined || s.packages !== undefined, { error: 'lines or packages is required', path: ['lines'] })
    .refine((s) => !(s.carrier && s.carrier_code && s.carrier !== s.carrier_code), { error: 'carrier and its alias carrier_code disagree', path: ['carrier_code'] })
    .refine((s) => !(s.carrier_service && s.carrier_service_code && s.carrier_service !== s.carrier_service_code), {
      error: 'carrier_service and its alias carrier_service_code disagree', path: ['carrier_service_code'],
    })
    .refine((s) => s.split === undefined || s.ship_strategy === undefined || s.ship_strategy === splitToStrategy(s.split), {
      error: 'deprecated split disagrees with ship_strategy', path: ['split'],
    });
export const shipRequestItem = shipItem(shipPackage);

/** Deprecated `split`: false → ship_all_together, true → ship_as_available. */
export function splitToStrategy(split: boolean): (typeof SHIP_STRATEGIES)[number] {
  return split ? 'ship_as_available' : 'ship_all_together';
}

// ---- transfers ----
export const outboundTransferShipItem = z.object({ id, carrier: code, carrier_service: code, tracking_number: code });

type ReceiptQuantities = { received_quantity?: number; damaged_quantity?: number; quantity?: number };
const receivedOrDamaged = (l: ReceiptQuantities) =>
  l.received_quantity !== undefined || l.damaged_quantity !== undefined || l.quantity !== undefined;
const aliasAgrees = (l: ReceiptQuantities) =>
  l.received_quantity === undefined || l.quantity === undefined || l.received_quantity === l.quantity;
const needOne = { error: 'received_quantity or damaged_quantity is required', path: ['received_quantity'] };
const aliasMsg = { error: 'quantity (alias of received_quantity) disagrees with received_quantity', path: ['quantity'] };

/** The fields and rules every receive line shares (inbound transfers, supplier shipments, returns). */
const receiveLine = <S extends z.ZodRawShape>(extra: S) =>
  z
    .object({
      sku: code,
      received_quantity: receiptQuantity.optional(),
      damaged_quantity: receiptQuantity.optional(),
      quantity: receiptQuantity.optional(),
      lot_number: code.optional(),
      ...extra,
    })
    .refine((l) => receivedOrDamaged(l as ReceiptQuantities), needOne)
    .refine((l) => aliasAgrees(l as ReceiptQuantities), aliasMsg);

export const inboundTransferReceiveLine = receiveLine({ effective_date: isoDate.optional(), tpl_reference: code.optional() });

export const inboundTransferReceiveItem = z.object({
  id,
  tpl_reference: code.optional(),
  lines: items(inboundTransferReceiveLine),
});

// ---- supplier shipments ----
export const SUPPLIER_RECEIVING_STRATEGIES = ['finalize_and_start_new', 'split_and_keep_open'] as const;
export const supplierReceiveLine = receiveLine({ lot_expiry_date: isoDate.optional(), epc: code.optional() })
  .refine((l) => l.lot_expiry_date === undefined || l.lot_number !== undefined, { error: 'lot_expiry_date requires lot_number', path: ['lot_expiry_date'] });

export const supplierReceiveItem = z.object({
  id,
  tpl_reference: code.optional(),
  receiving_strategy: z.enum(SUPPLIER_RECEIVING_STRATEGIES).optional(),
  lines: items(supplierReceiveLine),
});

// ---- customer returns ----
export const RETURN_RECEIVING_STRATEGIES = ['split_and_keep_open', 'finalize_and_start_new'] as const;
export const returnReceiveLine = receiveLine({ return_reason: id.optional() });

export const returnReceiveItem = z.object({
  id,
  receiving_strategy: z.enum(RETURN_RECEIVING_STRATEGIES).optional(),
  items: items(returnReceiveLine),
});

// ---- inventory ----
export const adjustmentItem = z.object({
  product_code: code,
  quantity: z.number().refine((q) => q !== 0, { error: 'quantity must not be 0' }),
  reason: text.optional(),
  reference: code.optional(),
  date: isoDate.optional(),
  lot_number: code.optional(),
  company_code: code.optional(),
  warehouse: id.optional(),
});

export const cycleCountLine = z.object({ product_code: code, quantity: z.number().int().nonnegative(), lot_number: code.optional() });
/** The whole cycle-count body; `date` must also be strictly earlier than the service's today (checked by the service). */
export const cycleCountRequest = z.object({
  date: isoDate,
  reason: text.min(1),
  reference: code.optional(),
  company_code: code.optional(),
  warehouse: id.optional(),
  items: items(cycleCountLine),
});

// ---- whole bodies ----
export const shipmentsBody = <T extends z.ZodType>(item: T) => z.object({ shipments: items(item) });
export const acknowledgeRequest = shipmentsBody(acknowledgeItem);
export const changeStatusRequest = shipmentsBody(changeStatusItem);
export const failedRequest = shipmentsBody(failedItem);
export const shipRequest = shipmentsBody(shipRequestItem);
export const outboundTransferShipRequest = shipmentsBody(outboundTransferShipItem);
export const inboundTransferReceiveRequest = shipmentsBody(inboundTransferReceiveItem);
export const supplierReceiveRequest = shipmentsBody(supplierReceiveItem);
export const returnReceiveRequest = shipmentsBody(returnReceiveItem);
export const adjustmentsRequest = z.object({ adjustments: items(adjustmentItem) });

// ---- fast validation for hot paths ----
/** Package levels the compiled ship item covers; deeper nesting is decided by the recursive schema. */
export const COMPILED_PACKAGE_DEPTH = 4;
const noPackage = z.never() as unknown as z.ZodType<ShipPackage>;
const unrolledPackage = (depth: number): z.ZodType<ShipPackage> => packageLevel(depth === 1 ? noPackage : unrolledPackage(depth - 1));
/**
 * shipRequestItem unrolled: the same builders with the lazy reference replaced by COMPILED_PACKAGE_DEPTH copies
 * and z.never() below the last, so it accepts a subset of shipRequestItem's inputs, with the same output. Built at
 * its first use: its copies cost a command that validates no request a noticeable part of its start-up.
 */
const shipRequestItemUnrolled = () => shipItem(unrolledPackage(COMPILED_PACKAGE_DEPTH));

interface SafeParser<T> { safeParse(value: unknown): z.ZodSafeParseResult<T> }
const validators = new WeakMap<z.ZodType, SafeParser<unknown>>();

/**
 * The schema compiled with z.compile (zod's ahead-of-time compiler: identical results and errors, it falls back to
 * the runtime parser whenever its generated check fails). A recursive schema cannot be compiled: the ship item is
 * checked by its compiled unrolled form first, and only an input that form refuses is parsed by shipRequestItem
 * itself (refusals, packages nested deeper than COMPILED_PACKAGE_DEPTH), so results and errors stay those of
 * shipRequestItem. Without `new Function` (z.config jitless, strict CSP) z.compile returns the schema unchanged.
 */
export function fastValidator<T>(schema: z.ZodType<T>): SafeParser<T> {
  let v = validators.get(schema);
  if (!v) {
    if (schema === (shipRequestItem as z.ZodType)) {
      const compiled = z.compile(shipRequestItemUnrolled());
      v = { safeParse: (value) => { const r = compiled.safeParse(value); return r.success ? r : shipRequestItem.safeParse(value); } };
    } else {
      v = z.compile(schema) as SafeParser<unknown>;
    }
    validators.set(schema, v);
  }
  return v as SafeParser<T>;
}

export type AcknowledgeItem = z.infer<typeof acknowledgeItem>;
export type ChangeStatusItem = z.infer<typeof changeStatusItem>;
export type PickingStatus = (typeof PICKING_STATUSES)[number];
export type FailedItem = z.infer<typeof failedItem>;
export type ShipStrategy = (typeof SHIP_STRATEGIES)[number];
export type ShipItemLine = z.infer<typeof shipItemLine>;
export type Consumable = z.infer<typeof consumable>;
export type ShipRequestItem = z.infer<typeof shipRequestItem>;
export type OutboundTransferShipItem = z.infer<typeof outboundTransferShipItem>;
export type InboundTransferReceiveLine = z.infer<typeof inboundTransferReceiveLine>;
export type InboundTransferReceiveItem = z.infer<typeof inboundTransferReceiveItem>;
export type SupplierReceivingStrategy = (typeof SUPPLIER_RECEIVING_STRATEGIES)[number];
export type SupplierReceiveLine = z.infer<typeof supplierReceiveLine>;
export type SupplierReceiveItem = z.infer<typeof supplierReceiveItem>;
export type ReturnReceivingStrategy = (typeof RETURN_RECEIVING_STRATEGIES)[number];
export type ReturnReceiveLine = z.infer<typeof returnReceiveLine>;
export type ReturnReceiveItem = z.infer<typeof returnReceiveItem>;
export type AdjustmentItem = z.infer<typeof adjustmentItem>;
export type CycleCountLine = z.infer<typeof cycleCountLine>;
export type CycleCountRequest = z.infer<typeof cycleCountRequest>;
