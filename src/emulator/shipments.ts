import { createHmac } from 'node:crypto';
import { splitToStrategy, type ShipItemLine, type ShipPackage, type ShipRequestItem, type ShipStrategy } from '../contract/index.js';
import type { WriteContext } from './context.js';
import { ItemError, outTime } from './http.js';
import type { LineRow, ProductRow, RecordRow } from './store.js';

const CS = 'customer_shipments' as const;

export function acknowledgeShipment(ctx: WriteContext, item: { id: number }) {
  const row = ctx.store.record(CS, item.id, ctx.scope);
  if (row.state === 'canceled') throw new ItemError(`customer shipment ${item.id} is cancelled`);
  if (row.state !== 'assigned') throw new ItemError(`customer shipment ${item.id} is ${row.state}, not assigned`);
  if (row.acknowledged_at !== null) throw new ItemError(`customer shipment ${item.id} is already acknowledged`);
  const next = ctx.store.update(row, { acknowledged_at: ctx.store.now() });
  return { id: row.id, acknowledged_at: outTime(next.acknowledged_at), errors: null };
}

export function changeStatus(ctx: WriteContext, item: { id: number; picking_status: string }) {
  const row = ctx.store.record(CS, item.id, ctx.scope);
  if (row.state === 'shipped' || row.state === 'canceled') {
    throw new ItemError(`customer shipment ${item.id} is ${row.state === 'shipped' ? 'already shipped' : 'cancelled'}; its picking status cannot change`);
  }
  ctx.store.update(row, { picking_status: item.picking_status });
  return { id: row.id, picking_status: item.picking_status, errors: null };
}

export function failShipment(family: 'customer_shipments' | 'supplier_shipments') {
  return (ctx: WriteContext, item: { id: number; error: string }) => {
    const row = ctx.store.record(family, item.id, ctx.scope);
    if (['shipped', 'received', 'canceled'].includes(row.state)) throw new ItemError(`${row.number} is ${row.state}; it cannot be marked failed`);
    ctx.store.update(row, { tpl_status: 'sending_error', tpl_error: item.error });
    return { id: row.id, tpl_status: 'sending_error', errors: null };
  };
}

interface Flat { item: ShipItemLine; tracking: string | undefined }
/** A package as shipped: its effective tracking number (its own, else its parent's, else the shipment's) and its parent's index. */
interface Shipped { pkg: ShipPackage; tracking: string | undefined; parent?: number }

function flatten(ship: ShipRequestItem): { flat: Flat[]; packages: Shipped[] } {
  if (ship.lines) {
    return { flat: ship.lines.map((item) => ({ item, tracking: ship.tracking_number })), packages: [{ pkg: { items: ship.lines, tracking_number: ship.tracking_number }, tracking: ship.tracking_number }] };
  }
  const flat: Flat[] = [];
  const packages: Shipped[] = [];
  const walk = (pkg: ShipPackage, inherited: string | undefined, parent: number | undefined) => {
    const tracking = pkg.tracking_number ?? inherited;
    const index = packages.push({ pkg, tracking, parent }) - 1;
    for (const item of pkg.items ?? []) flat.push({ item, tracking });
    for (const child of pkg.children ?? []) walk(child, tracking, index);
  };
  for (const pkg of ship.packages ?? []) walk(pkg, ship.tracking_number, undefined);
  return { flat, packages };
}

