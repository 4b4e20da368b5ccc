import { z } from 'zod';
import { fastValidator, type BatchEndpointId, type EndpointDef } from '../contract/index.js';
import type { ItemHandler, WriteContext } from './context.js';
import { HttpError, ItemError, issueText, toIssues } from './http.js';
import { adjust, adjustmentError, flushAdjustments } from './inventory.js';
import { acknowledge, receiveInboundTransfer, receiveReturn, receiveSupplierShipment, shipTransfer } from './receipts.js';
import { acknowledgeShipment, changeStatus, failShipment, shipShipment } from './shipments.js';

/** The emulator's side of every batch write of the contract (the compiler checks none is missing). */
export const WRITE_HANDLERS: Record<BatchEndpointId, ItemHandler> = {
  'customerShipments.acknowledge': acknowledgeShipment,
  'customerShipments.changeStatus': changeStatus,
  'customerShipments.ship': shipShipment,
  'customerShipments.failed': failShipment('customer_shipments'),
  'outboundTransfers.acknowledge': acknowledge('outbound_transfers', false),
  'outboundTransfers.ship': shipTransfer,
  'inboundTransfers.acknowledge': acknowledge('inbound_transfers', false),
  'inboundTransfers.receive': receiveInboundTransfer,
  'supplierShipments.acknowledge': acknowledge('supplier_shipments', true),
  'supplierShipments.receive': receiveSupplierShipment,
  'supplierShipments.failed': failShipment('supplier_shipments'),
  'customerReturns.acknowledge': acknowledge('customer_return_shipments', true),
  'customerReturns.receive': receiveReturn,
  'inventory.adjustments': adjust,
};

/**
 * Writes whose accepted item is kept, as validated, for GET /_admin/state (`writes` of the record): everything a
 * ship, receive, failure or status change carried. Acknowledgements show as `acknowledged_at`, adjustments have rows.
 */
const KEPT = /\.(ship|receive|failed|changeStatus)$/;

/** The handler of an endpoint, keeping the item it accepted (inside the item's savepoint: a refused item leaves none). */
function handlerOf(endpoint: EndpointDef): ItemHandler {
  const handler = WRITE_HANDLERS[endpoint.id as BatchEndpointId];
  if (!KEPT.test(endpoint.id)) return handler;
  return (ctx, item: { id: number }) => {
    const result = handler(ctx, item);
    ctx.store.sql('INSERT INTO writes (record_id, endpoint, item, at) VALUES (?, ?, ?, ?)').run(item.id, endpoint.id, JSON.stringify(item), ctx.store.now());
    return result;
  };
}

const rawId = (raw: unknown): number | null => {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === 'number' && Number.isInteger(id) ? id : null;
};

/** The answer for a failed item of a per-item endpoint. */
function errorItem(endpointId: string, raw: unknown, errors: string[]): Record<string, unknown> {
  if (endpointId === 'inventory.adjustments') return adjustmentError(raw, errors);
  const id = rawId(raw);
  if (endpointId.endsWith('.acknowledge')) return { id, acknowledged_at: null, errors };
  if (endpointId.endsWith('.changeStatus')) return { id, picking_status: null, errors };
  if (endpointId.endsWith('.failed')) return { id, tpl_status: null, errors };
  return { id, errors };
}

/** The array of a write body; anything but an object holding a non-empty, bounded array is a 400. */
const envelope = (key: string, max: number) => z.object({ [key]: z.array(z.unknown()).min(1).max(max) });
const envelopes = new Map<string, z.ZodType>();

export function itemsOf(endpoint: EndpointDef, body: unknown, max: number): unknown[] {
  const key = endpoint.bodyKey!;
  let schema = envelopes.get(key);
  if (!schema) envelopes.set(key, (schema = envelope(key, max)));
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpError(400, 'invalid_body', `the body must be an object with a "${key}" array of 1 to ${max} items`, toIssues(parsed.error.issues));
  return (parsed.data as Record<string, unknown[]>)[key]!;
}

