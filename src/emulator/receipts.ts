import type { InboundTransferReceiveItem, ReturnReceiveItem, SupplierReceiveItem } from '../contract/index.js';
import type { WriteContext } from './context.js';
import type { Family } from './db.js';
import { ItemError, outTime } from './http.js';
import { RETURN_REASONS } from './seed.js';
import { noun, type LineRow, type RecordRow } from './store.js';

/** Internal state a record must be in to be acknowledged (and received). */
const OPEN_STATE: Partial<Record<Family, string>> = {
  outbound_transfers: 'assigned', inbound_transfers: 'shipped', supplier_shipments: 'inbound', customer_return_shipments: 'draft',
};

export function acknowledge(family: Family, perItem: boolean) {
  return (ctx: WriteContext, item: { id: number }) => {
    const row = ctx.store.record(family, item.id, ctx.scope);
    if (row.state === 'canceled') throw new ItemError(`${noun(family)} ${item.id} is cancelled`);
    if (row.state !== OPEN_STATE[family]) throw new ItemError(`${noun(family)} ${item.id} is ${row.state}, not ${OPEN_STATE[family]}`);
    if (row.acknowledged_at !== null) throw new ItemError(`${noun(family)} ${item.id} is already acknowledged`);
    const next = ctx.store.update(row, { acknowledged_at: ctx.store.now() });
    return perItem ? { id: row.id, acknowledged_at: outTime(next.acknowledged_at), errors: null } : { id: row.id, acknowledged_at: outTime(next.acknowledged_at) };
  };
}

export function shipTransfer(ctx: WriteContext, item: { id: number; carrier: string; carrier_service: string; tracking_number: string }) {
  const { store } = ctx;
  const row = store.record('outbound_transfers', item.id, ctx.scope);
  if (row.state !== 'assigned') throw new ItemError(`outbound transfer ${item.id} is already ${row.state}`);
  for (const l of store.lines(row.id)) {
    const product = store.productById(l.product_id)!;
    store.move('transfer_out', row.warehouse_id, row.company_code, product, l.lot_number, -(l.quantity - l.done_quantity), row.id);
    store.setLine(l.id, { done_quantity: l.quantity });
  }
  const now = store.now();
  store.update(row, { state: 'shipped', shipped_at: now, carrier_code: item.carrier, service_code: item.carrier_service, tracking: JSON.stringify([item.tracking_number]) });
  return { id: row.id, shipped_at: outTime(now) };
}

interface ReceiptLine { sku: string; received_quantity?: number; damaged_quantity?: number; quantity?: number; lot_number?: string; lot_expiry_date?: string; epc?: string; return_reason?: number }

/** Books receipt lines against a record's lines; returns the quantity taken per line id (received + damaged). */
function book(ctx: WriteContext, row: RecordRow, lines: LineRow[], receipt: ReceiptLine[]): Map<number, { received: number; damaged: number }> {
  const { store } = ctx;
  const warehouse = store.warehouse(row.warehouse_id);
  const taken = new Map<number, { received: number; damaged: number }>();
  const used = (l: LineRow) => { const t = taken.get(l.id); return t ? t.received + t.damaged : 0; };
  for (const r of receipt) {
    if (r.quantity !== undefined && r.received_quantity === undefined) ctx.deprecated('quantity', 'receive field "quantity" is a legacy alias; use received_quantity');
    const received = r.received_quantity ?? r.quantity ?? 0;
    const damaged = r.damaged_quantity ?? 0;
    const product = store.goods(r.sku);
    if ((r.lot_expiry_date !== undefined || r.epc !== undefined) && !warehouse.lot_inventory) {
      throw new ItemError(`warehouse ${warehouse.id} does not have lot inventory enabled: lot_expiry_date and epc are not supported`);
    }
    if (r.return_reason !== undefined && !RETURN_REASONS.some((x) => x.id === r.return_reason)) throw new ItemError(`return reason ${r.return_reason} not found`);
    const lot = store.lotFor(warehouse, product, r.lot_number);
    const candidates = lines.filter((l) => l.product_id === product.id);
    if (candidates.length === 0) throw new ItemError(`${r.sku} is not on ${noun(row.family)} ${row.id}`);
    const line = candidates.find((l) => l.quantity - l.done_quantity - used(l) >= received + damaged);
    if (!line) throw new ItemError(`${r.sku}: ${received + damaged} to receive exceeds what is left on ${noun(row.family)} ${row.id}`);
    const t = taken.get(line.id) ?? { received: 0, damaged: 0 };
    taken.set(line.id, { received: t.received + received, damaged: t.damaged + damaged });
    // damaged units are recorded on the line but do not become sellable stock
    if (received > 0) store.move(`receive_${row.family}`, row.warehouse_id, row.company_code, product, lot, received, row.id);
  }
  return taken;
}