/** One ship item, inside the fail-fast transaction: any ItemError rolls the whole request back. */
export function shipShipment(ctx: WriteContext, ship: ShipRequestItem) {
  const { store } = ctx;
  const row = store.record(CS, ship.id, ctx.scope);
  if (row.state === 'shipped') throw new ItemError(`customer shipment ${ship.id} is already shipped`);
  if (row.state === 'canceled') throw new ItemError(`customer shipment ${ship.id} is cancelled`);
  if (ship.split !== undefined) ctx.deprecated('split', 'ship field "split" is deprecated; use ship_strategy');
  if (ship.carrier_code !== undefined) ctx.deprecated('carrier_code', 'ship field "carrier_code" is an alias; use carrier');
  if (ship.carrier_service_code !== undefined) ctx.deprecated('carrier_service_code', 'ship field "carrier_service_code" is an alias; use carrier_service');
  const strategy: ShipStrategy = ship.ship_strategy ?? (ship.split !== undefined ? splitToStrategy(ship.split) : 'ship_as_available');
  const warehouse = store.warehouse(row.warehouse_id);
  const lines = store.lines(row.id);
  const shippedNow = new Map<number, number>(); // line id -> quantity
  const { flat, packages } = flatten(ship);

  for (const { item } of flat) {
    const line = resolveLine(ctx, row, lines, item, shippedNow);
    const product = store.productById(line.product_id)!;
    if (product.serial_tracked && (item.serial_numbers?.length ?? 0) !== item.quantity) {
      throw new ItemError(`${product.code} is serial-tracked: give ${item.quantity} serial_numbers`);
    }
    const lot = store.lotFor(warehouse, product, item.lot?.number);
    store.move('ship', row.warehouse_id, row.company_code, product, lot, -item.quantity, row.id);
    shippedNow.set(line.id, (shippedNow.get(line.id) ?? 0) + item.quantity);
  }

  const now = store.now();
  // The shipment-level tracking number is kept even when every package has its own (docs/emulator.md).
  const trackings = [...new Set([ship.tracking_number, ...flat.map((f) => f.tracking), ...packages.map((p) => p.tracking)].filter((t): t is string => !!t))];
  const carrier = { carrier_code: ship.carrier ?? ship.carrier_code ?? row.carrier_code, service_code: ship.carrier_service ?? ship.carrier_service_code ?? row.service_code };
  const remaining = lines.map((l) => ({ line: l, left: l.quantity - l.done_quantity - (shippedNow.get(l.id) ?? 0) }));
  const complete = remaining.every((r) => r.left <= 0);
  const tracking = (prev: string) => JSON.stringify([...new Set([...(JSON.parse(prev) as string[]), ...trackings])]);
  let target = row;
  const result: Record<string, unknown> = { id: row.id, shipped_at: outTime(now) };

  if (complete || strategy === 'ship_all_together') {
    for (const l of lines) if (shippedNow.has(l.id)) store.setLine(l.id, { done_quantity: l.done_quantity + shippedNow.get(l.id)! });
    const done = complete ? { state: 'shipped', shipped_at: now } : {};
    target = store.update(row, { ...carrier, ...done, tracking: tracking(row.tracking) });
    if (!complete) Object.assign(result, { shipped_at: null, held: true });
  } else if (strategy === 'ship_as_available') {
    const moved = lines.filter((l) => shippedNow.has(l.id));
    target = store.derive(row, 'split', 'S', { ...carrier, state: 'shipped', shipped_at: now, tracking: JSON.stringify(trackings) },
      moved.map((l) => ({ source: l, quantity: shippedNow.get(l.id)!, done_quantity: shippedNow.get(l.id)! })));
    for (const l of moved) {
      const left = l.quantity - shippedNow.get(l.id)!;
      if (left <= 0) store.deleteLine(l.id);
      else store.setLine(l.id, { quantity: left });
    }
    store.update(row, {});
    result.split_shipment_id = target.id;
  } else {
    const rest = remaining.filter((r) => r.left > 0);
    const deferred = store.derive(row, 'deferred', 'D', { state: 'assigned', acknowledged_at: null, shipped_at: null },
      rest.map((r) => ({ source: r.line, quantity: r.left, done_quantity: 0 })));
    for (const l of lines) {
      const q = shippedNow.get(l.id) ?? 0;
      if (q === 0) store.deleteLine(l.id);
      else store.setLine(l.id, { quantity: l.done_quantity + q, done_quantity: l.done_quantity + q });
    }
    target = store.update(row, { ...carrier, state: 'shipped', shipped_at: now, tracking: tracking(row.tracking) });
    result.deferred_shipment_id = deferred.id;
  }
  recordPackages(ctx, target, packages);
  return result;
}

