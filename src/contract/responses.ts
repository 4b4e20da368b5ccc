import { z } from 'zod';
import { isoDateTime, itemErrors } from './primitives.js';
import { customerReturn, customerShipment, inboundTransfer, outboundTransfer, product, supplierShipment } from './resources.js';

const itemId = z.number().int().nullable(); // null when the item had no usable id

export const countResponse = z.looseObject({ count: z.number().int().nonnegative() });

export const listResponse = <K extends 'data' | 'products', T extends z.ZodType>(key: K, record: T) =>
  z.looseObject({ [key]: z.array(record), has_more: z.boolean() } as { [P in K]: z.ZodArray<T> } & { has_more: z.ZodBoolean });

export const productList = listResponse('products', product);
export const customerShipmentList = listResponse('data', customerShipment);
export const outboundTransferList = listResponse('data', outboundTransfer);
export const inboundTransferList = listResponse('data', inboundTransfer);
export const supplierShipmentList = listResponse('data', supplierShipment);
export const customerReturnList = listResponse('data', customerReturn);

/** Per-item acknowledge (customer shipments, supplier shipments, returns). */
export const acknowledgeResult = z.looseObject({ id: itemId, acknowledged_at: isoDateTime.nullable(), errors: itemErrors });
/** Fail-fast acknowledge (transfers): no per-item errors. */
export const failFastAcknowledgeResult = z.looseObject({ id: z.number().int(), acknowledged_at: isoDateTime });
/** change-status response shape is "not shown": the emulator answers {id, picking_status, errors}. */
export const changeStatusResult = z.looseObject({ id: itemId, picking_status: z.string().nullable(), errors: itemErrors });
export const failedResult = z.looseObject({ id: itemId, tpl_status: z.string().nullable(), errors: itemErrors });
/**
 * `shipped_at` is null while a `ship_all_together` shipment is held (not every item shipped yet). The emulator also
 * sends `split_shipment_id` / `deferred_shipment_id` when a ship created one.
 */
export const shipResult = z.looseObject({ id: z.number().int(), shipped_at: isoDateTime.nullable() });
export const inboundReceiveResult = z.looseObject({ id: z.number().int(), state: z.string() });
export const receiveResult = z.looseObject({ id: itemId, errors: itemErrors });
export const ssccResponse = z.looseObject({
  id: z.number().int(),
  label_url: z.string(),
  packages: z.array(z.looseObject({ id: z.number().int(), label_url: z.string() })),
});
export const adjustmentResult = z.looseObject({
  product_code: z.string().nullable(),
  reference: z.string().nullable(),
  lot_number: z.string().nullable(),
  move_id: z.number().int().nullable(),
  company_code: z.string().nullable(),
  errors: itemErrors,
});
export const cycleCountResult = z.looseObject({
  id: z.number().int(),
  reference: z.string().nullable(),
  number: z.string(),
  create_date: isoDateTime,
  company_code: z.string(),
});

export const shipmentsResponse = <T extends z.ZodType>(item: T) => z.looseObject({ shipments: z.array(item) });
export const acknowledgeResponse = shipmentsResponse(acknowledgeResult);
export const failFastAcknowledgeResponse = shipmentsResponse(failFastAcknowledgeResult);
export const changeStatusResponse = shipmentsResponse(changeStatusResult);
export const failedResponse = shipmentsResponse(failedResult);
export const shipResponse = shipmentsResponse(shipResult);
export const inboundReceiveResponse = shipmentsResponse(inboundReceiveResult);
export const receiveResponse = shipmentsResponse(receiveResult);
export const adjustmentsResponse = z.looseObject({ adjustments: z.array(adjustmentResult) });
export const cycleCountResponse = z.looseObject({ count: cycleCountResult });

export type CountResponse = z.infer<typeof countResponse>;
export type AcknowledgeResult = z.infer<typeof acknowledgeResult>;
export type FailFastAcknowledgeResult = z.infer<typeof failFastAcknowledgeResult>;
export type ChangeStatusResult = z.infer<typeof changeStatusResult>;
export type FailedResult = z.infer<typeof failedResult>;
export type ShipResult = z.infer<typeof shipResult>;
export type InboundReceiveResult = z.infer<typeof inboundReceiveResult>;
export type ReceiveResult = z.infer<typeof receiveResult>;
export type SsccResponse = z.infer<typeof ssccResponse>;
export type AdjustmentResult = z.infer<typeof adjustmentResult>;
export type CycleCountResult = z.infer<typeof cycleCountResult>;