/**
 * Handlers that throw ItemError only before their first write: a refused item changed nothing, so they skip the
 * savepoint (two statements per item). Any other error still rolls back the whole request.
 */
const ATOMIC_CHECKS = new Set<string>(['inventory.adjustments'] satisfies BatchEndpointId[]);
/** Handlers that queue their writes: what they queued is written at the end of the request's transaction. */
const FLUSH: Partial<Record<BatchEndpointId, (ctx: WriteContext) => void>> = { 'inventory.adjustments': flushAdjustments };

/** The contract's item schema per endpoint, compiled once (the same results and errors, faster). */
const itemValidators = new Map<string, ReturnType<typeof fastValidator>>();
function itemValidator(endpoint: EndpointDef) {
  let v = itemValidators.get(endpoint.id);
  if (!v) itemValidators.set(endpoint.id, (v = fastValidator(endpoint.item!)));
  return v;
}

/** Per-item endpoint: every item on its own (a savepoint each), 200 when all succeeded, 207 otherwise. */
export function runPerItem(ctx: WriteContext, endpoint: EndpointDef, items: unknown[]): { status: number; body: unknown } {
  const handler = handlerOf(endpoint);
  const validator = itemValidator(endpoint);
  const db = ctx.store.db;
  const savepoint = db.transaction((fn: () => Record<string, unknown>) => fn());
  const noSavepoint = ATOMIC_CHECKS.has(endpoint.id);
  const results: Record<string, unknown>[] = [];
  let failures = 0;
  const all = db.transaction(() => {
    for (const raw of items) {
      const parsed = validator.safeParse(raw);
      if (!parsed.success) {
        failures++;
        results.push(errorItem(endpoint.id, raw, toIssues(parsed.error.issues).map(issueText)));
        continue;
      }
      try {
        results.push(noSavepoint ? handler(ctx, parsed.data) : savepoint(() => handler(ctx, parsed.data)));
      } catch (error) {
        if (!(error instanceof ItemError)) throw error;
        failures++;
        results.push(errorItem(endpoint.id, raw, [error.message]));
      }
    }
    FLUSH[endpoint.id as BatchEndpointId]?.(ctx);
  });
  all.immediate();
  return { status: failures === 0 ? 200 : 207, body: { [endpoint.bodyKey!]: results } };
}

/** Fail-fast endpoint: validate everything, apply everything in one transaction, or change nothing and answer 400. */
export function runFailFast(ctx: WriteContext, endpoint: EndpointDef, items: unknown[]): { status: number; body: unknown } {
  const key = endpoint.bodyKey!;
  const parsedItems: unknown[] = [];
  const issues: { path: string; message: string }[] = [];
  items.forEach((raw, i) => {
    const parsed = endpoint.item!.safeParse(raw);
    if (parsed.success) parsedItems.push(parsed.data);
    else issues.push(...toIssues(parsed.error.issues, [key, i]));
  });
  if (issues.length > 0) throw new HttpError(400, 'invalid_items', `no change was made: ${issues.length} problem(s) in the request`, issues);
  const handler = handlerOf(endpoint);
  const db = ctx.store.db;
  const savepoint = db.transaction((fn: () => Record<string, unknown>) => fn());
  const all = db.transaction(() => {
    const results: Record<string, unknown>[] = [];
    parsedItems.forEach((item, i) => {
      try {
        results.push(savepoint(() => handler(ctx, item)));
      } catch (error) {
        if (!(error instanceof ItemError)) throw error;
        issues.push({ path: `${key}.${i}`, message: error.message });
      }
    });
    // throwing inside the transaction rolls back every item, including the ones that succeeded
    if (issues.length > 0) throw new HttpError(400, 'invalid_items', `no change was made: ${issues.map((x) => x.message).join('; ').slice(0, 500)}`, issues);
    return results;
  });
  return { status: 200, body: { [key]: all.immediate() } };
}