export function receiveInboundTransfer(ctx: WriteContext, item: InboundTransferReceiveItem) {
  const row = ctx.store.record('inbound_transfers', item.id, ctx.scope);
  if (row.state !== 'shipped') throw new ItemError(`inbound transfer ${item.id} is already ${row.state}`);
  const lines = ctx.store.lines(row.id);
  const taken = book(ctx, row, lines, item.lines);
  for (const l of lines) {
    const t = taken.get(l.id);
    if (t) ctx.store.setLine(l.id, { done_quantity: l.done_quantity + t.received + t.damaged, damaged_quantity: l.damaged_quantity + t.damaged });
  }
  ctx.store.update(row, { state: 'done' });
  return { id: row.id, state: 'done' };
}

type Strategy = 'finalize_and_start_new' | 'split_and_keep_open';

/** Supplier shipments and returns: per-item receive with a receiving strategy. */
function receiveWithStrategy(ctx: WriteContext, family: 'supplier_shipments' | 'customer_return_shipments', id: number, receipt: ReceiptLine[], strategy: Strategy, openState: string) {
  const { store } = ctx;
  const row = store.record(family, id, ctx.scope);
  if (row.state === 'canceled') throw new ItemError(`${noun(family)} ${id} is cancelled`);
  if (row.state !== openState) throw new ItemError(`${noun(family)} ${id} is already ${row.state}`);
  const lines = store.lines(row.id);
  const taken = book(ctx, row, lines, receipt);
  const left = (l: LineRow) => l.quantity - l.done_quantity - ((taken.get(l.id)?.received ?? 0) + (taken.get(l.id)?.damaged ?? 0));
  const complete = lines.every((l) => left(l) <= 0);
  const result: Record<string, unknown> = { id: row.id, errors: null };
  const closeLines = () => {
    for (const l of lines) {
      const t = taken.get(l.id);
      if (t) store.setLine(l.id, { done_quantity: l.done_quantity + t.received + t.damaged, damaged_quantity: l.damaged_quantity + t.damaged });
    }
  };
  if (complete) {
    closeLines();
    store.update(row, { state: 'received' });
  } else if (strategy === 'finalize_and_start_new') {
    const rest = lines.filter((l) => left(l) > 0);
    closeLines();
    store.update(row, { state: 'received' });
    const follow = store.derive(row, 'follow_up', 'N', { state: openState, acknowledged_at: null, shipped_at: null },
      rest.map((l) => ({ source: l, quantity: left(l), done_quantity: 0 })));
    result.new_id = follow.id;
  } else {
    const moved = lines.filter((l) => taken.has(l.id));
    const split = store.derive(row, 'split', 'R', { state: 'received' }, moved.map((l) => {
      const t = taken.get(l.id)!;
      return { source: l, quantity: t.received + t.damaged, done_quantity: t.received + t.damaged, damaged_quantity: t.damaged };
    }));
    for (const l of moved) {
      const q = l.quantity - (taken.get(l.id)!.received + taken.get(l.id)!.damaged);
      if (q <= 0) store.deleteLine(l.id);
      else store.setLine(l.id, { quantity: q });
    }
    store.update(row, {});
    result.split_id = split.id;
  }
  return result;
}

export function receiveSupplierShipment(ctx: WriteContext, item: SupplierReceiveItem) {
  return receiveWithStrategy(ctx, 'supplier_shipments', item.id, item.lines, item.receiving_strategy ?? 'finalize_and_start_new', 'inbound');
}

export function receiveReturn(ctx: WriteContext, item: ReturnReceiveItem) {
  return receiveWithStrategy(ctx, 'customer_return_shipments', item.id, item.items, item.receiving_strategy ?? 'split_and_keep_open', 'draft');
}
