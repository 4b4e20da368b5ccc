import { z } from 'zod';
import { fastValidator, type BatchEndpointId, type EndpointDef } from '../contract/index.js';
import type { ItemHandler, WriteContext } from './context.js';
import { HttpError, ItemError, issueText, toIssues } from './http.js';
import { adjust, adjustmentError, flushAdjustments } from './inventory.js';
import { acknowledge, receiveInboundTransfer, receiveReturn, receiveSupplierShipment, shipTransfer } from './receipts.js';
import { acknowledgeShipment, changeStatus, failShipment, shipShipment } from './shipments.js';

/** The emulator's side of one batch write of the contract. */
interface EmulatedWrite {
  /** Applies one valid item; throws ItemError to refuse it. */
  apply: ItemHandler;
  /** The answer for a refused item of a per-item endpoint (default `{id, errors}`). */
  refused?: (raw: unknown, errors: string[]) => Record<string, unknown>;
  /** `apply` throws ItemError only before its first write: a refused item changed nothing, so no savepoint (two statements an item). */
  checksFirst?: boolean;
  /** Writes what `apply` queued, at the end of the request's transaction. */
  flush?: (ctx: WriteContext) => void;
}

/**
 * Writes whose accepted item is kept, as validated, for GET /_admin/state (`writes` of the record): everything a
 * ship, receive, failure or status change carried. Acknowledgements show as `acknowledged_at`, adjustments have rows.
 */
const KEPT = /\.(ship|receive|failed|changeStatus)$/;

/** The handler of an endpoint, keeping the item it accepted (inside the item's savepoint: a refused item leaves none). */
function handlerOf(endpoint: EndpointDef): ItemHandler {
  const handler = WRITE_HANDLERS[endpoint.id as BatchEndpointId].apply;
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
/** A refused item of a per-item endpoint: its id, the answer's own field as null, and the errors. */
const refusedWith = (field: string) => (raw: unknown, errors: string[]) => ({ id: rawId(raw), [field]: null, errors });
const refusedAcknowledge = refusedWith('acknowledged_at');
const refusedFailed = refusedWith('tpl_status');

/** Every batch write of the contract, keyed by its id (the compiler checks none is missing). */
export const WRITE_HANDLERS: Record<BatchEndpointId, EmulatedWrite> = {
  'customerShipments.acknowledge': { apply: acknowledgeShipment, refused: refusedAcknowledge },
  'customerShipments.changeStatus': { apply: changeStatus, refused: refusedWith('picking_status') },
  'customerShipments.ship': { apply: shipShipment },
  'customerShipments.failed': { apply: failShipment('customer_shipments'), refused: refusedFailed },
  'outboundTransfers.acknowledge': { apply: acknowledge('outbound_transfers', false) },
  'outboundTransfers.ship': { apply: shipTransfer },
  'inboundTransfers.acknowledge': { apply: acknowledge('inbound_transfers', false) },
  'inboundTransfers.receive': { apply: receiveInboundTransfer },
  'supplierShipments.acknowledge': { apply: acknowledge('supplier_shipments', true), refused: refusedAcknowledge },
  'supplierShipments.receive': { apply: receiveSupplierShipment },
  'supplierShipments.failed': { apply: failShipment('supplier_shipments'), refused: refusedFailed },
  'customerReturns.acknowledge': { apply: acknowledge('customer_return_shipments', true), refused: refusedAcknowledge },
  'customerReturns.receive': { apply: receiveReturn },
  'inventory.adjustments': { apply: adjust, refused: adjustmentError, checksFirst: true, flush: flushAdjustments },
};

/** The answer for a failed item of a per-item endpoint. */
function errorItem(write: EmulatedWrite, raw: unknown, errors: string[]): Record<string, unknown> {
  return write.refused ? write.refused(raw, errors) : { id: rawId(raw), errors };
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

/** The contract's item schema per endpoint, compiled once (the same results and errors, faster). */
const itemValidators = new Map<string, ReturnType<typeof fastValidator>>();
function itemValidator(endpoint: EndpointDef) {
  let v = itemValidators.get(endpoint.id);
  if (!v) itemValidators.set(endpoint.id, (v = fastValidator(endpoint.item!)));
  return v;
}

/** Per-item endpoint: every item on its own (a savepoint each), 200 when all succeeded, 207 otherwise. */
export function runPerItem(ctx: WriteContext, endpoint: EndpointDef, items: unknown[]): { status: number; body: unknown } {
  const write = WRITE_HANDLERS[endpoint.id as BatchEndpointId];
  const handler = handlerOf(endpoint);
  const validator = itemValidator(endpoint);
  const db = ctx.store.db;
  const savepoint = db.transaction((fn: () => Record<string, unknown>) => fn());
  const noSavepoint = write.checksFirst === true;
  const results: Record<string, unknown>[] = [];
  let failures = 0;
  const all = db.transaction(() => {
    for (const raw of items) {
      const parsed = validator.safeParse(raw);
      if (!parsed.success) {
        failures++;
        results.push(errorItem(write, raw, toIssues(parsed.error.issues).map(issueText)));
        continue;
      }
      try {
        results.push(noSavepoint ? handler(ctx, parsed.data) : savepoint(() => handler(ctx, parsed.data)));
      } catch (error) {
        if (!(error instanceof ItemError)) throw error;
        failures++;
        results.push(errorItem(write, raw, [error.message]));
      }
    }
    write.flush?.(ctx);
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