function resolveLine(ctx: WriteContext, row: RecordRow, lines: LineRow[], item: ShipItemLine, shippedNow: Map<number, number>): LineRow {
  const left = (l: LineRow) => l.quantity - l.done_quantity - (shippedNow.get(l.id) ?? 0);
  let candidates: LineRow[];
  let label: string;
  if (item.sale_line_id !== undefined) {
    candidates = lines.filter((l) => l.id === item.sale_line_id);
    label = `sale line ${item.sale_line_id}`;
  } else {
    let product: ProductRow | undefined;
    if (item.product_id !== undefined) product = ctx.store.productById(item.product_id);
    else product = ctx.store.product(item.product_code!);
    label = item.product_id !== undefined ? `product id ${item.product_id}` : `product ${item.product_code}`;
    candidates = product ? lines.filter((l) => l.product_id === product.id) : [];
  }
  if (candidates.length === 0) throw new ItemError(`${label} is not on customer shipment ${row.id}`);
  const line = candidates.find((l) => left(l) >= item.quantity);
  if (!line) {
    const open = candidates.reduce((s, l) => s + Math.max(0, left(l)), 0);
    throw new ItemError(`${label}: ${item.quantity} to ship but only ${open} left on customer shipment ${row.id}`);
  }
  return line;
}

function sscc(id: number): string {
  const body = `0${String(4006381).padStart(7, '0')}${String(id).padStart(9, '0')}`; // extension + company prefix + serial
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (i % 2 === 0 ? 3 : 1);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** Keeps every package as shipped: its fields, items and consumables, its parent, and an SSCC (the override or a generated one). */
function recordPackages(ctx: WriteContext, row: RecordRow, packages: Shipped[]): void {
  const ins = ctx.store.sql('INSERT INTO packages (record_id, sscc, tracking_number, doc) VALUES (?, ?, ?, ?)');
  const ids: number[] = [];
  for (const { pkg, tracking, parent } of packages) {
    const { children: _children, ...fields } = pkg;
    const doc = { ...fields, parent_id: parent === undefined ? null : ids[parent], sscc_overridden: pkg.override_sscc !== undefined };
    const info = ins.run(row.id, pkg.override_sscc ?? '', tracking ?? null, JSON.stringify(doc));
    ids.push(Number(info.lastInsertRowid));
    if (!pkg.override_sscc) ctx.store.sql('UPDATE packages SET sscc = ? WHERE id = ?').run(sscc(Number(info.lastInsertRowid)), info.lastInsertRowid);
  }
}

/** A signed-looking, expiring URL of a label PDF served by the emulator itself under /_labels. */
export function signLabel(baseUrl: string, secret: string, path: string, expires: number): string {
  const signature = createHmac('sha256', secret).update(`${path}:${expires}`).digest('hex');
  return `${baseUrl}${path}?expires=${expires}&signature=${signature}`;
}
export function checkLabel(secret: string, path: string, expires: string | null, signature: string | null): boolean {
  if (!expires || !signature || !/^\d+$/.test(expires) || Number(expires) * 1000 < Date.now()) return false;
  return createHmac('sha256', secret).update(`${path}:${expires}`).digest('hex') === signature;
}

/** SSCC labels: one per package recorded by ship; a shipment not shipped yet gets one default package. */
export function ssccLabels(ctx: WriteContext, id: number) {
  const row = ctx.store.record(CS, id, ctx.scope);
  if (row.state === 'canceled') throw new ItemError(`customer shipment ${id} is cancelled`);
  let packages = ctx.store.sql('SELECT id, sscc FROM packages WHERE record_id = ? ORDER BY id').all(row.id) as { id: number; sscc: string }[];
  if (packages.length === 0) {
    recordPackages(ctx, row, [{ pkg: { items: [] }, tracking: undefined }]);
    packages = ctx.store.sql('SELECT id, sscc FROM packages WHERE record_id = ? ORDER BY id').all(row.id) as { id: number; sscc: string }[];
  }
  const expires = Math.floor(Date.now() / 1000) + 3600;
  return {
    id: row.id,
    label_url: signLabel(ctx.baseUrl, ctx.secret, `/_labels/shipments/${row.id}.pdf`, expires),
    packages: packages.map((p) => ({ id: p.id, sscc: p.sscc, label_url: signLabel(ctx.baseUrl, ctx.secret, `/_labels/packages/${p.id}.pdf`, expires) })),
  };
}
