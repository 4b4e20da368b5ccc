import { z } from 'zod';
import { LIMITS, isoDate, isoDateTimeFilter } from './primitives.js';

// Query filters arrive as strings; a typed client may pass numbers / arrays. Both parse to the typed form.

const intString = z.string().regex(/^\d+$/, 'must be a positive integer').transform(Number);
export const page = z.union([z.number().int(), intString]).pipe(z.number().int().min(1, 'page is 1-indexed'));

const csv = <T extends z.ZodType>(element: T, parseElement: (s: string) => unknown) =>
  z
    .union([z.array(element), z.string().transform((s) => s.split(',').map((p) => p.trim()).filter((p) => p !== '').map(parseElement))])
    .pipe(z.array(element).min(1).max(LIMITS.maxItemsPerRequest));
/** `ids`: comma-separated integers. */
export const idList = csv(z.number().int().positive(), (s) => (/^\d+$/.test(s) ? Number(s) : s));
/** `numbers`: comma-separated strings. */
export const numberList = csv(z.string().min(1).max(LIMITS.maxCodeLength), (s) => s);

const dates = { planned_date_min: isoDate.optional(), planned_date_max: isoDate.optional() };
const updated = { updated_at_min: isoDateTimeFilter.optional(), updated_at_max: isoDateTimeFilter.optional() };
const byId = { ids: idList.optional(), numbers: numberList.optional() };

export const productListQuery = z.object({ page: page.optional(), ...updated });

export const CUSTOMER_SHIPMENT_STATUSES = ['pending', 'open', 'done', 'canceled'] as const;
export const OUTBOUND_TRANSFER_STATUSES = ['pending', 'open', 'done'] as const;
export const INBOUND_TRANSFER_STATUSES = ['all', 'pending', 'open'] as const;
export const SUPPLIER_SHIPMENT_STATUSES = ['pending', 'open', 'done'] as const;
export const CUSTOMER_RETURN_STATUSES = ['pending', 'open', 'done', 'canceled'] as const;

export const customerShipmentListQuery = z.object({
  status: z.enum(CUSTOMER_SHIPMENT_STATUSES).default('pending'),
  page: page.optional(),
  ...byId, ...dates, ...updated,
  carrier_service: z.string().min(1).max(LIMITS.maxCodeLength).optional(),
});
export const outboundTransferListQuery = z.object({
  status: z.enum(OUTBOUND_TRANSFER_STATUSES).default('pending'), page: page.optional(), ...byId, ...dates, ...updated,
});
/** The interface lists no updated_at filters for inbound transfers; a request with no parameter at all is a 400. */
export const inboundTransferListQuery = z.object({
  status: z.enum(INBOUND_TRANSFER_STATUSES).default('all'), page: page.optional(), ...byId, ...dates,
});
export const supplierShipmentListQuery = z.object({
  status: z.enum(SUPPLIER_SHIPMENT_STATUSES).default('pending'), page: page.optional(), ...dates, ...updated,
});
export const customerReturnListQuery = z.object({
  status: z.enum(CUSTOMER_RETURN_STATUSES).default('pending'), page: page.optional(), ...byId, ...dates, ...updated,
});

export type ProductListQuery = z.input<typeof productListQuery>;
export type CustomerShipmentListQuery = z.input<typeof customerShipmentListQuery>;
export type OutboundTransferListQuery = z.input<typeof outboundTransferListQuery>;
export type InboundTransferListQuery = z.input<typeof inboundTransferListQuery>;
export type SupplierShipmentListQuery = z.input<typeof supplierShipmentListQuery>;
export type CustomerReturnListQuery = z.input<typeof customerReturnListQuery>;

/** Turns typed filters into a query string (`ids` / `numbers` comma-joined); undefined values are left out. */
export function toQueryString(filters: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined || value === null) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}
